// DLProf's resource split of the window: Tensor Core kernels > other kernels > memory operations
// > CPU (ops, annotations, runtime calls) > other (nothing recorded), exclusive, summed over steps.
#pragma once

#include <vector>

#include "analyse/activity_intervals.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// `spans`: the window's steps (window_spans, host_activity.h), or under a clock offset the steps on
// the GPUs' clock (steps_on_gpu_clock, window.h).
ResourceSplit resource_split(const std::vector<Interval>& spans, const ActivityIntervals& intervals);

}  // namespace perfgate
