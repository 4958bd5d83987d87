// Host-side costs (runtime share, synchronising calls) and GPU activity statistics (kernel
// counts and lengths, launch gaps, copies by direction) over the window.
#pragma once

#include "analyse/activity_intervals.h"
#include "analyse/ops/op_results.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

inline constexpr TimeNs kShortKernelNs = 10'000;

// A GPU's host link (rules: gpu_peaks host_link): what its host-device copies cross, GB/s each way.
struct DeviceHostLink {
  std::int32_t device = 0;
  double gbps = 0;
};

// `gpu_steps`, where not empty (a clock offset: steps_on_gpu_clock, window.h), are the step time the
// host's shares are of; the host's calls are still those of the window's steps on the host.
HostActivitySums host_activity(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                               const StepDetection& steps, const Window& window,
                               const ActivityIntervals& intervals,
                               const std::vector<Interval>& gpu_steps = {}, const IntervalList& one_offs = {},
                               const std::vector<DeviceHostLink>& links = {});

// The step spans of the window (the whole window when there are no steps).
std::vector<Interval> window_spans(const StepDetection& steps, const Window& window);

}  // namespace perfgate
