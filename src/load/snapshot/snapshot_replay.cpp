// A memory snapshot's traces replayed (snapshot_reader.h), in block bytes, the allocator's unit
// (what torch.cuda.memory_stats' allocated_bytes and max_memory_allocated() count; docs/metrics.md,
// "Memory snapshots"), with the sizes requested kept beside them. The final state seeds the live
// blocks, each with its size in the segments and its requested size; walking each trace backwards,
// an `alloc` takes its block out of the live set (its site from the alloc's frames) and a
// `free_completed` puts its block back (with the free's frames: the only ones of a block allocated
// before the recording), so that the totals entering the trace count what was allocated before the
// recording (torch/cuda/_memory_viz.py and MemoryViz's process_alloc_data seed theirs the same way).
// A block the final state does not hold is as large as the allocator rounds the size the trace
// records, the size requested (block_size_of). So the replay ends at the allocated total of the
// final state, and its peak is at least that. Forwards again, each allocation and completed free is
// an allocator sample with the totals after it. The peak and what is live at it are the analysis's
// (analyse/memory/snapshot_analysis.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/errors.h"
#include "load/snapshot/snapshot_reader.h"

namespace perfgate::snapshot {
namespace {

constexpr std::int64_t kBound = std::int64_t{1} << 62;

bool moves_allocated(SnapshotAction a) {
  return a == SnapshotAction::Alloc || a == SnapshotAction::FreeCompleted;
}
std::int64_t reserved_change(const SnapshotStep& s) {
  if (s.action == SnapshotAction::SegmentAlloc || s.action == SnapshotAction::SegmentMap) return s.size;
  if (s.action == SnapshotAction::SegmentFree || s.action == SnapshotAction::SegmentUnmap) return -s.size;
  return 0;
}

void replay_backwards(SnapshotDevice& d, const std::string& path) {
  std::map<std::uint64_t, SnapshotBlock> live(d.live.begin(), d.live.end());
  // The live blocks' sizes and requested sizes (at most 2^62 in sum, read_snapshot).
  std::int64_t allocated = 0, requested = 0;
  for (const auto& [address, block] : d.live) {
    allocated += static_cast<std::int64_t>(block.size);
    requested += static_cast<std::int64_t>(block.requested);
  }
  auto reserved = static_cast<std::int64_t>(d.reserved);
  for (std::size_t i = d.steps.size(); i-- > 0;) {
    SnapshotStep& s = d.steps[i];
    if (s.action == SnapshotAction::Alloc) {
      auto at = live.find(s.address);
      // The block's size as the live set holds it; its site the allocation's own frames.
      s.block = at != live.end() ? at->second.size : block_size_of(static_cast<std::uint64_t>(s.size));
      if (at != live.end()) live.erase(at);
      allocated -= static_cast<std::int64_t>(s.block);
      requested -= s.size;
    } else if (s.action == SnapshotAction::FreeCompleted) {
      s.block = block_size_of(static_cast<std::uint64_t>(s.size));
      live[s.address] = {s.block, s.site, static_cast<std::uint64_t>(s.size)};
      allocated += static_cast<std::int64_t>(s.block);
      requested += s.size;
    }
    reserved -= reserved_change(s);
    if (allocated > kBound || allocated < -kBound || reserved > kBound || reserved < -kBound ||
        requested > kBound || requested < -kBound)
      throw InputError(
          fmt::format("{}: not a PyTorch memory snapshot: device {}'s trace moves its totals past 2^62 bytes",
                      path, d.device));
  }
  d.entering_allocated = allocated;
  d.entering_requested = requested;
  d.entering_reserved = reserved;
  d.entering_live.assign(live.begin(), live.end());
}

// Forwards: the totals entering (at the first action's time), then one sample per change.
void add_samples(const SnapshotDevice& d, Profile& profile) {
  std::int64_t allocated = d.entering_allocated, reserved = d.entering_reserved;
  auto sample = [&](TimeNs time, std::int64_t bytes) {
    profile.memory_samples.push_back({time, bytes, std::max<std::int64_t>(allocated, 0),
                                      std::max<std::int64_t>(reserved, 0), d.device, kNone});
  };
  sample(d.steps.empty() ? 0 : d.steps.front().time, 0);
  for (const SnapshotStep& s : d.steps) {
    std::int64_t change = reserved_change(s);
    if (!moves_allocated(s.action) && change == 0) continue;
    std::int64_t bytes = static_cast<std::int64_t>(s.block);
    if (s.action == SnapshotAction::FreeCompleted) bytes = -bytes;
    allocated += bytes;
    reserved += change;
    sample(s.time, bytes);
  }
}

// A trace with entries without time_us: no time is made up (one microsecond per entry made a wall
// time of the entries' count): every action at 0, the trace in allocation order, and a note naming
// the fields the entries lack.
void drop_times(MemorySnapshot& snapshot, Profile& profile) {
  for (SnapshotDevice& d : snapshot.devices)
    for (SnapshotStep& s : d.steps) s.time = 0;
  std::string fields = "time_us";
  if (snapshot.entries_without_frames > 0) fields += ", frames";
  profile.notes.push_back(note<NoteId::snapshot_untimed>(arg<"count">(snapshot.entries_without_time),
                                                         arg<"entries">(snapshot.trace_entries),
                                                         arg<"fields">(fields)));
}

}  // namespace

std::uint64_t block_size_of(std::uint64_t requested) {
  constexpr std::uint64_t kMinBlockSize = 512;
  if (requested < kMinBlockSize) return kMinBlockSize;
  return (requested + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

void replay_snapshot(MemorySnapshot& snapshot, Profile& profile) {
  if (snapshot.untimed()) drop_times(snapshot, profile);
  for (SnapshotDevice& d : snapshot.devices) {
    replay_backwards(d, profile.source_path);
    add_samples(d, profile);
    if (d.entering_allocated < 0)
      profile.notes.push_back(note<NoteId::snapshot_frees_before_trace>(arg<"device">(d.device),
                                                                        arg<"bytes">(-d.entering_allocated)));
  }
  if (snapshot.list_form) profile.notes.push_back(note<NoteId::snapshot_list_form>());
  if (!snapshot.alloc_conf.empty())
    profile.notes.push_back(note<NoteId::snapshot_alloc_conf>(arg<"alloc_conf">(snapshot.alloc_conf)));
  std::stable_sort(profile.memory_samples.begin(), profile.memory_samples.end(),
                   [](const MemorySample& a, const MemorySample& b) { return a.time < b.time; });
}

}  // namespace perfgate::snapshot
