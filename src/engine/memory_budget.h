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
  std::string folder;       // of the spill file
  bool stated = false;      // by --max-memory or PERFGATE_MAX_MEMORY, not the default
};

// The budget the arguments and the environment set, for the request's limits (RunLimits::memory);
// ConfigError for a malformed size or a --spill-dir that is not a writable folder.
MemoryBudget memory_budget(const MemoryBudgetArgs& a);
// Installs a request's budget for the process, before any work: the allocator hook's (operator new,
// cli/spill_new.cpp, asks the spill file for large blocks), the only reader that cannot be handed it
// as a value, with the resident guard and the hold and look of a run's workers
// (analyse/run/worker_hold.h). Once a process: not thread-safe against allocations in flight.
void apply_memory_budget(const MemoryBudget& budget);
// What the run spilled under `budget` (the one applied), for stderr (empty text when nothing): how
// much and where, or why memory was not bounded. `warning`: it says something went wrong (printed
// even with -q).
struct SpillSummary {
  std::string text;
  bool warning = false;
};
SpillSummary spill_summary(const MemoryBudget& budget);
// A stated budget that spilling can no longer keep (the spill file cannot be mapped, or holds no
// more in the address space left under ulimit -v) stops the run: OutputError (exit 3) saying why,
// rather than going on unbounded. Under the default budget the run goes on, and spill_summary warns.
void stop_if_unbounded(const MemoryBudget& budget);

}  // namespace perfgate
