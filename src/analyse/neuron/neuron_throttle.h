// Throttling of a NeuronCore as neuron-profile defines it (docs/metrics.md, "Neuron"): each source
// <k> applies a utilization limit (throttle_<k>_avg_util_limit_<core>_percent) during a share of the
// time (throttle_<k>_active_time_<core>_percent); throttle_active_<core>_time_ns is the time under
// any limit. throttle_avg_util_limit_<core>_percent is not a limit: it is the sum over sources of
// limit x active share, a time-weighted product, and perfgate does not read it as one.
#pragma once

#include <optional>
#include <vector>

#include "analyse/neuron/neuron_results.h"
#include "model/profile.h"

namespace perfgate {

// One row per source and core, in the summary's order.
std::vector<NeuronThrottleRow> neuron_throttle_rows(const NeuronDevice& n);

// The share of `total` (ns) under any limit, in %: the highest throttle_active_<core>_time_ns over
// the cores; without it, the highest source's active share (a lower bound). Empty when the summary
// has neither.
std::optional<double> neuron_throttled_pct(const NeuronDevice& n, const std::vector<NeuronThrottleRow>& rows,
                                           TimeNs total);

// The lowest limit a source applied for some of the time, in %, capped at 100 (a limit above 100%
// limits nothing). Empty when no source was active, or when no time was spent under any limit
// (`throttled_pct`, neuron_throttled_pct's, is 0 or unknown): a limit that held nothing is no fact
// about the run (issue 54: "Throttled time 0.0% · Throttle limit 87.5%").
std::optional<double> neuron_throttle_limit_pct(const std::vector<NeuronThrottleRow>& rows,
                                                std::optional<double> throttled_pct);

}  // namespace perfgate
