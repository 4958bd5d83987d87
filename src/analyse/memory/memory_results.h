// The GPU allocator: its peak over the capture, each op's allocations and frees, the curve of its
// totals (memory.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "perfgate/profile.h"
#include "perfgate/table_codes.h"

namespace perfgate {

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
  // Peaks do not add: the sums of the side with the higher allocated peak, with the higher
  // reserved peak of both (memory.cpp).
  MemorySums& operator+=(const MemorySums& from);
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
