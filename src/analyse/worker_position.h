// A worker's place in its run, by which the run orders its workers whatever order they come in.
#pragma once

#include <cstddef>

namespace perfgate {

// Its input, then its order within the input (processes of an export).
struct WorkerPosition {
  std::size_t input = 0;
  std::size_t index = 0;
  auto operator<=>(const WorkerPosition&) const = default;
};

}  // namespace perfgate
