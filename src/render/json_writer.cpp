#include "render/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "render/byte_scan.h"
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

// The bytes a JSON string does not hold as they are, flagged in a word (byte_scan.h): all but
// printable ASCII, and '"', '\\' and '/' (escaped after '<').
constexpr auto kJsonSpecialBytes = [](std::uint64_t w) {
  using namespace byte_scan;
  return bytes_from_0x80(w) | bytes_below(w, 0x20) | bytes_equal(w, 0x7F) | bytes_equal(w, '"') |
         bytes_equal(w, '\\') | bytes_equal(w, '/');
};

// The end of the run of bytes that need no escape from `i` on.
std::size_t plain_run_end(std::string_view s, std::size_t i) {
  return byte_scan::first_flagged(s, i, kJsonSpecialBytes);
}

// Whether append_json_string writes `s` as it is between quotes (nearly every key and value).
bool written_as_is(std::string_view s) {
  for (std::size_t i = plain_run_end(s, 0); i < s.size(); i = plain_run_end(s, i + 1))
    if (s[i] != '/' || (i > 0 && s[i - 1] == '<')) return false;
  return true;
}

// A comma, a line break and the indentation of nested members, copied from here whole (a fixed
// size copy is a few moves) and cut to the length needed: kBreakCopy bytes from the comma, or from
// the line break (one space more at the end for that copy).
constexpr std::size_t kMostSpaces = 64;
constexpr std::size_t kBreakCopy = 2 + kMostSpaces;
constexpr std::array<char, kBreakCopy + 1> kCommaBreakAndSpaces = [] {
  std::array<char, kBreakCopy + 1> text{};
  text.fill(' ');
  text[0] = ',';
  text[1] = '\n';
  return text;
}();

