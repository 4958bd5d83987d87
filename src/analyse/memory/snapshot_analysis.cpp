#include "analyse/memory/snapshot_analysis.h"

#include <algorithm>
#include <map>

#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

using LiveSet = std::map<std::uint64_t, SnapshotBlock>;

void apply(const SnapshotStep& s, LiveSet& live) {
  if (s.action == SnapshotAction::Alloc)
    live[s.address] = {s.block, s.site, static_cast<std::uint64_t>(s.size)};
  if (s.action == SnapshotAction::FreeCompleted) live.erase(s.address);
}

std::int64_t allocated_change(const SnapshotStep& s) {
  if (s.action == SnapshotAction::Alloc) return static_cast<std::int64_t>(s.block);
  if (s.action == SnapshotAction::FreeCompleted) return -static_cast<std::int64_t>(s.block);
  return 0;
}
// The same in requested bytes: the size the trace records.
std::int64_t requested_change(const SnapshotStep& s) {
  if (s.action == SnapshotAction::Alloc) return s.size;
  if (s.action == SnapshotAction::FreeCompleted) return -s.size;
  return 0;
}
std::int64_t reserved_change(const SnapshotStep& s) {
  if (s.action == SnapshotAction::SegmentAlloc || s.action == SnapshotAction::SegmentMap) return s.size;
  if (s.action == SnapshotAction::SegmentFree || s.action == SnapshotAction::SegmentUnmap) return -s.size;
  return 0;
}

// Forwards from the totals entering the trace (the replay bounds them by 2^62): the first highest
// allocated total, and each out-of-memory error with the totals then.
SnapshotDeviceRow walk(const SnapshotDevice& d, const MemorySnapshot& snapshot,
                       std::vector<SnapshotOomRow>& ooms) {
  SnapshotDeviceRow row{d.device,
                        d.segments,
                        d.expandable,
                        d.steps.size(),
                        d.reserved,
                        d.allocated,
                        d.split_inactive_blocks,
                        d.split_inactive_bytes,
                        d.largest_inactive,
                        d.entering_allocated,
                        d.entering_allocated,
                        0,
                        d.steps.empty() ? 0 : d.steps.front().time,
                        0,
                        d.allocated_requested,
                        d.entering_requested};
  std::int64_t allocated = d.entering_allocated, reserved = d.entering_reserved;
  std::int64_t requested = d.entering_requested;
  for (std::size_t i = 0; i < d.steps.size(); ++i) {
    const SnapshotStep& s = d.steps[i];
    allocated += allocated_change(s);
    reserved += reserved_change(s);
    requested += requested_change(s);
    if (allocated > row.peak) {
      row.peak = allocated;
      row.peak_action = i + 1;
      row.peak_time = s.time;
      row.peak_requested = requested;
    }
    if (s.action != SnapshotAction::Oom) continue;
    ++row.ooms;
    ooms.push_back({d.device, i + 1, s.time, static_cast<std::uint64_t>(s.size), s.device_free, allocated,
                    reserved, snapshot.sites[s.site]});
  }
  return row;
}

void add_bytes(std::uint64_t& to, std::uint64_t bytes) {
  if (__builtin_add_overflow(to, bytes, &to)) to = UINT64_MAX;
}

// The blocks live after the first `count` actions, by site and category, and by category, most
// bytes first (ties by name).
void add_live_at_peak(const SnapshotDevice& d, const SnapshotDeviceRow& device,
                      const MemorySnapshot& snapshot, WorkerTables& t) {
  LiveSet live(d.entering_live.begin(), d.entering_live.end());
  for (std::size_t i = 0; i < device.peak_action; ++i) apply(d.steps[i], live);
  std::vector<SnapshotSiteRow> rows(snapshot.sites.size());
  std::map<std::string, SnapshotCategoryRow> categories;
  for (const auto& [address, block] : live) {
    SnapshotSiteRow& r = rows[block.site];
    add_bytes(r.bytes, block.size);
    ++r.blocks;
    SnapshotCategoryRow& c = categories[snapshot.site_categories[block.site]];
    add_bytes(c.bytes, block.size);
    ++c.blocks;
  }
  std::vector<SnapshotSiteRow>& out = t.memory_live_at_peak;
  std::size_t first = out.size();
  for (std::size_t s = 0; s < snapshot.sites.size(); ++s)
    if (rows[s].blocks > 0)
      out.push_back({d.device, snapshot.sites[s], snapshot.site_categories[s], rows[s].bytes, rows[s].blocks,
                     device.peak});
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [](const SnapshotSiteRow& a, const SnapshotSiteRow& b) {
              if (a.bytes != b.bytes) return a.bytes > b.bytes;
              return a.site != b.site ? a.site < b.site : a.category < b.category;
            });
  std::vector<SnapshotCategoryRow>& by = t.memory_peak_categories;
  first = by.size();
  for (auto& [name, c] : categories) by.push_back({d.device, name, c.bytes, c.blocks, device.peak});
  std::stable_sort(
      by.begin() + static_cast<std::ptrdiff_t>(first), by.end(),
      [](const SnapshotCategoryRow& a, const SnapshotCategoryRow& b) { return a.bytes > b.bytes; });
}

}  // namespace

