// The work inside each inferred unit (issue 95): where a worker marks no steps but repeats a unit,
// the per-unit change tables against a baseline sum the units both runs have, not each window's
// totals over its units (which spread the work outside the units, other blocks in the window, over
// them). A unit is one thread's repeated range, from one opening to the next (inferred.h); its work
// is what that thread did between them, as the window's tables count it:
//   ops      the ops the thread called in the unit: their GPU self time (the kernels their own
//            runtime calls launched) and host self time (minus the ranges directly inside and their
//            runtime calls), as the op tables' device_self_us and host_self_us;
//   regions  the annotations the thread opened in the unit: their host time and the GPU time of
//            what they launched, as the regions table's cpu_total_us and gpu_us;
//   kernels  the kernels launched by the thread's runtime calls in the unit, their whole times;
//   GPU idle the unit's span less each GPU's busy time in it (the union of its kernels, copies and
//            sets), summed over the worker's GPUs.
// A unit that starts outside the window's host span counts nothing (UnitWork::counted false).
#pragma once

#include "analyse/attribution.h"
#include "analyse/ops/op_stats.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// The work of each unit of `inferred`, the worker's inferred iterations, in its units' order.
std::vector<UnitWork> unit_work(const Profile& profile, const Attribution& attribution, const OpStats& stats,
                                const std::vector<std::uint32_t>& step_markers, const Window& window,
                                const InferredIterations& inferred);

}  // namespace perfgate
