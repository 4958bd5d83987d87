// The memory limit on one input while it is read (io/io.h, kDefaultMaxInputMemory).
#pragma once

#include <cstdint>
#include <string>

#include "common/errors.h"
#include "io/io.h"
#include "io/spill_arena.h"

namespace perfgate {

// An input past its memory limit. A reader that falls back to another way of reading on other
// errors (the Kineto reader's pieces) lets this one through: reading again would only repeat it.
class InputMemoryError : public InputError {
 public:
  InputMemoryError(const std::string& path, std::uint64_t limit)
      : InputError(input_memory_message(path, limit)) {}
};

// Throws InputMemoryError when `held` bytes pass `limit` (0: no limit). Blocks in the spill file
// (--max-memory) are disk, not memory: they do not count.
inline void check_input_memory(const std::string& path, std::uint64_t held, std::uint64_t limit) {
  if (limit != 0 && held > limit && held - limit > spill::stats().in_use) throw InputMemoryError(path, limit);
}

}  // namespace perfgate
