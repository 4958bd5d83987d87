// A small streaming JSON writer with stable number formatting. Boost.JSON's serializer prints
// doubles in exponent form (5.5514E1), unfriendly in diffs and golden files; this writes the
// shortest round-trip decimal of each value rounded to 1e-6, and integers without a point.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
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
  constexpr JsonKey(std::string_view k) : text_(k) {}
  JsonKey(const std::string& k) : text_(k) {}
  // A name known when compiled that is not a literal (a catalog's constexpr string_view), checked then.
  static consteval JsonKey known(std::string_view k) {
    JsonKey key(k);
    key.as_is_ = json_text_as_is(k);
    return key;
  }

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

namespace json_writer_detail {

inline constexpr std::size_t kNumberRoom = 32;  // the most a number takes

// `n` bytes from `from` to `to` in at most eight overlapping word copies where n <= 64 (the keys and
// names of a report; memcpy's call and size dispatch cost as much as the copy). Inlined where `n`
// is known (a literal key), it is the one copy.
inline void copy_short(char* to, const char* from, std::size_t n) {
  auto copy = [&](std::size_t at, auto word) {
    std::memcpy(&word, from + at, sizeof word);
    std::memcpy(to + at, &word, sizeof word);
  };
  if (n > 32 && n <= 64) {  // a key with its indentation
    for (std::size_t at = 0; at < 32; at += 8) copy(at, std::uint64_t{});
    for (std::size_t at = n - 32; at < n; at += 8) copy(at, std::uint64_t{});
  } else if (n >= 16 && n <= 32) {
    copy(0, std::uint64_t{});
    copy(8, std::uint64_t{});
    copy(n - 16, std::uint64_t{});
    copy(n - 8, std::uint64_t{});
  } else if (n >= 8 && n < 16) {
    copy(0, std::uint64_t{});
    copy(n - 8, std::uint64_t{});
  } else if (n >= 4 && n < 8) {
    copy(0, std::uint32_t{});
    copy(n - 4, std::uint32_t{});
  } else if (n < 4) {
    for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
  } else {
    std::memcpy(to, from, n);
  }
}

}  // namespace json_writer_detail

class JsonWriter {
 public:
  // Text goes to `sink` a piece at a time (about 1 MiB) when one is given, so that a large report
  // is never held whole; else it is kept and str() returns it.
  using Sink = std::function<void(std::string_view)>;
  // `indent` spaces a level, each member on a line of its own; 0: compact (no spaces); kOneLine: on
  // one line, members apart by ", " and each key followed by ": ", as Python's json.dumps writes.
  static constexpr int kOneLine = -1;
  explicit JsonWriter(int indent = 2, Sink sink = {});

