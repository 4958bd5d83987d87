#include "common/fixed_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace perfgate {
namespace {

constexpr double kScale[] = {1, 10, 100, 1000};
// Within this of halfway between two last digits, the rounding is left to std::to_chars: the
// remainder below is off the exact one by under 1e-15, so everywhere else it rounds right.
constexpr double kTieMargin = 1e-6;

// The digits of v·10^decimals rounded to an integer, when one multiply decides them: |v| under
// 1e12 (so that v·10^decimals is exact as an integer) and not near a tie.
bool scaled_digits(double v, int decimals, std::uint64_t& digits) {
  if (decimals < 0 || decimals > 3 || !(std::fabs(v) < 1e12)) return false;  // NaN fails too
  double whole = std::nearbyint(v * kScale[decimals]);  // the product rounded: may be one off
  double rest = std::fma(v, kScale[decimals], -whole);  // v·10^decimals − whole, rounded once
  if (std::fabs(std::fabs(rest) - 0.5) < kTieMargin) return false;
  if (rest > 0.5) whole += 1;  // the rounded product crossed a halfway point
  if (rest < -0.5) whole -= 1;
  digits = static_cast<std::uint64_t>(std::fabs(whole));
  return true;
}

}  // namespace

char* write_fixed(char* first, double v, int decimals) {
  std::uint64_t digits = 0;
  if (!scaled_digits(v, decimals, digits))
    return std::to_chars(first, first + kFixedTextMax, v, std::chars_format::fixed, decimals).ptr;
  char* out = first;
  if (std::signbit(v)) *out++ = '-';  // as printf: "-0.0" for -0.04 and for -0.0
  char text[24];
  auto n = static_cast<int>(std::to_chars(text, text + sizeof text, digits).ptr - text);
  int whole_digits = n > decimals ? n - decimals : 0;
  out = whole_digits > 0 ? std::copy(text, text + whole_digits, out) : (*out = '0', out + 1);
  if (decimals == 0) return out;
  *out++ = '.';
  for (int zeros = decimals - (n - whole_digits); zeros > 0; --zeros) *out++ = '0';
  return std::copy(text + whole_digits, text + n, out);
}

}  // namespace perfgate
