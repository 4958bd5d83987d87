#include "render/cell_format.h"

#include <cmath>

#include <fmt/format.h>

#include "perfgate/units.h"

namespace perfgate {

std::string cell_text(const ReportCell& cell, std::string_view unit) {
  if (std::holds_alternative<std::monostate>(cell)) return "–";
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* b = std::get_if<bool>(&cell)) return *b ? "yes" : "no";
  double v = *cell_number(cell);
  if (unit == "us" || unit == "%") return fmt::format("{:.1f}", v);
  if (unit == "count")
    return std::fabs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
  return format_value(v, unit);
}

std::string_view utf8_prefix(std::string_view s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

std::string shorten(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  return std::string(utf8_prefix(s, n - 3)) + "…";
}

}  // namespace perfgate
