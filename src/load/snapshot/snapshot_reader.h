// PyTorch memory snapshots (torch.cuda.memory._snapshot(), written by _dump_snapshot): the pickle
// read by the restricted unpickler (pickle.h), its dict turned into each device's final state and
// trace (snapshot_reader.cpp), and the trace replayed from the final state backwards into the
// profile model's allocator samples and notes (snapshot_replay.cpp; docs/formats.md, "PyTorch
// memory snapshot").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "load/snapshot/pickle.h"
#include "perfgate/profile.h"

namespace perfgate::snapshot {

// A pickle (protocol 2 to 5) whose first value is a dict with a "segments" key: the shape of a
// memory snapshot, from a file's first bytes.
bool detect(std::string_view head);

// The trace's actions (c10/cuda/CUDACachingAllocator.h, TraceEntry::Action, as _snapshot() names them).
enum class Action : unsigned char {
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

struct LiveBlock {
  std::uint64_t size = 0;
  std::uint32_t site = 0;  // into SnapshotData::sites
};
struct TraceStep {
  Action action = Action::Other;
  std::uint64_t address = 0;
  std::int64_t size = 0;  // as recorded, below 2^50
  TimeNs time = 0;        // time_us in ns; the action's place in the trace where it has none
  std::uint32_t site = 0;
  std::uint64_t device_free = 0;  // an oom's
};
struct DeviceData {
  std::int32_t device = 0;
  std::uint64_t reserved = 0;   // the segments' total_size, summed
  std::uint64_t allocated = 0;  // the active blocks' size, summed
  std::uint64_t segments = 0, expandable = 0;
  std::uint64_t split_inactive_blocks = 0, split_inactive_bytes = 0, largest_inactive = 0;
  std::unordered_map<std::uint64_t, LiveBlock> live;  // the active blocks at the end, by address
  std::vector<TraceStep> steps;                       // device_traces[device], in order
};
struct SnapshotData {
  std::vector<DeviceData> devices;  // those with a segment or an action
  // Where allocations were made: the top user frame of each (site_of), "(no frames recorded)".
  std::vector<std::string> sites;
  std::string alloc_conf;  // allocator_settings' PYTORCH_CUDA_ALLOC_CONF
};

// The snapshot `root`. Throws InputError naming `path` when it is not a snapshot's shape or its
// sizes pass 2^62 bytes in sum.
SnapshotData read_snapshot(const pickle::Value& root, const std::string& path);

// The frames' top user frame, "name (file.py:line)": the first frame not in an installed package
// (site-packages, dist-packages, torch/, the Python library) nor in C or C++ source.
std::string site_of(const pickle::Value* frames);

// One device as the snapshot leaves it, and its trace's totals replayed backwards.
struct DeviceState {
  std::int32_t device = 0;
  std::uint64_t reserved = 0, allocated = 0, segments = 0, actions = 0, ooms = 0;
  std::int64_t entering_allocated = 0, entering_reserved = 0;
  std::int64_t peak_allocated = 0;
  std::size_t peak_after = 0;  // the actions before the peak (0: the totals entering the trace)
  // The blocks live at the peak by site, most bytes first (ties by name): they add up to the peak.
  std::vector<std::pair<std::string, std::uint64_t>> live_at_peak;
};

// The snapshot as allocator samples and notes added to `profile`.
std::vector<DeviceState> add_snapshot(const SnapshotData& snapshot, Profile& profile);

}  // namespace perfgate::snapshot
