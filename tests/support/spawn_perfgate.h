// Starting the perfgate binary without a shell, for tests that watch the process while it runs.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace perfgate::testing {

// Starts perfgate with `args` (no shell), its output to /dev/null; its process id, or -1. The
// caller waits for it (to read its resource use, or to sample its memory while it runs).
pid_t spawn_perfgate_quietly(const std::vector<std::string>& args);

}  // namespace perfgate::testing
