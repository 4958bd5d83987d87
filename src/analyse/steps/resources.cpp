#include "analyse/steps/resources.h"

namespace perfgate {

ResourceSplit resource_split(const StepDetection& detection, const Window& window,
                             const ActivityIntervals& in) {
  std::vector<Interval> spans;
  if (window.steps.empty()) {
    spans.push_back({window.start, window.end});
  } else {
    for (std::size_t index : window.steps)
      spans.push_back({detection.steps[index].start, detection.steps[index].end});
  }
  ResourceSplit total{};
  for (Interval span : spans) {
    std::vector<TimeNs> parts =
        exclusive_split(span, {{&in.tensor_core_kernels}, in.all_kernels(), in.memory(), in.host()});
    for (std::size_t i = 0; i < kResourceParts; ++i) total[i] += parts[i];
  }
  return total;
}

}  // namespace perfgate
