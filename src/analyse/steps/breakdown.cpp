#include "analyse/steps/breakdown.h"

namespace perfgate {

namespace {

// The breakdown's layers, in its priority order.
std::array<Layer, 7> breakdown_layers(const ActivityIntervals& in) {
  return {Layer{&in.compute_kernels}, Layer{&in.memcpy},     Layer{&in.memset}, in.communication(),
          Layer{&in.runtime},         Layer{&in.dataloader}, Layer{&in.cpu_ops}};
}

Breakdown breakdown_of(ExclusiveSplitter& splitter, Interval step) {
  std::span<const TimeNs> parts = splitter.split(step);
  Breakdown b{};
  for (std::size_t i = 0; i < kBreakdownParts; ++i) b[i] = parts[i];
  return b;
}

}  // namespace

Breakdown step_breakdown(Interval step, const ActivityIntervals& in) {
  ExclusiveSplitter splitter(breakdown_layers(in));
  return breakdown_of(splitter, step);
}

Breakdown window_breakdown(StepDetection& detection, const Window& window, const ActivityIntervals& intervals,
                           const std::vector<Interval>& gpu_steps) {
  ExclusiveSplitter splitter(breakdown_layers(intervals));  // the steps in time order: one sweep
  if (window.steps.empty())
    return breakdown_of(splitter, gpu_steps.empty() ? Interval{window.start, window.end} : gpu_steps.front());
  Breakdown sum{};
  for (std::size_t k = 0; k < window.steps.size(); ++k) {
    Step& s = detection.steps[window.steps[k]];
    s.breakdown = breakdown_of(splitter, gpu_steps.empty() ? Interval{s.start, s.end} : gpu_steps[k]);
    for (std::size_t i = 0; i < kBreakdownParts; ++i) sum[i] += s.breakdown[i];
  }
  Breakdown mean{};
  for (std::size_t i = 0; i < kBreakdownParts; ++i)
    mean[i] = sum[i] / static_cast<TimeNs>(window.steps.size());
  return mean;
}

}  // namespace perfgate
