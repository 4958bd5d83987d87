// What a run is, as its advice needs to know (issue 72, item 10), read from its capture profile
// (common/capture_profile.h): the vendors of its devices and whether it trains or serves. A
// `recommendations` entry of a rule may name them (`vendors:`, `workload:`; docs/rules.md) and then
// applies only to such a run.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

// The capture profile's workload (ReportModel::capture, decided by the analysis or given by a rule
// file's `capture:` and --workload): Training as it is; Inference for serving and offline
// inference; Unknown where the profile cannot say, and for a micro-benchmark.
enum class Workload : std::uint8_t { Unknown, Training, Inference };
inline constexpr std::array<std::string_view, 2> kWorkloadNames = {"training", "inference"};
std::optional<Workload> workload_named(std::string_view name);

inline constexpr std::array<std::string_view, 4> kVendorNames = {"nvidia", "amd", "tpu", "neuron"};

struct RunContext {
  std::vector<std::string_view> vendors;  // of kVendorNames, each once, in that order
  Workload workload = Workload::Unknown;
};

RunContext run_context(const ReportModel& report);

// Whether every device vendor of the run is one of `vendors` (an empty list: any run; a run with no
// known vendor matches no list).
bool vendors_are(const RunContext& context, const std::vector<std::string>& vendors);

}  // namespace perfgate
