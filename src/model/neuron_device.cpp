#include "model/profile.h"

namespace perfgate {

std::optional<double> NeuronDevice::summary_value(std::string_view name) const {
  for (const auto& [key, value] : summary)
    if (key == name) return value;
  return std::nullopt;
}

}  // namespace perfgate
