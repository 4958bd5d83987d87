#include "render/colors.h"

#include <cstdlib>

namespace perfgate {

std::optional<unsigned> breakdown_color(std::string_view part) {
  for (std::size_t i = 0; i < kBreakdownParts; ++i)
    if (part == kBreakdownPartNames[i])
      return static_cast<unsigned>(std::strtoul(kBreakdownColors[i] + 1, nullptr, 16));
  return std::nullopt;
}

}  // namespace perfgate
