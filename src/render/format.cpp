#include "render/format.h"

namespace perfgate {

std::optional<double> metric_value(const std::vector<ReportMetric>& metrics, std::string_view name) {
  for (const auto& m : metrics)
    if (m.name == name) return m.value;
  return std::nullopt;
}

}  // namespace perfgate
