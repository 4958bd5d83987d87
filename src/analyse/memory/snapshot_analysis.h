// A PyTorch memory snapshot (perfgate/memory_snapshot.h) analysed: per device, the peak allocated
// over the recorded window, replayed forwards from the live blocks entering the trace; what is live
// at the peak by allocation site (adding up to the peak); fragmentation at the end; and each
// out-of-memory error with the totals then (docs/metrics.md, "Memory snapshots").
#pragma once

#include "perfgate/analysis_fwd.h"
#include "perfgate/memory_snapshot.h"

namespace perfgate {

// Fills w.memory.snapshot and the tables memory_snapshot, memory_live_at_peak and memory_ooms.
void analyse_snapshot(const MemorySnapshot& snapshot, WorkerAnalysis& w);

}  // namespace perfgate
