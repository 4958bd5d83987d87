// A small streaming JSON writer with stable number formatting. Boost.JSON's serializer prints
// doubles in exponent form (5.5514E1), unfriendly in diffs and golden files; this writes the
// shortest round-trip decimal of each value rounded to 1e-6, and integers without a point.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

class JsonWriter {
 public:
  // Text goes to `sink` a piece at a time (about 1 MiB) when one is given, so that a large report
  // is never held whole; else it is kept and str() returns it.
  using Sink = std::function<void(std::string_view)>;
  explicit JsonWriter(int indent = 2, Sink sink = {}) : sink_(std::move(sink)), indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
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

  const std::string& str() const { return out_; }
  void flush();  // hands what is left to the sink

 private:
  void before_value();
  void newline();

  std::string out_;
  Sink sink_;
  std::vector<char> first_;  // per open container: no member written yet (not vector<bool>'s bits)
  int indent_;
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
