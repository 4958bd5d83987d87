#include "load/kineto/number_text.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace perfgate::kineto {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// Slow path for exponent notation: long double holds 64 mantissa bits, enough for µs→ns.
std::optional<std::int64_t> via_long_double(std::string_view text) {
  std::string copy(text);
  char* end = nullptr;
  long double micros = std::strtold(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(micros)) return std::nullopt;
  long double nanos = std::round(micros * 1000.0L);
  if (std::fabs(nanos) >= 9.2e18L) return std::nullopt;
  return static_cast<std::int64_t>(nanos);
}

bool has_exponent(std::string_view text) {
  for (char c : text)
    if (c == 'e' || c == 'E') return true;
  return false;
}

// A text that is not digits with an optional fraction: one with an exponent, else none. Out of
// line, so that the common path keeps no frame for it.
[[gnu::noinline]] std::optional<std::int64_t> other_notation(std::string_view text) {
  return has_exponent(text) ? via_long_double(text) : std::nullopt;
}

// Eight ASCII digits at p as their value; false where any byte is not a digit. Little-endian words
// (the bytes' order in a word is the text's): the SWAR of fast_float's parse_eight_digits_unrolled.
bool eight_digits(const char* p, std::uint64_t& value) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  if (((word + 0x4646464646464646ULL) | (word - 0x3030303030303030ULL)) & 0x8080808080808080ULL) return false;
  word = ((word & 0x0F0F0F0F0F0F0F0FULL) * 2561) >> 8;
  word = ((word & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
  value = ((word & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
  return true;
}

}  // namespace

// One pass over the text (a nanosecond trace has two such times per event: 105,651 in
// v100_ns_resolution_rank0): digits, eight at a time while eight remain (an epoch time in
// microseconds has 16), an optional fraction, and only where something else is met, a look for an
// exponent (read through long double) before giving up.
std::optional<std::int64_t> micros_text_to_nanos(std::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  auto digit = [](char c) { return static_cast<unsigned>(c - '0') < 10u; };
  auto other = [&] { return other_notation(text); };
  bool negative = p != end && *p == '-';
  if (negative) ++p;
  if (p == end || !digit(*p)) return other();
  // Whole microseconds up to kMax / 1000, so that times 1000 they fit; the fraction's nanoseconds
  // (and the rounding) are added with an overflow check: 9223372036854775.807 us is the last that fits.
  // A value only grows as digits are added, so checking after eight of them refuses what checking
  // after each would; below kEightMore, eight more cannot overflow.
  constexpr std::int64_t kEightMore = kMax / 100000000 - 1;
  std::int64_t nanos = 0;
  std::uint64_t eight = 0;
  if constexpr (std::endian::native == std::endian::little) {
    while (end - p >= 8 && nanos <= kEightMore && eight_digits(p, eight)) {
      nanos = nanos * 100000000 + static_cast<std::int64_t>(eight);
      if (nanos > kMax / 1000) return other();
      p += 8;
    }
  }
  for (; p != end && digit(*p); ++p) {
    nanos = nanos * 10 + (*p - '0');
    if (nanos > kMax / 1000) return other();
  }
  nanos *= 1000;
  std::int64_t fraction = 0;
  if (p != end) {
    if (*p != '.') return other();
    ++p;
    // Three digits of nanoseconds, then digits that only round: half away from zero on the first.
    static constexpr std::int64_t kScale[3] = {100, 10, 1};
    const char* nanos_end = end - p > 3 ? p + 3 : end;
    for (int i = 0; p != nanos_end; ++p, ++i) {
      if (!digit(*p)) return other();
      fraction += (*p - '0') * kScale[i];
    }
    if (p != end && digit(*p) && *p >= '5') fraction += 1;
    for (; p != end; ++p)
      if (!digit(*p)) return other();
  }
  if (__builtin_add_overflow(nanos, fraction, &nanos)) return std::nullopt;
  return negative ? -nanos : nanos;
}

}  // namespace perfgate::kineto
