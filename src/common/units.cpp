#include "common/units.h"

#include <cmath>

#include <fmt/format.h>

#include "common/fixed_text.h"

namespace perfgate {

namespace {

// `v` as fmt's "{:.<decimals>f}" writes it (write_fixed: the same digits in a fraction of fmt's
// instructions; a timeline's tooltips format two each), then `unit`.
std::string fixed_with_unit(double v, int decimals, std::string_view unit) {
  char digits[kFixedTextMax];
  std::string out(digits, write_fixed(digits, v, decimals));
  out += unit;
  return out;
}

}  // namespace

std::string format_duration_us(std::optional<double> us) {
  if (!us) return "n/a";
  double v = *us;
  if (std::fabs(v) >= 1e6) return fixed_with_unit(v / 1e6, 3, " s");
  if (std::fabs(v) >= 1e3) return fixed_with_unit(v / 1e3, 2, " ms");
  return fixed_with_unit(v, 1, " us");
}

std::string format_pct(std::optional<double> pct) {
  if (!pct) return "n/a";
  return fmt::format("{:.1f}%", *pct);
}

std::string format_pct_nonzero(std::optional<double> pct) {
  if (pct && *pct > 0 && *pct < 0.05) return fmt::format("{:.2g}%", *pct);
  return format_pct(pct);
}

std::string format_bytes(std::uint64_t bytes) {
  auto b = static_cast<double>(bytes);
  if (b >= 1e9) return fmt::format("{:.1f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
  return fmt::format("{} B", bytes);
}

std::string format_number(std::optional<double> v, int decimals) {
  if (!v) return "n/a";
  return fmt::format("{:.{}f}", *v, decimals);
}

std::string format_value(std::optional<double> v, std::string_view unit) {
  if (!v) return "n/a";
  double x = *v;
  if (unit == "us") return format_duration_us(x);
  if (unit == "%") return format_pct(x);
  if (unit == "bytes")
    return x < 0 ? "-" + format_bytes(static_cast<std::uint64_t>(-x))
                 : format_bytes(static_cast<std::uint64_t>(x));
  if (unit == "count")
    return std::fabs(x - std::round(x)) < 1e-9 ? fmt::format("{:.0f}", x) : fmt::format("{:.2f}", x);
  if (unit == "ratio") return fmt::format("{:.2f}x", x);
  if (unit == "GB/s") return fmt::format("{:.1f} GB/s", x);
  if (unit == "flop") return fmt::format("{:.3g} FLOP", x);
  if (unit == "TFLOP/s") return fmt::format("{:.3g} TFLOP/s", x);
  if (unit == "version") return fmt::format("{:.1f}", x);
  return fmt::format("{:.4g}", x);
}

std::optional<std::int64_t> trace_time_ns(double us) {
  if (!std::isfinite(us) || std::fabs(us) > kMaxTraceTimeUs) return std::nullopt;
  return std::llround(us * 1000.0);
}

}  // namespace perfgate
