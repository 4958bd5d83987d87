#include "knowledge/classification.h"

namespace perfgate {

std::optional<double> GpuPeak::peak(std::string_view precision) const {
  for (const auto& [p, v] : tflops)
    if (p == precision) return v;
  return std::nullopt;
}

}  // namespace perfgate
