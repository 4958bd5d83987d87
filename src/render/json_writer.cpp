#include "render/json_writer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// The bytes a JSON string does not hold as they are: all but printable ASCII, and '"', '\\' and '<'
// (a '/' after it is escaped). '<', not '/': a path has many slashes, and each flagged byte ends a
// run of bytes copied as they are.
#if defined(__SSE2__)
// Those of `v`, as a mask's bits: below 0x20 or from 0x80 (below 0x20 as signed bytes), 0x7F, '"',
// '\\' and '<'.
unsigned special_bytes(__m128i v) {
  auto equal = [&](char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  __m128i special = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), equal(0x7F));
  special = _mm_or_si128(special, _mm_or_si128(equal('"'), _mm_or_si128(equal('\\'), equal('<'))));
  return static_cast<unsigned>(_mm_movemask_epi8(special));
}

std::uint64_t load_word(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// The end of the run of bytes that need no escape from `i` on, sixteen bytes at a time (SSE2 is in
// every x86-64): a word's eight cost ~22 instructions to test, sixteen ~12. The last sixteen
// overlap those tested, shifted past them; a shorter rest is tested in one go as its first and
// last eight (or four) bytes, or its first, middle and last byte padded with spaces, none copied
// (most of a report's strings are names of 4 to 15 bytes). The first flagged byte is where the
// run ends: a byte repeated later in the vector was not flagged before it.
std::size_t plain_run_end(std::string_view s, std::size_t i) {
  const std::size_t n = s.size();
  const char* p = s.data() + i;
  std::size_t left = n - i;
  auto first = [](unsigned m) { return static_cast<std::size_t>(std::countr_zero(m)); };
  if (left >= 16) {
    for (; i + 16 <= n; i += 16)
      if (unsigned m = special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i))))
        return i + first(m);
    if (i == n) return n;
    unsigned m =
        special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + n - 16))) >> (i - (n - 16));
    return m ? i + first(m) : n;
  }
  constexpr std::uint64_t kSpaces = ' ' * byte_scan::kOnes;
  if (left >= 8) {
    unsigned m = special_bytes(_mm_set_epi64x(static_cast<long long>(load_word(p + left - 8)),
                                              static_cast<long long>(load_word(p))));
    if (m == 0) return n;
    std::size_t k = first(m);
    return i + (k < 8 ? k : left - 16 + k);
  }
  if (left == 0) return n;
  std::uint64_t w;
  if (left >= 4) {
    std::uint32_t head, tail;
    std::memcpy(&head, p, 4);
    std::memcpy(&tail, p + left - 4, 4);
    w = head | std::uint64_t{tail} << 32;
  } else {
    auto byte = [&](std::size_t k) { return std::uint64_t{static_cast<unsigned char>(p[k])}; };
    w = byte(0) | byte(left / 2) << 8 | byte(left - 1) << 16 | kSpaces << 24;
  }
  unsigned m = special_bytes(_mm_set_epi64x(static_cast<long long>(kSpaces), static_cast<long long>(w)));
  if (m == 0) return n;
  std::size_t k = first(m);
  if (left >= 4) return i + (k < 4 ? k : left - 8 + k);
  return i + (k == 0 ? 0 : k == 1 ? left / 2 : left - 1);
}
#else
// Those of a word (byte_scan.h).
constexpr auto kJsonSpecialBytes = [](std::uint64_t w) {
  using namespace byte_scan;
  return bytes_from_0x80(w) | bytes_below(w, 0x20) | bytes_equal(w, 0x7F) | bytes_equal(w, '"') |
         bytes_equal(w, '\\') | bytes_equal(w, '<');
};

// The end of the run of bytes that need no escape from `i` on.
std::size_t plain_run_end(std::string_view s, std::size_t i) {
  return byte_scan::first_flagged(s, i, kJsonSpecialBytes);
}
#endif

