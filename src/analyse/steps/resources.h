// DLProf's resource split of the window: Tensor Core kernels > other kernels > memory operations
// > CPU (ops, annotations, runtime calls) > other (nothing recorded), exclusive, summed over steps.
#pragma once

#include "analyse/activity_intervals.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

ResourceSplit resource_split(const StepDetection& detection, const Window& window,
                             const ActivityIntervals& intervals);

}  // namespace perfgate
