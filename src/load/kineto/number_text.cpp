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

}  // namespace

std::optional<std::int64_t> micros_text_to_nanos(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.find_first_of("eE") != std::string_view::npos) return via_long_double(text);
  bool negative = text.front() == '-';
  if (negative) text.remove_prefix(1);
  std::size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
  if (whole.empty()) return std::nullopt;

  // Whole microseconds up to kMax / 1000, so that times 1000 they fit; the fraction's nanoseconds
  // (and the rounding) are added with an overflow check: 9223372036854775.807 us is the last that fits.
  std::int64_t nanos = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    nanos = nanos * 10 + (c - '0');
    if (nanos > kMax / 1000) return std::nullopt;
  }
  nanos *= 1000;
  std::int64_t fraction = 0;
  std::int64_t scale = 100;
  for (std::size_t i = 0; i < frac.size(); ++i) {
    char c = frac[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (i < 3) {
      fraction += (c - '0') * scale;
      scale /= 10;
    } else if (i == 3) {
      if (c >= '5') fraction += 1;  // round half away from zero on the first sub-ns digit
    }
  }
  if (__builtin_add_overflow(nanos, fraction, &nanos)) return std::nullopt;
  return negative ? -nanos : nanos;
}

}  // namespace perfgate::kineto
