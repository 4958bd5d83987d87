#include "load/kineto/number_text.h"

#include <cmath>
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

}  // namespace

// One pass over the text (a nanosecond trace has two such times per event: 105,651 in
// v100_ns_resolution_rank0): digits, an optional fraction, and only where something else is met,
// a look for an exponent (read through long double) before giving up.
std::optional<std::int64_t> micros_text_to_nanos(std::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  auto digit = [](char c) { return static_cast<unsigned>(c - '0') < 10u; };
  auto other = [&]() -> std::optional<std::int64_t> {
    return has_exponent(text) ? via_long_double(text) : std::nullopt;
  };
  bool negative = p != end && *p == '-';
  if (negative) ++p;
  if (p == end || !digit(*p)) return other();
  // Whole microseconds up to kMax / 1000, so that times 1000 they fit; the fraction's nanoseconds
  // (and the rounding) are added with an overflow check: 9223372036854775.807 us is the last that fits.
  std::int64_t nanos = 0;
  for (; p != end && digit(*p); ++p) {
    nanos = nanos * 10 + (*p - '0');
    if (nanos > kMax / 1000) return other();
  }
  nanos *= 1000;
  std::int64_t fraction = 0;
  if (p != end) {
    if (*p != '.') return other();
    ++p;
    std::int64_t scale = 100;
    for (int i = 0; p != end; ++p, ++i) {
      if (!digit(*p)) return other();
      if (i < 3) {
        fraction += (*p - '0') * scale;
        scale /= 10;
      } else if (i == 3 && *p >= '5') {
        fraction += 1;  // round half away from zero on the first sub-ns digit
      }
    }
  }
  if (__builtin_add_overflow(nanos, fraction, &nanos)) return std::nullopt;
  return negative ? -nanos : nanos;
}

}  // namespace perfgate::kineto