void analyse_snapshot(const MemorySnapshot& snapshot, WorkerAnalysis& w) {
  SnapshotSums& sums = w.memory.snapshot;
  WorkerTables& t = w.tables;
  std::size_t first_device = t.memory_snapshot.size();
  for (const SnapshotDevice& d : snapshot.devices) {
    std::size_t first_oom = t.memory_ooms.size();
    SnapshotDeviceRow row = walk(d, snapshot, t.memory_ooms);
    add_live_at_peak(d, row, snapshot, t);
    SnapshotSums one;
    one.devices = 1;
    one.peak = row.peak;
    one.peak_device = d.device;
    one.reserved = d.reserved;
    one.allocated = d.allocated;
    one.split_inactive_bytes = d.split_inactive_bytes;
    one.largest_inactive = d.largest_inactive;
    one.ooms = row.ooms;
    one.expandable_segments = d.expandable;
    one.untimed = snapshot.untimed() || snapshot.list_form;
    // The peak is of the states the replay went through, the state at the dump among them: below the
    // allocated total there, the replay and the final state disagree (the invariant
    // memory.snapshot_peak_at_least_allocated).
    if (row.peak < static_cast<std::int64_t>(std::min<std::uint64_t>(d.allocated, INT64_MAX)))
      one.peak_below_allocated = {d.device, row.peak, d.allocated};
    for (std::size_t i = first_oom; i < t.memory_ooms.size(); ++i) {
      const SnapshotOomRow& o = t.memory_ooms[i];
      one.largest_oom_request = std::max(one.largest_oom_request, o.requested);
      one.capacity_seen =
          std::max(one.capacity_seen,
                   o.device_free + static_cast<std::uint64_t>(std::max<std::int64_t>(o.reserved, 0)));
    }
    sums += one;
    t.memory_snapshot.push_back(row);
  }
  // The timeline of the device whose peak is highest (the first of equals).
  const SnapshotDevice* top = nullptr;
  std::int64_t top_peak = 0;
  for (std::size_t i = 0; i < snapshot.devices.size(); ++i)
    if (!top || t.memory_snapshot[first_device + i].peak > top_peak)
      top = &snapshot.devices[i], top_peak = t.memory_snapshot[first_device + i].peak;
  if (top) t.memory_timeline = snapshot_timeline(*top, snapshot);
}

SnapshotSums& SnapshotSums::operator+=(const SnapshotSums& from) {
  if (from.devices == 0) return *this;
  if (devices == 0 || from.peak > peak) {
    peak = from.peak;
    peak_device = from.peak_device;
  }
  devices += from.devices;
  auto add = [](std::uint64_t& to, std::uint64_t v) {
    if (__builtin_add_overflow(to, v, &to)) to = UINT64_MAX;
  };
  add(reserved, from.reserved);
  add(allocated, from.allocated);
  add(split_inactive_bytes, from.split_inactive_bytes);
  add(ooms, from.ooms);
  largest_inactive = std::max(largest_inactive, from.largest_inactive);
  largest_oom_request = std::max(largest_oom_request, from.largest_oom_request);
  capacity_seen = std::max(capacity_seen, from.capacity_seen);
  device_memory = std::max(device_memory, from.device_memory);
  add(expandable_segments, from.expandable_segments);
  untimed = untimed || from.untimed;
  if (!peak_below_allocated) peak_below_allocated = from.peak_below_allocated;
  return *this;
}

}  // namespace perfgate
