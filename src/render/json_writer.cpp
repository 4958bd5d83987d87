#include "render/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "render/escape.h"

namespace perfgate {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if (n == 3 && c == 0xE0 && byte(i + 1) < 0xA0) return 0;   // overlong
  if (n == 3 && c == 0xED && byte(i + 1) >= 0xA0) return 0;  // surrogate
  if (n == 4 && c == 0xF0 && byte(i + 1) < 0x90) return 0;
  if (n == 4 && c == 0xF4 && byte(i + 1) >= 0x90) return 0;
  return n;
}

// A C1 control (U+0080..U+009F), a bidirectional control or a line or paragraph separator at `i`
// (`n` bytes): its code point, which the writer escapes; 0 for every other character.
char32_t hidden_character(std::string_view s, std::size_t i, std::size_t n) {
  auto second = static_cast<unsigned char>(s[i + 1]);
  if (n == 2 && static_cast<unsigned char>(s[i]) == 0xC2 && second <= 0x9F) return second;
  return invisible_format_character(s, i, n);
}

// Printable ASCII but for '"', '\\' and '/': bytes a JSON string holds as they are.
constexpr std::array<bool, 256> kPlainJson = [] {
  std::array<bool, 256> plain{};
  for (std::size_t c = 0x20; c < 0x7F; ++c) plain[c] = c != '"' && c != '\\' && c != '/';
  return plain;
}();

// A line break and the indentation of nested members.
constexpr std::string_view kBreakAndSpaces =
    "\n                                                                ";

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  // Runs of printable ASCII that need no escape (nearly all of a report) are appended whole.
  auto plain = [](unsigned char c) { return kPlainJson[c]; };
  for (std::size_t i = 0; i < s.size();) {
    std::size_t run = i;
    while (run < s.size() && plain(static_cast<unsigned char>(s[run]))) ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      std::size_t n = utf8_sequence(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else if (char32_t shown = hidden_character(s, i, n)) {
        // The same string to a JSON reader, and no raw control or bidirectional character in the file.
        out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(shown));
        i += n;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '/':
        out += (i > 0 && s[i - 1] == '<') ? "\\/" : "/";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

std::string format_json_number(double v) {
  std::string out;
  append_json_number(out, v);
  return out;
}

void append_json_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  // Round to 1e-6 to hide binary noise (55.514000000000003); epoch-scale values have no such digits.
  double rounded = std::fabs(v) < 1e9 ? std::round(v * 1e6) / 1e6 : v;
  if (rounded == 0) rounded = 0;  // no "-0"
  if (std::fabs(rounded) < 9e15 && rounded == std::floor(rounded))
    append_json_integer(out, static_cast<std::int64_t>(rounded));
  else
    fmt::format_to(std::back_inserter(out), "{}", rounded);
}

void JsonWriter::newline() {
  if (indent_ <= 0) return;
  std::size_t spaces = first_.size() * static_cast<std::size_t>(indent_);
  // A line break and the indentation in one append where it fits (nearly always).
  std::size_t now = std::min(spaces, kBreakAndSpaces.size() - 1);
  out_.append(kBreakAndSpaces.data(), 1 + now);
  if (spaces > now) out_.append(spaces - now, ' ');
}

void JsonWriter::flush() {
  if (!sink_ || out_.empty()) return;
  sink_(out_);
  out_.clear();
}

void JsonWriter::before_value() {
  constexpr std::size_t kPiece = 1 << 20;
  if (sink_ && out_.size() >= kPiece) flush();
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += '}';
  if (first_.empty() && indent_ > 0) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  append_json_string(out_, k);
  out_ += indent_ > 0 ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  append_json_string(out_, s);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  append_json_number(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  before_value();
  append_json_integer(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
  before_value();
  append_json_integer(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

}  // namespace perfgate
