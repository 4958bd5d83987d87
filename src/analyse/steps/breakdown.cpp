#include "analyse/steps/breakdown.h"

namespace perfgate {

Breakdown step_breakdown(Interval step, const ActivityIntervals& in) {
  std::vector<TimeNs> parts = exclusive_split(step, {{&in.compute_kernels},
                                                     {&in.memcpy},
                                                     {&in.memset},
                                                     in.communication(),
                                                     {&in.runtime},
                                                     {&in.dataloader},
                                                     {&in.cpu_ops}});
  Breakdown b{};
  for (std::size_t i = 0; i < kBreakdownParts; ++i) b[i] = parts[i];
  return b;
}

Breakdown window_breakdown(StepDetection& detection, const Window& window, const ActivityIntervals& intervals,
                           const std::vector<Interval>& gpu_steps) {
  if (window.steps.empty())
    return step_breakdown(gpu_steps.empty() ? Interval{window.start, window.end} : gpu_steps.front(),
                          intervals);
  Breakdown sum{};
  for (std::size_t k = 0; k < window.steps.size(); ++k) {
    Step& s = detection.steps[window.steps[k]];
    s.breakdown = step_breakdown(gpu_steps.empty() ? Interval{s.start, s.end} : gpu_steps[k], intervals);
    for (std::size_t i = 0; i < kBreakdownParts; ++i) sum[i] += s.breakdown[i];
  }
  Breakdown mean{};
  for (std::size_t i = 0; i < kBreakdownParts; ++i)
    mean[i] = sum[i] / static_cast<TimeNs>(window.steps.size());
  return mean;
}

}  // namespace perfgate
