#include "analyse/steps/resources.h"

namespace perfgate {

ResourceSplit resource_split(const std::vector<Interval>& spans, const ActivityIntervals& in) {
  ResourceSplit total{};
  ExclusiveSplitter splitter({{&in.tensor_core_kernels}, in.all_kernels(), in.memory(), in.host()});
  for (Interval span : spans) {
    const std::vector<TimeNs>& parts = splitter.split(span);
    for (std::size_t i = 0; i < kResourceParts; ++i) total[i] += parts[i];
  }
  return total;
}

}  // namespace perfgate
