#include "gate/run_context.h"

#include <algorithm>

namespace perfgate {
namespace {

// A GPU's vendor from what its reader and the analysis named: the XPlane reader names a TPU
// "TPU ..." (its device_type_string); the rules (gpu_architectures) name AMD architectures by
// their ISA (gfx942) and the analysis an unlisted AMD family by its major.minor (gfx90x); any
// other described GPU (an architecture or a compute capability) is NVIDIA's.
std::optional<std::string_view> vendor_of(const ReportGpu& g) {
  if (g.name.starts_with("TPU")) return "tpu";
  if (g.architecture.starts_with("gfx")) return "amd";
  if (!g.architecture.empty() || !g.compute_capability.empty()) return "nvidia";
  return std::nullopt;
}

Workload workload_of(const ReportModel& report) {
  std::optional<double> backward = report.metric(Metric::OpsBackwardPct);
  if (backward && *backward > 0) return Workload::Training;
  double serving = 0;
  for (Metric m : {Metric::ServingDecodePct, Metric::ServingPrefillPct, Metric::ServingMixedPct})
    serving += report.metric(m).value_or(0);
  if (serving > 0 || backward) return Workload::Inference;
  return Workload::Unknown;
}

}  // namespace

std::optional<Workload> workload_named(std::string_view name) {
  if (name == kWorkloadNames[0]) return Workload::Training;
  if (name == kWorkloadNames[1]) return Workload::Inference;
  return std::nullopt;
}

RunContext run_context(const ReportModel& report) {
  std::array<bool, kVendorNames.size()> seen{};
  auto mark = [&](std::string_view vendor) {
    auto it = std::find(kVendorNames.begin(), kVendorNames.end(), vendor);
    seen[static_cast<std::size_t>(it - kVendorNames.begin())] = true;
  };
  for (const ReportGpu& g : report.gpus)
    if (std::optional<std::string_view> vendor = vendor_of(g)) mark(*vendor);
  if (report.families.has(DeviceFamily::Neuron)) mark("neuron");
  RunContext context;
  for (std::size_t i = 0; i < kVendorNames.size(); ++i)
    if (seen[i]) context.vendors.push_back(kVendorNames[i]);
  context.workload = workload_of(report);
  return context;
}

bool vendors_are(const RunContext& context, const std::vector<std::string>& vendors) {
  if (vendors.empty()) return true;
  if (context.vendors.empty()) return false;
  return std::all_of(context.vendors.begin(), context.vendors.end(), [&](std::string_view v) {
    return std::find(vendors.begin(), vendors.end(), v) != vendors.end();
  });
}

}  // namespace perfgate