// Whether append_json_string writes `s` as it is between quotes (nearly every key and value).
bool written_as_is(std::string_view s) {
  for (std::size_t i = plain_run_end(s, 0); i < s.size(); i = plain_run_end(s, i + 1))
    if (s[i] != '<' || (i + 1 < s.size() && s[i + 1] == '/')) return false;
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

// "00" to "99", for writing two digits at once.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (int i = 0; i < 100; ++i) {
    pairs[static_cast<std::size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    pairs[static_cast<std::size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// An integer as std::to_chars writes it, at `p` (room for 24 bytes); the end. Most of a report's
// are under 10,000 (counts, whole microseconds), written from the pairs without to_chars' count of
// the digits first (~10 instructions, to_chars ~35).
template <typename Integer>
[[gnu::always_inline]] inline char* write_integer(char* p, Integer v) {
  if constexpr (std::is_signed_v<Integer>)
    if (v < 0) return std::to_chars(p, p + 24, v).ptr;
  if (v >= 10000) return std::to_chars(p, p + 24, v).ptr;
  auto u = static_cast<unsigned>(v);
  if (u < 10) {
    *p = static_cast<char>('0' + u);
    return p + 1;
  }
  if (u < 100) return std::copy_n(&kDigitPairs[2 * u], 2, p);
  if (u < 1000) {
    *p = static_cast<char>('0' + u / 100);
    return std::copy_n(&kDigitPairs[2 * (u % 100)], 2, p + 1);
  }
  std::memcpy(p, &kDigitPairs[2 * (u / 100)], 2);
  return std::copy_n(&kDigitPairs[2 * (u % 100)], 2, p + 2);
}

// Two digits of "00" to "99" as the bytes of a number, the first in the lowest (x86's order).
std::uint64_t digit_pair(std::uint64_t n) {
  std::uint16_t pair;
  std::memcpy(&pair, &kDigitPairs[2 * n], 2);
  if constexpr (std::endian::native == std::endian::big) pair = __builtin_bswap16(pair);
  return pair;
}

// A whole number of millionths (100 <= `magnitude` < 1e15, `whole` = magnitude / 1e6, `fraction` =
// magnitude % 1e6, not 0) as a decimal with the point six digits from the right and no trailing
// zero, at `p` (room for 24 bytes); the end. It is what fmt's "{}" writes for the double nearest to
// it: below 2^30 doubles lie under 1.2e-7 apart, so two numbers of whole millionths are different
// doubles and no shorter decimal names the same one (the shortest round trip is these digits), and
// from 1e-4 on fmt writes them without an exponent. By hand because fmt's general shortest path
// (Dragonbox, then its layout) costs ~330 instructions a number; the six digits after the point are
// three pairs made into one word, stored whole and cut after the last that is not a zero.
char* write_millionths(char* p, std::uint64_t whole, std::uint64_t fraction) {
  p = write_integer(p, whole);
  *p++ = '.';
  // The pairs without dividing: fraction / 1e4 is the high half of fraction * ceil(2^32 / 1e4), and
  // each next pair the high half of the low half times 100 (exact for every fraction below 1e6: all
  // were checked).
  std::uint64_t scaled = fraction * 429497;
  std::uint64_t digits = digit_pair(scaled >> 32);
  scaled = (scaled & 0xFFFF'FFFF) * 100;
  digits |= digit_pair(scaled >> 32) << 16;
  scaled = (scaled & 0xFFFF'FFFF) * 100;
  digits |= digit_pair(scaled >> 32) << 32 | digit_pair(0) << 48;
  std::uint64_t values = digits ^ ('0' * byte_scan::kOnes);  // the digits' values, two zeros above
  if constexpr (std::endian::native == std::endian::big) digits = __builtin_bswap64(digits);
  std::memcpy(p, &digits, 8);
  // The zero bytes above the last digit that is not 0 (one is: the fraction is not 0) are the
  // trailing zeros and the two of padding.
  return p + 8 - std::countl_zero(values) / 8;
}

// `scaled` (|scaled| < 2^52) rounded half away from zero, as std::round rounds it (a libm call):
// the truncation lies within one of `scaled`, so the part it drops is exact.
inline std::int64_t round_half_away(double scaled) {
  auto truncated = static_cast<std::int64_t>(scaled);
  double dropped = scaled - static_cast<double>(truncated);
  return truncated + (dropped >= 0.5) - (dropped <= -0.5);
}

using json_writer_detail::kNumberRoom;
// The bytes of a key (with its comma and indentation) that JsonWriter::members copies whole.
constexpr std::size_t kKeyCopy = 64;

// The general path (what every faster one must write): rounded to 1e-6 to hide binary noise
// (55.514000000000003); epoch-scale values have no such digits.
char* write_json_number_general(char* p, double v) {
  if (!std::isfinite(v)) return std::copy_n("null", 4, p);
  double rounded = std::fabs(v) < 1e9 ? std::round(v * 1e6) / 1e6 : v;
  if (rounded == 0) rounded = 0;  // no "-0"
  if (std::fabs(rounded) < 9e15 && rounded == std::floor(rounded))
    return std::to_chars(p, p + 24, static_cast<std::int64_t>(rounded)).ptr;
  // fmt's "{}" (the shortest round trip), its format string parsed at compile time.
  return fmt::format_to(p, FMT_COMPILE("{}"), rounded);
}

// A double that is not an integer as write_json_number writes it, at `p`; the end. Nearly every
// one of a report (percentages, means) is a whole number of millionths from 1e-4 up, written by
// hand; the rest as the general path writes them.
char* write_json_fraction(char* p, double v) {
  if (std::fabs(v) < 1e9) {                              // false for a NaN
    std::int64_t millionths = round_half_away(v * 1e6);  // below 1e15 in magnitude
    std::uint64_t magnitude =
        millionths < 0 ? 0 - static_cast<std::uint64_t>(millionths) : static_cast<std::uint64_t>(millionths);
    std::uint64_t whole = magnitude / 1000000, fraction = magnitude - whole * 1000000;
    if (magnitude >= 100 && fraction != 0) {
      *p = '-';
      return write_millionths(p + (millionths < 0), whole, fraction);
    }
  }
  return write_json_number_general(p, v);
}

// A double as append_json_number writes it, at `p` (room for kNumberRoom bytes); the end.
inline char* write_json_number(char* p, double v) {
  // An integral value (most of a report: counts, ids, whole microseconds, most often one digit)
  // is its own rounding.
  if (std::fabs(v) < 9e15) {
    auto integral = static_cast<std::int64_t>(v);
    if (static_cast<double>(integral) == v) return write_integer(p, integral);
  } else if (std::isnan(v)) {  // a metric that does not apply (JsonWriter::members), or no number
    return std::copy_n("null", 4, p);
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
      case '<':
        out += '<';
        if (i + 1 < s.size() && s[i + 1] == '/') {
          out += "\\/";
          ++i;
        }
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

std::string format_json_number_general(double v) {
  char text[kNumberRoom];
  return std::string(text, write_json_number_general(text, v));
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
  json_writer_detail::copy_short(room(s.size()), s.data(), s.size());
  size_ += s.size();
}

namespace {

// A comma where due, a line break and `spaces` spaces at `p` (room for kBreakCopy + spaces bytes);
// the end. Up to kMostSpaces, one fixed-size copy cut to length.
char* write_break(char* p, bool comma, std::size_t spaces) {
  std::size_t skip = comma ? 0 : 1;
  if (spaces <= kMostSpaces) {
    std::memcpy(p, kCommaBreakAndSpaces.data() + skip, kBreakCopy);
    return p + 2 - skip + spaces;
  }
  p = std::copy_n(kCommaBreakAndSpaces.data() + skip, 2 - skip, p);
  return std::fill_n(p, spaces, ' ');
}

}  // namespace

char* JsonWriter::indented_item(std::size_t n) {
  std::size_t spaces = depth_ * static_cast<std::size_t>(indent_);
  char* p = room(n + kBreakCopy + spaces);
  Separator before = separator();
  return before == Separator::kBare ? p : write_break(p, before == Separator::kComma, spaces);
}

void JsonWriter::close_indented(char bracket) {
  std::size_t spaces = depth_ * static_cast<std::size_t>(indent_);
  char* p = write_break(room(kBreakCopy + spaces + 1), false, spaces);
  *p = bracket;
  written(p + 1);
}

// Out of line: the writer calls it once a piece, and the call site stays small.
[[gnu::noinline]] void JsonWriter::flush() {
  if (!sink_ || size_ == 0) return;
  sink_(std::string_view(buffer_.get(), size_));
  ++pieces_;
  size_ = 0;
}

char* JsonWriter::string(char* p, std::string_view s) {
  if (!written_as_is(s)) {
    written(p);
    escaped_.clear();
    append_json_string(escaped_, s);
    put(escaped_);
    return buffer_.get() + size_;
  }
  p[0] = '"';
  json_writer_detail::copy_short(p + 1, s.data(), s.size());
  p[s.size() + 1] = '"';
  return p + s.size() + 2;
}

std::optional<std::string_view> JsonWriter::since(Mark m) const {
  if (m.pieces != pieces_) return std::nullopt;
  return std::string_view(buffer_.get() + m.size, size_ - m.size);
}

JsonWriter& JsonWriter::json(std::string_view text) {
  char* p = item(text.size());
  json_writer_detail::copy_short(p, text.data(), text.size());
  written(p + text.size());
  return *this;
}

// A key known only when run (a table's name), escaped where it needs it.
JsonWriter& JsonWriter::key_escaped(std::string_view text) {
  written(string(item(text.size() + 2), text));
  std::memcpy(room(2), ": ", 2);
  size_ += indent_ != 0 ? 2 : 1;
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::members(JsonKeyRun& keys, std::span<const double> values) {
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
    // What the last key's whole-size copy reads past its end; its room in the buffer, below.
    keys.text_.append(kKeyCopy, ' ');
    keys.depth_ = depth_;
    keys.indent_ = indent_;
  }
  std::size_t n = std::min(values.size(), keys.ends_.size());
  char* start = room(keys.text_.size() + kNumberRoom * n);
  char* p = start;
  // Each key's text starts with its comma (and on one line the space after it), left out before the
  // object's first member. Nearly every one (indentation and all) is under kKeyCopy bytes, copied
  // as that many whatever its length (a few moves, no branch on the length) and cut to it.
  // The keys' text and ends in locals: a store through p may alias any member (JsonWriter::written).
  const char* text = keys.text_.data();
  const std::size_t* ends = keys.ends_.data();
  std::size_t from = first_ ? (indent_ == kOneLine ? 2 : 1) : 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t end = ends[i];
    if (end - from <= kKeyCopy)
      std::memcpy(p, text + from, kKeyCopy);
    else
      std::memcpy(p, text + from, end - from);
    p += end - from;
    from = end;
    p = write_json_number(p, values[i]);
  }
  if (n > 0) first_ = false;
  size_ += static_cast<std::size_t>(p - start);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  written(string(item(s.size() + 2), s));
  return *this;
}

char* JsonWriter::number(char* p, double v) {
  return write_json_number(p, v);
}

char* JsonWriter::integer(char* p, std::int64_t v) {
  return write_integer(p, v);
}

char* JsonWriter::integer(char* p, std::uint64_t v) {
  return write_integer(p, v);
}

}  // namespace perfgate
