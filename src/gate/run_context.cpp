#include "gate/run_context.h"

#include <algorithm>

namespace perfgate {
namespace {

// The profile's workload in the words of `workload:`: serving and offline inference are inference.
Workload workload_of(const CaptureProfile& capture) {
  switch (capture.workload) {
    case CaptureWorkload::Training:
      return Workload::Training;
    case CaptureWorkload::Serving:
    case CaptureWorkload::OfflineInference:
      return Workload::Inference;
    case CaptureWorkload::MicroBenchmark:
    case CaptureWorkload::Unknown:
      break;
  }
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
  for (const CaptureDevices& d : report.capture.devices) {
    auto it = std::find(kVendorNames.begin(), kVendorNames.end(), device_vendor_name(d.vendor));
    if (it != kVendorNames.end()) seen[static_cast<std::size_t>(it - kVendorNames.begin())] = true;
  }
  RunContext context;
  for (std::size_t i = 0; i < kVendorNames.size(); ++i)
    if (seen[i]) context.vendors.push_back(kVendorNames[i]);
  context.workload = workload_of(report.capture);
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
