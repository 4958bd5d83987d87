#include "analyse/ops/unit_work.h"

#include <algorithm>
#include <map>

#include "analyse/intervals.h"
#include "analyse/ops/ops_table.h"

namespace perfgate {
namespace {

struct Sums {
  TimeNs gpu = 0;
  TimeNs host = 0;
  std::uint64_t calls = 0;
};
using ByName = std::map<StringId, Sums>;

struct UnitSums {
  ByName ops, regions, kernels;
};

// The unit of `units` (in time order) whose span [start, end) holds `t`; kNone for none.
std::uint32_t unit_at(const std::vector<InferredUnit>& units, const std::vector<UnitWork>& work, TimeNs t) {
  auto after = std::upper_bound(units.begin(), units.end(), t,
                                [](TimeNs at, const InferredUnit& u) { return at < u.start; });
  if (after == units.begin()) return kNone;
  const InferredUnit& u = *std::prev(after);
  auto i = static_cast<std::size_t>(std::prev(after) - units.begin());
  if (t >= u.end || !work[i].counted) return kNone;
  return static_cast<std::uint32_t>(i);
}

std::vector<UnitWorkRow> rows_of(const Profile& p, const ByName& sums) {
  std::vector<UnitWorkRow> rows;
  rows.reserve(sums.size());
  for (const auto& [name, s] : sums) rows.push_back({std::string(p.str(name)), s.gpu, s.host, s.calls});
  std::sort(rows.begin(), rows.end(),
            [](const UnitWorkRow& a, const UnitWorkRow& b) { return a.name < b.name; });
  return rows;
}

// Each GPU's busy time (the union of its activities), as gpu_utilization.cpp takes it.
std::vector<IntervalList> busy_per_gpu(const Profile& p) {
  std::map<std::int32_t, SortedUnion> devices;
  for (const GpuActivity& a : p.gpu_activities) devices[a.device].add({a.start, a.end});
  std::vector<IntervalList> out;
  out.reserve(devices.size());
  for (auto& [device, busy] : devices) out.push_back(busy.take());
  return out;
}

}  // namespace

std::vector<UnitWork> unit_work(const Profile& p, const Attribution& a, const OpStats& stats,
                                const std::vector<std::uint32_t>& step_markers, const Window& window,
                                const InferredIterations& inferred) {
  const std::vector<InferredUnit>& units = inferred.units;
  std::vector<UnitWork> work(units.size());
  for (std::size_t u = 0; u < units.size(); ++u)
    work[u].counted = units[u].start >= window.host_start && units[u].start < window.host_end;
  std::vector<UnitSums> sums(units.size());
  std::vector<bool> marker(p.host_events.size(), false);
  for (std::uint32_t m : step_markers)
    if (m < marker.size()) marker[m] = true;
  // Each range counted in a unit: its unit, to take its callees' and runtime calls' time from an
  // op's host self time.
  std::vector<std::uint32_t> unit_of(p.host_events.size(), kNone);
  for (std::size_t e = 0; e < p.host_events.size(); ++e) {
    const HostEvent& h = p.host_events[e];
    if (h.thread != inferred.thread || !stats.in_window(e)) continue;
    std::uint32_t u = unit_at(units, work, h.start);
    if (u == kNone) continue;
    unit_of[e] = u;
    if (stats.is_op(e)) {
      Sums& s = sums[u].ops[h.name];
      ++s.calls;
      s.host += h.end - h.start;  // its callees and runtime calls are taken below
      add_time(s.gpu, stats.self_device(e));
    } else if (h.kind == HostKind::Annotation && !marker[e]) {
      Sums& s = sums[u].regions[h.name];
      ++s.calls;
      s.host += h.end - h.start;
      add_time(s.gpu, stats.total_device(e));
    }
  }
  auto take = [&](std::uint32_t op, TimeNs time) {
    if (op == kNone || unit_of[op] == kNone || !stats.is_op(op)) return;
    sums[unit_of[op]].ops[p.host_events[op].name].host -= time;
  };
  for (const HostEvent& h : p.host_events) take(h.parent, h.end - h.start);
  HostEventCursor before(p);
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r) {
    const RuntimeCall& call = p.runtime_calls[r];
    // The range that holds a call's time is its owner or a range inside it, in the owner's unit (a
    // unit opens with a top-level range): not looked for where the owner is in none.
    std::uint32_t owner = a.runtime_owner[r];
    if (owner != kNone && unit_of[owner] != kNone)
      take(self_time_holder(p, before, owner, call), call.end - call.start);
    if (call.thread != inferred.thread || r + 1 >= a.activity_offsets.size()) continue;
    std::uint32_t u = unit_at(units, work, call.start);
    if (u == kNone) continue;
    for (std::uint32_t g : a.launched_by(r)) {
      const GpuActivity& k = p.gpu_activities[g];
      if (k.kind != GpuActivityKind::Kernel) continue;
      Sums& s = sums[u].kernels[k.name];
      ++s.calls;
      add_time(s.gpu, k.end - k.start);
    }
  }
  std::vector<IntervalList> busy = busy_per_gpu(p);
  for (std::size_t u = 0; u < units.size(); ++u) {
    work[u].ops = rows_of(p, sums[u].ops);
    work[u].regions = rows_of(p, sums[u].regions);
    work[u].kernels = rows_of(p, sums[u].kernels);
    if (!work[u].counted) continue;
    Interval span{units[u].start, units[u].end};
    for (const IntervalList& gpu : busy)
      work[u].gpu_idle += (span.end - span.start) - length_within(gpu, span);
  }
  return work;
}

}  // namespace perfgate
