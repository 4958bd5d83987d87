// A small streaming JSON writer with stable number formatting. Boost.JSON's serializer prints
// doubles in exponent form (5.5514E1), unfriendly in diffs and golden files; this writes the
// shortest round-trip decimal of each value rounded to 1e-6, and integers without a point.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

// Whether `s` is printable ASCII that a JSON string holds as it is (append_json_string adds only
// the quotes): no '"', '\\' or "</". A byte at a time, for keys known when compiled (JsonKey).
constexpr bool json_text_as_is(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\' || (c == '/' && i > 0 && s[i - 1] == '<'))
      return false;
  }
  return true;
}

// An object's key. A literal is checked for escapes when compiled, so that writing it is a copy; a
// key known only when run (a trace's attribute name, a table's name) is escaped as it is written,
// as any value is.
class JsonKey {
 public:
  consteval JsonKey(const char* k) : text_(k), as_is_(json_text_as_is(text_)) {}
  JsonKey(std::string_view k) : text_(k) {}
  JsonKey(const std::string& k) : text_(k) {}

  constexpr std::string_view text() const { return text_; }
  constexpr bool as_is() const { return as_is_; }  // known to need no escape

 private:
  std::string_view text_;
  bool as_is_ = false;
};

// The keys of an object that a report writes many times (each worker's ~240 metrics), each kept as
// the writer writes it: the comma, line break and indentation before it, the key escaped and quoted,
// the colon. Made again when written at another depth or by a writer of another indentation
// (JsonWriter::members).
class JsonKeyRun {
 public:
  explicit JsonKeyRun(std::span<const std::string_view> keys) : keys_(keys) {}

 private:
  friend class JsonWriter;
  std::span<const std::string_view> keys_;
  std::size_t depth_ = 0;
  int indent_ = -2;  // none yet: made at the first write
  std::string text_;
  std::vector<std::size_t> ends_;  // where each key's text ends in text_
};

class JsonWriter {
 public:
  // Text goes to `sink` a piece at a time (about 1 MiB) when one is given, so that a large report
  // is never held whole; else it is kept and str() returns it.
  using Sink = std::function<void(std::string_view)>;
  // `indent` spaces a level, each member on a line of its own; 0: compact (no spaces); kOneLine: on
  // one line, members apart by ", " and each key followed by ": ", as Python's json.dumps writes.
  static constexpr int kOneLine = -1;
  explicit JsonWriter(int indent = 2, Sink sink = {});

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(JsonKey k);
  // The members of an open object whose keys are `keys` and values `values` (null where empty),
  // in one pass over a buffer made room in once (each worker's metrics: ~240 members).
  JsonWriter& members(JsonKeyRun& keys, std::span<const std::optional<double>> values);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(std::uint32_t v) { return value(static_cast<std::uint64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }

  std::string str() const { return std::string(buffer_.get(), size_); }
  void flush();  // hands what is left to the sink

  // A value written once and copied where it repeats (a table's columns in each worker): mark()
  // right after its key, write it, and since() is its text (none where a piece of it went to the
  // sink); json() writes that text as a value at the same depth.
  struct Mark {
    std::size_t size;
    std::size_t pieces;
  };
  Mark mark() const { return {size_, pieces_}; }
  std::optional<std::string_view> since(Mark m) const;
  JsonWriter& json(std::string_view text);
  std::size_t depth() const { return depth_; }
  // What follows is written with another indentation (a value at a time: set it after a value's
  // opening bracket and again after its closing one).
  int indent() const { return indent_; }
  void set_indent(int indent) { indent_ = indent; }

 private:
  char* room(std::size_t n) {  // where the next `n` bytes go
    if (capacity_ - size_ < n) grow(n);
    return buffer_.get() + size_;
  }
  void grow(std::size_t n);
  void put(std::string_view s);
  void before_value();
  void newline(bool comma);
  void newline_deep(bool comma);    // compact, or deeper than newline's run of spaces
  void string(std::string_view s);  // quoted, escaped as append_json_string escapes it

  // The text is the first size_ bytes of buffer_; the buffer is written in place, not appended to,
  // so that a small piece costs a copy and no length check per character, and is never zeroed.
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
  std::string escaped_;  // a string that needs escaping, escaped (reused)
  Sink sink_;
  std::size_t flush_at_;    // the size at which the text goes to the sink (none: never)
  std::size_t pieces_ = 0;  // handed to the sink
  std::size_t depth_ = 0;   // open containers
  int indent_;
  bool first_ = true;  // the innermost open container has no member yet
  bool after_key_ = false;
};

// JSON string escaping; invalid UTF-8 becomes U+FFFD and "</" becomes "<\/" (safe in HTML).
void append_json_string(std::string& out, std::string_view s);
std::string format_json_number(double v);
void append_json_number(std::string& out, double v);  // format_json_number appended

// An integer as fmt's "{}" writes it, appended.
template <typename Integer>
void append_json_integer(std::string& out, Integer v) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
}

}  // namespace perfgate
