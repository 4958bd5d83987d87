// The metrics of a Neuron device profile (docs/metrics.md, "Neuron"): the Neuron Device Viewer's
// summary numbers in perfgate's units (percentages 0-100, microseconds), and what the instruction
// rows give where the summary lacks them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analyse/neuron/neuron_results.h"
#include "common/metrics.h"
#include "model/profile.h"

namespace perfgate {

// How a run of several profiles combines a metric: the slowest profile's total time, the mean of
// the shares, the sum of counts and bytes, the worst throttling.
enum class NeuronCombine : std::uint8_t { Max, Min, Mean, Sum };
struct NeuronMetricInfo {
  Metric metric;
  NeuronCombine combine;
};
const NeuronMetricInfo& neuron_metric_info(NeuronMetric metric);

// Whether the profile's warning is of category Missing Data (any case).
bool neuron_missing_data(const NeuronWarning& warning);

// The capture's length in nanoseconds: the summary's total_time, else the span of the rows.
TimeNs neuron_total_time(const Profile& profile);

NeuronSums neuron_sums(const Profile& profile, const NeuronTables& tables);

// The compiled program (NEFF) a full Neuron profile ran, by what its summary states of it: the
// model FLOPs and each engine's instruction count, which one NEFF's executions share (a static
// program) and another NEFF's differ in ("model_flops 4294967296, tensor 4096, vector 512, ...
// instructions"); empty for summary-json and where the summary states none of them.
std::string neuron_program(const Profile& profile);
// Sets the neuron.* metrics of `sums` (nothing when it holds no Neuron profile).
void set_neuron_metrics(MetricValues& m, const NeuronSums& sums);

}  // namespace perfgate