  // Inline, as are key(), value(bool) and null(): a report writes ~500 of them a worker, and a
  // call site knows a literal key's length (its copy is then a move or two; out of line, copy_short
  // chose among its lengths at each of 54 k keys).
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() {
    close('}');
    if (depth_ == 0 && indent_ > 0) *place(1) = '\n';
    return *this;
  }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() {
    close(']');
    return *this;
  }
  [[gnu::always_inline]] JsonWriter& key(JsonKey k) {
    std::string_view text = k.text();
    if (!k.as_is()) return key_escaped(text);
    char* p = item(text.size() + 4);
    p[0] = '"';
    json_writer_detail::copy_short(p + 1, text.data(), text.size());
    std::memcpy(p + 1 + text.size(), "\": ", 3);
    written(p + text.size() + (indent_ != 0 ? 4 : 3));
    after_key_ = true;
    return *this;
  }
  // The members of an open object whose keys are `keys` and values `values` (null where a value is
  // not finite, as value(double) writes it: a metric that does not apply is a NaN), in one pass over
  // a buffer made room in once (each worker's metrics: ~240 members).
  JsonWriter& members(JsonKeyRun& keys, std::span<const double> values);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  // Numbers: the separator inline (no call's saved registers for a value's few bytes), the digits
  // out of line.
  JsonWriter& value(double v) {
    written(number(item(json_writer_detail::kNumberRoom), v));
    return *this;
  }
  JsonWriter& value(std::int64_t v) {
    written(integer(item(json_writer_detail::kNumberRoom), v));
    return *this;
  }
  JsonWriter& value(std::uint64_t v) {
    written(integer(item(json_writer_detail::kNumberRoom), v));
    return *this;
  }
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(std::uint32_t v) { return value(static_cast<std::uint64_t>(v)); }
  // "true", "false" and "null" stored as one word (room for eight bytes), counted to length.
  JsonWriter& value(bool v) {
    char* p = item(8);
    std::memcpy(p, v ? "true    " : "false   ", 8);
    written(p + (v ? 4 : 5));
    return *this;
  }
  JsonWriter& null() {
    char* p = item(4);
    std::memcpy(p, "null", 4);
    written(p + 4);
    return *this;
  }
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
  // A number as format_json_number writes it, an integer as to_chars does, at `p` (room for
  // kNumberRoom bytes); the end.
  static char* number(char* p, double v);
  static char* integer(char* p, std::int64_t v);
  static char* integer(char* p, std::uint64_t v);
  char* room(std::size_t n) {  // where the next `n` bytes go
    if (capacity_ - size_ < n) grow(n);
    return buffer_.get() + size_;
  }
  char* place(std::size_t n) {  // room for `n` bytes, counted as written
    char* p = room(n);
    size_ += n;
    return p;
  }
  // The text ends at `end` (in the buffer, after what room() gave). Each piece is written through
  // a local pointer and counted once at its end: a byte stored through a char* may be any member,
  // so a member updated as each byte went was loaded and stored again around every store.
  void written(char* end) { size_ = static_cast<std::size_t>(end - buffer_.get()); }
  void grow(std::size_t n);
  void put(std::string_view s);
  // Where a value or key of at most `n` bytes goes, after what precedes it: nothing after a key or
  // at the top, else a comma where the container has a member, and where indented a line break and
  // the indentation. Room for `n` bytes after it.
  [[gnu::always_inline]] char* item(std::size_t n) {
    if (size_ >= flush_at_) [[unlikely]]
      flush();
    if (indent_ > 0) return indented_item(n);
    char* p = room(n + 2);
    // On one line (a worker past --detailed-workers: most of a large run's report) or compact,
    // ", " or "," stored whole and counted where due (else written over).
    std::memcpy(p, ", ", 2);
    return p + (separator() != Separator::kComma ? 0 : indent_ == kOneLine ? 2 : 1);
  }
  // What goes before the next value or key: nothing (kBare; not kNone, which would shadow the profile
  // model's beside it) after a key or at the top, else a separator,
  // with a comma where the container has a member.
  enum class Separator { kBare, kFirst, kComma };
  Separator separator() {
    if (after_key_) {
      after_key_ = false;
      return Separator::kBare;
    }
    if (depth_ == 0) return Separator::kBare;
    bool comma = !first_;
    first_ = false;
    return comma ? Separator::kComma : Separator::kFirst;
  }
  char* indented_item(std::size_t n);
  [[gnu::always_inline]] JsonWriter& open(char bracket) {
    char* p = item(1);
    *p = bracket;
    written(p + 1);
    ++depth_;
    first_ = true;
    return *this;
  }
  [[gnu::always_inline]] void close(char bracket) {
    bool empty = first_;
    --depth_;
    first_ = false;  // the container holding this one has a member now
    if (!empty && indent_ > 0) return close_indented(bracket);
    *place(1) = bracket;
  }
  void close_indented(char bracket);
  JsonWriter& key_escaped(std::string_view text);
  char* string(char* p, std::string_view s);  // quoted, escaped as append_json_string escapes it

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
// What format_json_number writes, by its general path alone (rounding to 1e-6, then fmt's shortest
// round trip): the definition its faster paths keep to, for the tests that compare them.
std::string format_json_number_general(double v);
void append_json_number(std::string& out, double v);  // format_json_number appended

// An integer as fmt's "{}" writes it, appended.
template <typename Integer>
void append_json_integer(std::string& out, Integer v) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
}

}  // namespace perfgate
