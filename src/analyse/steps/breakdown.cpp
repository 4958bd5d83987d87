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

Breakdown window_breakdown(StepDetection& detection, const Window& window,
                           const ActivityIntervals& intervals) {
  if (window.steps.empty()) return step_breakdown({window.start, window.end}, intervals);
  Breakdown sum{};
  for (std::size_t index : window.steps) {
    Step& s = detection.steps[index];
    s.breakdown = step_breakdown({s.start, s.end}, intervals);
    for (std::size_t i = 0; i < kBreakdownParts; ++i) sum[i] += s.breakdown[i];
  }
  Breakdown mean{};
  for (std::size_t i = 0; i < kBreakdownParts; ++i)
    mean[i] = sum[i] / static_cast<TimeNs>(window.steps.size());
  return mean;
}

}  // namespace perfgate
