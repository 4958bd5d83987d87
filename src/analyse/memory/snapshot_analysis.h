// A PyTorch memory snapshot (model/memory_snapshot.h) analysed: per device, the peak allocated
// over the recorded window, replayed forwards from the live blocks entering the trace; what is live
// at the peak by allocation site (adding up to the peak); fragmentation at the end; and each
// out-of-memory error with the totals then (docs/metrics.md, "Memory snapshots").
#pragma once

#include <cstdint>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/memory/memory_results.h"
#include "model/memory_snapshot.h"

namespace perfgate {

// Fills w.memory.snapshot and the tables memory_snapshot, memory_live_at_peak,
// memory_peak_categories, memory_ooms and memory_timeline (of the device whose peak is highest).
void analyse_snapshot(const MemorySnapshot& snapshot, WorkerAnalysis& w);

// The bounds of the active-memory timeline: its columns and the allocations drawn on their own.
inline constexpr std::uint64_t kTimelineColumns = 128;
inline constexpr std::size_t kTimelineBands = 64;

// Device `d`'s active-memory timeline as MemoryViz draws it (snapshot_timeline.cpp): the states
// 0..N (after each of the trace's N actions) in at most kTimelineColumns equal runs, each shown at
// its first highest total; the kTimelineBands largest allocations live in a shown state each a
// band, stacked (those entering the trace at the bottom, then in the order allocated), the others
// summed in band 0 on top. Rows by band, then state; a band's rectangle spans the columns where its
// bottom stays the same.
std::vector<SnapshotBandRow> snapshot_timeline(const SnapshotDevice& d, const MemorySnapshot& snapshot);

}  // namespace perfgate
