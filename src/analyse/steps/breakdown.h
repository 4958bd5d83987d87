// The TensorBoard plugin's step-time breakdown: per window step, an exclusive split in priority
// order kernel > memcpy > memset > communication > runtime > data loader > CPU exec; other is
// the rest, so the parts sum to the step. The mean is over window steps.
#pragma once

#include <vector>

#include "analyse/activity_intervals.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

Breakdown step_breakdown(Interval step, const ActivityIntervals& intervals);
// Fills Step::breakdown for window steps and returns their mean; for a profile without steps,
// the breakdown of the whole-trace window. `gpu_steps` (one per window step, or one without steps:
// steps_on_gpu_clock, window.h), where not empty, are the spans split in place of the steps'.
Breakdown window_breakdown(StepDetection& detection, const Window& window, const ActivityIntervals& intervals,
                           const std::vector<Interval>& gpu_steps = {});

}  // namespace perfgate
