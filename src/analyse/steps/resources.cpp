#include "analyse/steps/resources.h"

namespace perfgate {

ResourceSplit resource_split(const std::vector<Interval>& spans, const ActivityIntervals& in) {
  ResourceSplit total{};
  const std::array<Layer, 4> layers = {Layer{&in.tensor_core_kernels}, in.all_kernels(), in.memory(),
                                       in.host()};
  ExclusiveSplitter splitter(layers);
  for (Interval span : spans) {
    std::span<const TimeNs> parts = splitter.split(span);
    for (std::size_t i = 0; i < kResourceParts; ++i) total[i] += parts[i];
  }
  return total;
}

}  // namespace perfgate
