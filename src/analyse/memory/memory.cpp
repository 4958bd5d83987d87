#include "analyse/memory/memory.h"
#include "analyse/memory/snapshot_analysis.h"
#include "analyse/worker_analysis.h"

#include <algorithm>
#include <map>

namespace perfgate {
namespace {

// Curve points per device over the window: enough for a chart's width, few enough for the page.
constexpr std::size_t kCurvePoints = 300;
constexpr std::string_view kCaptureStart = "(before the capture)";

// One device's samples (indices into Profile::memory_samples, in time order) and the allocator's
// allocated total after each.
struct DeviceSeries {
  std::vector<std::uint32_t> samples;
  std::vector<std::int64_t> allocated;
  std::int64_t entering = 0;  // the total before the first sample
  bool from_changes = true;   // no sample recorded a total
};

// Totals where the trace records them, else the previous total plus the change. Without any
// recorded total the series starts at the lowest level that keeps it from going below zero:
// memory allocated before the capture is not seen, so this is a lower bound.
std::map<std::int32_t, DeviceSeries> device_series(const Profile& p) {
  std::map<std::int32_t, DeviceSeries> by_device;
  for (std::uint32_t i = 0; i < p.memory_samples.size(); ++i) {
    const MemorySample& m = p.memory_samples[i];
    DeviceSeries& d = by_device[m.device_id];
    std::int64_t previous = d.allocated.empty() ? 0 : d.allocated.back();
    d.samples.push_back(i);
    // Bounded (the reader clamps each change to 2^50 bytes), so that shifting it cannot overflow.
    constexpr std::int64_t kBound = std::int64_t{1} << 61;
    d.allocated.push_back(m.total_allocated >= 0 ? m.total_allocated
                                                 : std::clamp(previous + m.bytes, -kBound, kBound));
    if (m.total_allocated >= 0) d.from_changes = false;
  }
  for (auto& [device, d] : by_device) {
    d.entering = d.allocated.front() - p.memory_samples[d.samples.front()].bytes;
    if (!d.from_changes) continue;
    std::int64_t lowest =
        std::min<std::int64_t>(0, *std::min_element(d.allocated.begin(), d.allocated.end()));
    for (std::int64_t& a : d.allocated) a -= lowest;
    d.entering -= lowest;
  }
  return by_device;
}

// The op that ran a sample: the innermost op enclosing it on its thread (annotations and Python
// functions are skipped, as the plugin does); kNone outside any op.
// `e`: the last host event on the sample's thread that started at or before it.
std::uint32_t owning_op(const Profile& p, const MemorySample& m, std::uint32_t e) {
  while (e != kNone && !(p.host_events[e].kind == HostKind::Op && p.host_events[e].end > m.time))
    e = p.host_events[e].parent;
  return e;
}

std::string op_name(const Profile& p, std::uint32_t op) {
  return op == kNone ? std::string(kNoOpName) : std::string(p.str(p.host_events[op].name));
}

// The highest total of any device. Frees of memory allocated before the capture can make the total
// entering the capture the highest: then there is no op to name.
void find_peak(const Profile& p, const std::map<std::int32_t, DeviceSeries>& series, MemorySums& s) {
  for (const auto& [device, d] : series) {
    auto highest = std::max_element(d.allocated.begin(), d.allocated.end());
    std::int64_t peak = std::max(*highest, d.entering);
    if (s.peak_allocated && peak <= *s.peak_allocated) continue;
    const MemorySample& m = p.memory_samples[d.samples[highest - d.allocated.begin()]];
    bool at_start = d.entering > *highest;
    s.peak_allocated = peak;
    s.peak_device = device;
    s.peak_time = at_start ? p.memory_samples[d.samples.front()].time : m.time;
    std::uint32_t last = m.thread == kNone ? kNone : last_host_event_before(p, m.thread, m.time);
    s.peak_op = at_start ? std::string(kCaptureStart) : op_name(p, owning_op(p, m, last));
    s.totals_from_changes = d.from_changes;
    const DeviceInfo* info = p.device(device);
    s.peak_pct = info && info->total_memory_bytes > 0
                     ? std::optional<double>(100.0 * static_cast<double>(peak) /
                                             static_cast<double>(info->total_memory_bytes))
                     : std::nullopt;
  }
  for (const MemorySample& m : p.memory_samples)
    if (m.total_reserved >= 0) s.peak_reserved = std::max(s.peak_reserved.value_or(0), m.total_reserved);
}

// The window's curve of one device: the total entering the window, then the sample with the highest
// total of each of kCurvePoints equal stretches (the largest reserved total of the stretch beside
// it), then the total leaving the window.
void add_curve(const Profile& p, std::int32_t device, const DeviceSeries& d, const Window& w,
               std::vector<MemoryPoint>& curve) {
  auto time_of = [&](std::size_t i) { return p.memory_samples[d.samples[i]].time; };
  auto point = [&](std::size_t i, TimeNs time) {
    return MemoryPoint{device, time, d.allocated[i], p.memory_samples[d.samples[i]].total_reserved};
  };
  std::size_t first = 0, end = 0;
  while (first < d.samples.size() && time_of(first) < w.start) ++first;
  for (end = first; end < d.samples.size() && time_of(end) <= w.end;) ++end;
  if (end == 0) return;  // every sample is after the window
  std::vector<MemoryPoint> points;
  if (first > 0) points.push_back(point(first - 1, w.start));
  double length = static_cast<double>(std::max<TimeNs>(w.length(), 1));
  std::size_t stretch = SIZE_MAX;
  for (std::size_t i = first; i < end; ++i) {
    auto at = static_cast<std::size_t>(static_cast<double>(time_of(i) - w.start) * kCurvePoints / length);
    MemoryPoint candidate = point(i, time_of(i));
    if (at != stretch) {
      points.push_back(candidate);
      stretch = at;
      continue;
    }
    MemoryPoint& kept = points.back();
    std::int64_t reserved = std::max(kept.reserved, candidate.reserved);
    if (candidate.allocated > kept.allocated) kept = candidate;
    kept.reserved = reserved;
  }
  points.push_back(point(end - 1, w.end));
  curve.insert(curve.end(), points.begin(), points.end());
}

// Each op's allocations and frees in the window, by device and op name.
std::vector<MemoryOpRow> memory_ops(const Profile& p, const Window& w) {
  std::map<std::pair<std::int32_t, StringId>, MemoryOpRow> rows;
  HostEventCursor before(p);  // the samples come sorted by time
  for (const MemorySample& m : p.memory_samples) {
    if (m.time < w.start || m.time > w.end || m.bytes == 0) continue;
    std::uint32_t op = owning_op(p, m, m.thread == kNone ? kNone : before.last_before(m.thread, m.time));
    StringId name = op == kNone ? kNoString : p.host_events[op].name;
    MemoryOpRow& r = rows[{m.device_id, name}];
    if (m.bytes > 0) {
      ++r.allocations;
      r.allocated_bytes += static_cast<std::uint64_t>(m.bytes);
    } else {
      ++r.frees;
      r.freed_bytes += static_cast<std::uint64_t>(-m.bytes);
    }
  }
  std::map<StringId, std::uint64_t> calls;
  for (const auto& [key, row] : rows) calls[key.second] = 0;
  for (const HostEvent& e : p.host_events)
    if (e.kind == HostKind::Op && e.start >= w.start && e.start <= w.end)
      if (auto it = calls.find(e.name); it != calls.end()) ++it->second;
  std::vector<MemoryOpRow> out;
  for (auto& [key, row] : rows) {
    row.device = key.first;
    row.op = key.second == kNoString ? std::string(kNoOpName) : std::string(p.str(key.second));
    row.calls = key.second == kNoString ? 0 : calls[key.second];
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const MemoryOpRow& a, const MemoryOpRow& b) {
    return a.allocated_bytes != b.allocated_bytes ? a.allocated_bytes > b.allocated_bytes
                                                  : a.freed_bytes > b.freed_bytes;
  });
  return out;
}

}  // namespace

void analyse_memory(const Profile& p, const Window& window, WorkerAnalysis& w) {
  if (p.memory_snapshot) analyse_snapshot(*p.memory_snapshot, w);
  std::map<std::int32_t, DeviceSeries> series = device_series(p);
  if (series.empty()) return;
  find_peak(p, series, w.memory);
  for (const auto& [device, d] : series) add_curve(p, device, d, window, w.tables.memory_curve);
  w.tables.memory_ops = memory_ops(p, window);
  if (w.memory.totals_from_changes) w.warnings.push_back(note<NoteId::memory_totals_from_changes>());
}

MemorySums& MemorySums::operator+=(const MemorySums& from) {
  std::optional<std::int64_t> reserved = std::max(peak_reserved, from.peak_reserved);
  SnapshotSums snapshots = snapshot;
  snapshots += from.snapshot;
  if (from.peak_allocated && (!peak_allocated || *from.peak_allocated > *peak_allocated)) *this = from;
  peak_reserved = reserved;
  snapshot = snapshots;
  return *this;
}

}  // namespace perfgate
