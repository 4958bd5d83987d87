// --max-memory and --spill-dir: the budget of anonymous memory a run may hold, past which large
// blocks go to a temporary file (io/spill_arena.h, docs/performance.md).
#pragma once

#include <cstdint>
#include <string>

namespace perfgate {

struct MemoryBudgetArgs {
  std::string max_memory;  // --max-memory; empty: PERFGATE_MAX_MEMORY, else half the memory limit
  std::string spill_dir;   // --spill-dir; empty: PERFGATE_SPILL_DIR, TMPDIR, else /var/tmp
};

struct MemoryBudget {
  std::uint64_t bytes = 0;  // 0: no budget
  std::string folder;
};

// The budget the arguments and the environment set; ConfigError for a malformed size or a
// --spill-dir that is not a writable folder.
MemoryBudget memory_budget(const MemoryBudgetArgs& a);
// Sets the process's budget (before any work).
void apply_memory_budget(const MemoryBudgetArgs& a);
// What the run spilled, for stderr (empty text when nothing): how much and where, or why memory
// was not bounded. `warning`: it says something went wrong (printed even with -q).
struct SpillSummary {
  std::string text;
  bool warning = false;
};
SpillSummary spill_summary();

}  // namespace perfgate
