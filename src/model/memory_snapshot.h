// A PyTorch memory snapshot (torch.cuda.memory._snapshot(), written by _dump_snapshot) as the
// profile model holds it (Profile::memory_snapshot): per device, the final state the segments
// describe and the trace's actions, each allocation and completed free with the block size (block
// bytes, the allocator's unit) the replay from the final state backwards resolved
// (load/snapshot/snapshot_replay.cpp), and the live blocks entering the trace. The analyses
// (analyse/memory/snapshot_analysis.h) take their peak, what is live at it, fragmentation and out-of-memory
// errors from here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/profile.h"

namespace perfgate {

// The trace's actions (c10/cuda/CUDACachingAllocator.h, TraceEntry::Action, as _snapshot() names them).
enum class SnapshotAction : unsigned char {
  Alloc,
  FreeRequested,
  FreeCompleted,
  SegmentAlloc,
  SegmentFree,
  SegmentMap,
  SegmentUnmap,
  Snapshot,
  Oom,
  Other,
};

// A block of the allocator: its size as the allocator counts it (the block's, rounded: what
// torch.cuda.memory_stats' allocated_bytes add up), where it was allocated (an index into
// MemorySnapshot::sites), and the size its allocation requested.
struct SnapshotBlock {
  std::uint64_t size = 0;
  std::uint32_t site = 0;
  std::uint64_t requested = 0;
};

struct SnapshotStep {
  SnapshotAction action = SnapshotAction::Other;
  std::uint64_t address = 0;
  std::int64_t size = 0;  // as recorded (an allocation's: the size requested), below 2^50
  TimeNs time = 0;        // time_us in ns; 0 in a trace where any entry has none (MemorySnapshot::untimed)
  std::uint32_t site = 0;
  std::uint64_t device_free = 0;  // an oom's: what the device had free
  // An alloc's or a free_completed's block as the replay resolved it, in block bytes: a block live at
  // the end, its size in the segments; another, the allocator's rounding of the size requested
  // (snapshot_replay.cpp, block_size_of). The size requested is `size`.
  std::uint64_t block = 0;
};

struct SnapshotDevice {
  std::int32_t device = 0;
  // The final state, from the segments.
  std::uint64_t reserved = 0;             // the segments' total_size, summed
  std::uint64_t allocated = 0;            // the active blocks' size, summed
  std::uint64_t allocated_requested = 0;  // the sizes their allocations requested, summed
  std::uint64_t segments = 0, expandable = 0;
  std::uint64_t split_inactive_blocks = 0, split_inactive_bytes = 0, largest_inactive = 0;
  // The active blocks at the end, by address, each with its size and its requested size.
  std::vector<std::pair<std::uint64_t, SnapshotBlock>> live;
  std::vector<SnapshotStep> steps;  // device_traces[device], in order
  // Replayed from the final state backwards: the totals and the live blocks entering the trace
  // (what was allocated before the recording). A negative total: the trace and the final state disagree.
  std::int64_t entering_allocated = 0, entering_reserved = 0;
  std::int64_t entering_requested = 0;  // the entering live blocks' requested sizes, summed
  std::vector<std::pair<std::uint64_t, SnapshotBlock>> entering_live;  // by address, ascending
};

struct MemorySnapshot {
  std::vector<SnapshotDevice> devices;  // those with a segment or an action
  // Where allocations were made: the top user frame of each, "(no frames recorded)", "(no user frame)".
  std::vector<std::string> sites;
  // sites[i]'s category (snapshot_reader.h, category_of): what the allocation holds where the
  // snapshot says so (parameter, gradient, optimizer_state, activation, ..., from an entry's
  // `category` or `user_metadata`), the phase its frames show (optimizer, forward, backward), or
  // "unknown". A site of several categories has an entry per category.
  std::vector<std::string> site_categories;
  std::string alloc_conf;  // allocator_settings' PYTORCH_CUDA_ALLOC_CONF, empty when not set
  // The trace entries read, and of them those without time_us (PyTorch 2.0 and 2.1 record none) and
  // without frames: a trace of any entry without time is in allocation order only (every step's
  // time 0, no wall time; the replay's note names the fields).
  std::uint64_t trace_entries = 0, entries_without_time = 0, entries_without_frames = 0;
  bool untimed() const { return entries_without_time > 0; }
  // torch.cuda.memory_snapshot()'s form, pickled: the list of segments alone, no trace (the state
  // at the dump only: no timeline, no wall time).
  bool list_form = false;
};

}  // namespace perfgate