// `n` bytes from `from` to `to` in at most eight overlapping word copies where n <= 64 (the keys and
// names of a report; memcpy's call and size dispatch cost as much as the copy).
inline void copy_short(char* to, const char* from, std::size_t n) {
  auto copy = [&](std::size_t at, auto word) {
    std::memcpy(&word, from + at, sizeof word);
    std::memcpy(to + at, &word, sizeof word);
  };
  if (n > 32 && n <= 64) {  // a key with its indentation (JsonWriter::members)
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

// Millionths `millionths` (not a multiple of 1e6, 100 <= |millionths| < 1e15) as a decimal with
// the point six digits from the right and no trailing zero, at `p`; the end. It is what fmt's "{}"
// writes for the double nearest to it: below 2^30 doubles lie under 1.2e-7 apart, so two numbers
// of whole millionths are different doubles and no shorter decimal names the same one (the
// shortest round trip is these digits), and from 1e-4 on fmt writes them without an exponent.
// By hand because fmt's general shortest path (Dragonbox, then its layout) costs ~330 instructions
// a number, this ~60.
char* write_millionths(char* p, std::int64_t millionths) {
  if (millionths < 0) *p++ = '-';
  std::uint64_t magnitude =
      millionths < 0 ? 0 - static_cast<std::uint64_t>(millionths) : static_cast<std::uint64_t>(millionths);
  char digits[24]{};
  char* end = std::to_chars(digits, digits + sizeof digits, magnitude).ptr;
  auto count = static_cast<std::size_t>(end - digits);
  while (end[-1] == '0') --end;  // the fraction's trailing zeros (it is not whole: one digit stays)
  if (count <= 6) {
    p = std::copy_n("0.000000", 2 + 6 - count, p);
    return std::copy(digits, end, p);
  }
  p = std::copy_n(digits, count - 6, p);
  *p++ = '.';
  return std::copy(digits + (count - 6), end, p);
}

// The most a number takes (write_json_number).
constexpr std::size_t kNumberRoom = 32;

// A double that is not an integer as write_json_number writes it, at `p`; the end.
char* write_json_fraction(char* p, double v) {
  if (!std::isfinite(v)) return std::copy_n("null", 4, p);
  // Round to 1e-6 to hide binary noise (55.514000000000003); epoch-scale values have no such digits.
  if (std::fabs(v) < 1e9) {
    double millionths = std::round(v * 1e6);  // a whole number below 1e15: exact
    if (std::fabs(millionths) >= 100) {
      auto whole = static_cast<std::int64_t>(millionths);
      if (whole % 1000000 != 0) return write_millionths(p, whole);
    }
  }
  double rounded = std::fabs(v) < 1e9 ? std::round(v * 1e6) / 1e6 : v;
  if (rounded == 0) rounded = 0;  // no "-0"
  if (std::fabs(rounded) < 9e15 && rounded == std::floor(rounded))
    return std::to_chars(p, p + 24, static_cast<std::int64_t>(rounded)).ptr;
  // fmt's "{}" (the shortest round trip), its format string parsed at compile time.
  return fmt::format_to(p, FMT_COMPILE("{}"), rounded);
}

// A double as append_json_number writes it, at `p` (room for kNumberRoom bytes); the end.
inline char* write_json_number(char* p, double v) {
  // An integral value (most of a report: counts, ids, whole microseconds, most often one digit)
  // is its own rounding.
  if (std::fabs(v) < 9e15) {
    auto integral = static_cast<std::int64_t>(v);
    if (static_cast<double>(integral) == v) {
      if (integral >= 0 && integral < 10) {
        *p = static_cast<char>('0' + integral);
        return p + 1;
      }
      return std::to_chars(p, p + 24, integral).ptr;
    }
  }
  return write_json_fraction(p, v);
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  // Runs of printable ASCII that need no escape (nearly all of a report) are appended whole.
  for (std::size_t i = 0; i < s.size();) {
    std::size_t run = plain_run_end(s, i);
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
  char text[32];
  out.append(text, write_json_number(text, v));
}

// A sink gets the text in pieces of about 1 MiB, so that a large report is never held whole.
constexpr std::size_t kPiece = 1 << 20;

JsonWriter::JsonWriter(int indent, Sink sink)
    : sink_(std::move(sink)),
      flush_at_(sink_ ? kPiece : std::numeric_limits<std::size_t>::max()),
      indent_(indent) {}

void JsonWriter::grow(std::size_t n) {
  // With a sink the buffer holds a piece and the value that ends it: one allocation, nearly always.
  std::size_t capacity = std::max({capacity_ * 2, size_ + n, sink_ ? kPiece + kPiece / 8 : 256});
  auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
  if (size_ > 0) std::memcpy(bigger.get(), buffer_.get(), size_);
  buffer_ = std::move(bigger);
  capacity_ = capacity;
}

void JsonWriter::put(std::string_view s) {
  copy_short(room(s.size()), s.data(), s.size());
  size_ += s.size();
}

// A comma where one is due, a line break and the indentation: one fixed-size copy, cut to length.
inline void JsonWriter::newline(bool comma) {
  std::size_t spaces = depth_ * static_cast<std::size_t>(indent_);
  if (indent_ <= 0 || spaces > kMostSpaces) return newline_deep(comma);
  std::size_t skip = comma ? 0 : 1;
  std::memcpy(room(kBreakCopy), kCommaBreakAndSpaces.data() + skip, kBreakCopy);
  size_ += 2 - skip + spaces;
}

void JsonWriter::newline_deep(bool comma) {
  if (indent_ <= 0) {
    if (comma) put(indent_ == kOneLine ? std::string_view(", ") : std::string_view(","));
    return;
  }
  std::size_t spaces = depth_ * static_cast<std::size_t>(indent_);
  put(std::string_view(kCommaBreakAndSpaces.data() + (comma ? 0 : 1), comma ? 2 : 1));
  std::memset(room(spaces), ' ', spaces);
  size_ += spaces;
}

// Out of line: the writer calls it once a piece, and the call site stays small.
[[gnu::noinline]] void JsonWriter::flush() {
  if (!sink_ || size_ == 0) return;
  sink_(std::string_view(buffer_.get(), size_));
  ++pieces_;
  size_ = 0;
}

inline void JsonWriter::before_value() {
  if (size_ >= flush_at_) [[unlikely]]
    flush();
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) return;
  newline(!first_);
  first_ = false;
}

void JsonWriter::string(std::string_view s) {
  if (!written_as_is(s)) {
    escaped_.clear();
    append_json_string(escaped_, s);
    put(escaped_);
    return;
  }
  char* p = room(s.size() + 2);
  p[0] = '"';
  copy_short(p + 1, s.data(), s.size());
  p[s.size() + 1] = '"';
  size_ += s.size() + 2;
}

std::optional<std::string_view> JsonWriter::since(Mark m) const {
  if (m.pieces != pieces_) return std::nullopt;
  return std::string_view(buffer_.get() + m.size, size_ - m.size);
}

JsonWriter& JsonWriter::json(std::string_view text) {
  before_value();
  put(text);
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  put("{");
  ++depth_;
  first_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_;
  --depth_;
  if (!empty) newline(false);
  put("}");
  first_ = false;  // the container holding this one has a member now
  if (depth_ == 0 && indent_ > 0) put("\n");
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  put("[");
  ++depth_;
  first_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = first_;
  --depth_;
  if (!empty) newline(false);
  put("]");
  first_ = false;
  return *this;
}

JsonWriter& JsonWriter::key(JsonKey k) {
  before_value();
  if (k.as_is()) {
    std::string_view text = k.text();
    char* p = room(text.size() + 2);
    p[0] = '"';
    copy_short(p + 1, text.data(), text.size());
    p[text.size() + 1] = '"';
    size_ += text.size() + 2;
  } else {
    string(k.text());
  }
  char* p = room(2);
  p[0] = ':';
  p[1] = ' ';
  size_ += indent_ != 0 ? 2 : 1;
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::members(JsonKeyRun& keys, std::span<const std::optional<double>> values) {
  if (size_ >= flush_at_) [[unlikely]]
    flush();
  if (keys.depth_ != depth_ || keys.indent_ != indent_ || keys.ends_.empty()) {
    keys.text_.clear();
    keys.ends_.clear();
    for (std::string_view k : keys.keys_) {
      keys.text_ += indent_ == kOneLine ? ", " : ",";
      if (indent_ > 0) keys.text_.append(1, '\n').append(depth_ * static_cast<std::size_t>(indent_), ' ');
      append_json_string(keys.text_, k);
      keys.text_ += indent_ != 0 ? ": " : ":";
      keys.ends_.push_back(keys.text_.size());
    }
    keys.depth_ = depth_;
    keys.indent_ = indent_;
  }
  std::size_t n = std::min(values.size(), keys.ends_.size());
  char* start = room(keys.text_.size() + kNumberRoom * n);
  char* p = start;
  // Each key's text starts with its comma (and on one line the space after it), left out before the
  // object's first member.
  std::size_t from = first_ ? (indent_ == kOneLine ? 2 : 1) : 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t end = keys.ends_[i];
    copy_short(p, keys.text_.data() + from, end - from);
    p += end - from;
    from = end;
    p = values[i] ? write_json_number(p, *values[i]) : std::copy_n("null", 4, p);
  }
  if (n > 0) first_ = false;
  size_ += static_cast<std::size_t>(p - start);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  string(s);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  char* p = room(kNumberRoom);
  size_ += static_cast<std::size_t>(write_json_number(p, v) - p);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  before_value();
  char* p = room(24);
  size_ += static_cast<std::size_t>(std::to_chars(p, p + 24, v).ptr - p);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
  before_value();
  char* p = room(24);
  size_ += static_cast<std::size_t>(std::to_chars(p, p + 24, v).ptr - p);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  put(v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  put("null");
  return *this;
}

}  // namespace perfgate
