// DLProf's iterations view: per window step, its kernels, Tensor Core kernels, GPU time and
// breakdown.
#pragma once

#include "analyse/activity_intervals.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

std::vector<IterationRow> iteration_rows(const Profile& profile, NameClasses& classes,
                                         const StepDetection& steps, const Window& window,
                                         const ActivityIntervals& intervals);

}  // namespace perfgate
