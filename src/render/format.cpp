#include "render/format.h"

#include <cmath>

#include <fmt/format.h>

namespace perfgate {

std::string format_duration_us(std::optional<double> us) {
  if (!us) return "n/a";
  double v = *us;
  if (std::fabs(v) >= 1e6) return fmt::format("{:.3f} s", v / 1e6);
  if (std::fabs(v) >= 1e3) return fmt::format("{:.2f} ms", v / 1e3);
  return fmt::format("{:.1f} us", v);
}

std::string format_pct(std::optional<double> pct) {
  if (!pct) return "n/a";
  return fmt::format("{:.1f}%", *pct);
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

std::optional<double> metric_value(const std::vector<ReportMetric>& metrics, std::string_view name) {
  for (const auto& m : metrics)
    if (m.name == name) return m.value;
  return std::nullopt;
}

}  // namespace perfgate
