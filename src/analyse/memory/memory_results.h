// The GPU allocator: its peak over the capture, each op's allocations and frees, the curve of its
// totals (memory.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/table_codes.h"
#include "model/profile.h"

namespace perfgate {

// A PyTorch memory snapshot's findings (model/memory_snapshot.h; snapshot_analysis.h), summed
// over its devices: byte totals add, the peak and the largest block are the highest of any device.
// A device whose replayed peak is below its allocated total (SnapshotSums::peak_below_allocated).
// Declared outside SnapshotSums: clang cannot default-construct a nested class with member
// initializers inside the enclosing one (the binary codec's optional::emplace).
struct SnapshotPeakBelow {
  std::int32_t device = 0;
  std::int64_t peak = 0;
  std::uint64_t allocated = 0;
};

struct SnapshotSums {
  std::uint64_t devices = 0;  // 0: the input is not a memory snapshot
  std::int64_t peak = 0;      // the highest allocated total replayed on any device
  std::int32_t peak_device = -1;
  std::uint64_t reserved = 0;  // at the end
  std::uint64_t allocated = 0;
  std::uint64_t split_inactive_bytes = 0;
  std::uint64_t largest_inactive = 0;
  std::uint64_t ooms = 0;
  std::uint64_t largest_oom_request = 0;
  // The device's memory as an out-of-memory error shows it at least: what the device had free plus
  // what the allocator held then (0: no error recorded). Other processes and the CUDA context hold
  // more, so it is a lower bound.
  std::uint64_t capacity_seen = 0;
  std::uint64_t expandable_segments = 0;  // at the end
  std::uint64_t device_memory = 0;        // --device-memory (0: not given)
  bool untimed = false;                   // a trace without time_us: by allocation order, no wall time
  // The first device whose replayed peak is below its allocated total at the dump (the replay and the
  // final state disagree): the invariant memory.snapshot_peak_at_least_allocated.
  using PeakBelow = SnapshotPeakBelow;
  std::optional<PeakBelow> peak_below_allocated;
  SnapshotSums& operator+=(const SnapshotSums& from);
};

// The GPU allocator over the whole capture (docs/metrics.md, "Memory").
struct MemorySums {
  std::optional<std::int64_t> peak_allocated;  // the highest allocator total on any GPU
  std::optional<double> peak_pct;              // of that GPU's memory
  std::optional<std::int64_t> peak_reserved;   // the highest reserved total, where recorded
  std::int32_t peak_device = -1;
  TimeNs peak_time = 0;
  // The op whose allocation reached the peak: kNoOpName outside any op, "(before the capture)" when
  // the total entering the capture is the highest.
  std::string peak_op;
  // The trace records changes without totals (PyTorch 1.8/1.9): totals count from the capture's
  // start, so the peak is a lower bound.
  bool totals_from_changes = false;
  SnapshotSums snapshot;  // a memory snapshot's
  // Peaks do not add: the sums of the side with the higher allocated peak, with the higher
  // reserved peak of both (memory.cpp).
  MemorySums& operator+=(const MemorySums& from);
};

// What is live at a device's peak from one allocation site (its top user frame) and category.
struct SnapshotSiteRow {
  std::int32_t device = 0;
  std::string site;
  std::string category;  // MemorySnapshot::site_categories
  std::uint64_t bytes = 0;
  std::uint64_t blocks = 0;
  std::int64_t peak = 0;  // the device's peak: the rows of a device add up to it
};

// What is live at a device's peak of one category (MemorySnapshot::site_categories).
struct SnapshotCategoryRow {
  std::int32_t device = 0;
  std::string category;
  std::uint64_t bytes = 0;
  std::uint64_t blocks = 0;
  std::int64_t peak = 0;  // the device's peak: the rows of a device add up to it
};

// One rectangle of the active-memory timeline (snapshot_timeline.cpp): a band (an allocation drawn
// on its own, or the smaller ones summed) over a run of the chart's columns where its place in the
// stack stays the same. States are counted in actions: state k is after the trace's first k.
struct SnapshotBandRow {
  std::int32_t device = 0;
  std::uint32_t band = 0;  // 1: the largest allocation drawn; 0: the smaller allocations summed
  std::string site, category;
  std::uint64_t first_state = 0, last_state = 0;  // the states the rectangle spans, both included
  std::int64_t bottom = 0;                        // bytes below it in the stack
  std::uint64_t size = 0;
};

// An out-of-memory error of the trace, with the totals the replay gives at it.
struct SnapshotOomRow {
  std::int32_t device = 0;
  std::uint64_t action = 0;  // its place in the device's trace, from 1
  TimeNs time = 0;
  std::uint64_t requested = 0;
  std::uint64_t device_free = 0;
  std::int64_t allocated = 0;
  std::int64_t reserved = 0;
  std::string site;
};

// A device of the snapshot: its final state, fragmentation and the replayed peak.
struct SnapshotDeviceRow {
  std::int32_t device = 0;
  std::uint64_t segments = 0, expandable_segments = 0, actions = 0;
  std::uint64_t reserved = 0, allocated = 0;  // at the end
  std::uint64_t split_inactive_blocks = 0, split_inactive_bytes = 0, largest_inactive = 0;
  std::int64_t entering_allocated = 0;  // allocated before the recording
  std::int64_t peak = 0;                // in block bytes, as allocated
  std::uint64_t peak_action = 0;        // the actions up to the peak (0: the total entering the trace)
  TimeNs peak_time = 0;
  std::uint64_t ooms = 0;
  // Beside them, in requested bytes: the active blocks' at the end, and the blocks' live at the peak.
  std::uint64_t allocated_requested = 0;
  std::int64_t peak_requested = 0;
};

// Allocations and frees of one op (by name) on one GPU in the window: the op that ran them
// itself (its innermost enclosing op on the allocating thread), as the plugin's self columns.
struct MemoryOpRow {
  std::int32_t device = 0;
  std::string op;
  std::uint64_t calls = 0;  // of the op in the window
  std::uint64_t allocations = 0;
  std::uint64_t allocated_bytes = 0;
  std::uint64_t frees = 0;
  std::uint64_t freed_bytes = 0;
};

// A GPU's allocator totals over the window, thinned to the highest of each short stretch.
struct MemoryPoint {
  std::int32_t device = 0;
  TimeNs time = 0;  // trace clock
  std::int64_t allocated = 0;
  std::int64_t reserved = -1;  // -1: not recorded
};

}  // namespace perfgate
