#include "render/format.h"

namespace perfgate {

std::optional<double> metric_value(const std::vector<ReportMetric>& metrics, std::string_view name) {
  for (const auto& m : metrics)
    if (m.name == name) return m.value;
  return std::nullopt;
}

std::string gpu_architecture_text(const ReportGpu& g) {
  std::vector<std::string> parts;
  if (!g.architecture.empty()) parts.push_back(g.architecture);
  bool amd = g.architecture.starts_with("gfx");
  if (!amd && !g.compute_capability.empty()) parts.push_back("sm " + g.compute_capability);
  if (g.architecture_inferred) parts.push_back("inferred from kernel names");
  if (parts.empty()) return "";
  std::string text = " (" + parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) text += ", " + parts[i];
  return text + ")";
}

}  // namespace perfgate
