#include "analyse/gpu/idle.h"

#include <algorithm>

#include <boost/container/flat_map.hpp>

#include "analyse/gpu/idle_nvtx.h"
#include "analyse/intervals.h"
#include "analyse/last_entry.h"

namespace perfgate {

ThreadSet launching_threads(const Profile& p, TimeNs start, TimeNs end) {
  ThreadSet threads;
  for (const RuntimeCall& c : p.runtime_calls)
    if (c.end > start && c.start < end) threads.insert(c.thread);
  return threads;
}

// Per device, when it had work queued: from each activity's launch call's return to its start
// (merged).
QueuedWork queued_work(const Profile& p, const Attribution& a) {
  QueuedWork out;
  LastEntry<QueuedWork> on_device(out);
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    std::uint32_t r = a.activity_runtime[i];
    const GpuActivity& act = p.gpu_activities[i];
    if (r != kNone && p.runtime_calls[r].end < act.start)
      on_device[act.device].push_back({p.runtime_calls[r].end, act.start});
  }
  for (auto& [device, list] : out) merge_in_place(list);
  return out;
}

// The device's queued work, or none.
static const IntervalList& queued_on(const QueuedWork& queued, std::int32_t device) {
  static const IntervalList kNothingQueued;
  auto it = queued.find(device);
  return it == queued.end() ? kNothingQueued : it->second;
}

IdleSums idle_breakdown(const Profile& p, const Attribution& a, const QueuedWork& queued, const Window& w) {
  IdleSums s;
  boost::container::flat_map<std::pair<std::int32_t, std::uint32_t>, TimeNs>
      stream_free_at;  // end of the last activity
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    if (act.start < w.start || act.end > w.end) continue;
    auto [it, first] = stream_free_at.try_emplace({act.device, act.stream}, act.end);
    if (first) continue;
    TimeNs previous_end = it->second;
    it->second = std::max(previous_end, act.end);
    TimeNs gap = act.start - previous_end;
    if (gap <= 0) continue;
    std::uint32_t r = a.activity_runtime[i];
    if (r != kNone && p.runtime_calls[r].start > previous_end) {
      // The GPU waited for the host only while it had nothing else queued (issue 53).
      TimeNs with_work = length_within(queued_on(queued, act.device), {previous_end, act.start});
      s.host_wait += gap - with_work;
      s.other += with_work;
    } else if (gap < kKernelWaitNs)
      s.kernel_wait += gap;
    else
      s.other += gap;
  }
  return s;
}

namespace {

// What the host threads that launch GPU work (those with runtime calls in the window) were doing,
// one merged list per cause, in the order the gaps are split by: DataLoader ops, synchronising
// calls, launch calls, other runtime calls, other ops and Python functions, and last an Nsight
// Systems export's NVTX ranges (nvtx_ranges). A launch call launched recorded GPU work or is of the
// launch family by name (rules: critical_path_launch_calls, graph_launch_calls); an allocation, an
// event or a stream call is none (issue 89: a first cudaFree of 715 ms was "launching"). A Kineto
// trace's annotations (steps, record_function ranges) are not work: they enclose everything.
std::array<IntervalList, 6> host_causes(const Profile& p, const Attribution& a, NameClasses& classes,
                                        const Window& w, const std::vector<std::uint32_t>& nvtx) {
  ThreadSet launching = launching_threads(p, w.start, w.end);
  std::vector<bool> launched(p.runtime_calls.size(), false);
  for (std::uint32_t r : a.activity_runtime)
    if (r != kNone) launched[r] = true;
  std::array<IntervalList, 6> lists;
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r) {
    const RuntimeCall& c = p.runtime_calls[r];
    if (!launching.count(c.thread)) continue;
    std::size_t cause = classes.sync_call(c.name)                                                    ? 1
                        : launched[r] || classes.launch_call(c.name) || classes.graph_launch(c.name) ? 2
                                                                                                     : 3;
    lists[cause].push_back({c.start, c.end});
  }
  for (const HostEvent& e : p.host_events) {
    if (!launching.count(e.thread)) continue;
    if (classes.dataloader_op(e.name))
      lists[0].push_back({e.start, e.end});
    else if (e.kind == HostKind::Op || e.kind == HostKind::PythonFunction)
      lists[4].push_back({e.start, e.end});
  }
  for (std::uint32_t e : nvtx)
    if (launching.count(p.host_events[e].thread))
      lists[5].push_back({p.host_events[e].start, p.host_events[e].end});
  for (IntervalList& l : lists) merge_in_place(l);
  return lists;
}

IdleCause main_cause(const std::array<TimeNs, kIdleCauses>& by_cause) {
  std::size_t best = static_cast<std::size_t>(IdleCause::Unrecorded);
  for (std::size_t c = 0; c < kIdleCauses; ++c)
    if (by_cause[c] > by_cause[best]) best = c;
  return static_cast<IdleCause>(best);
}

}  // namespace

const char* idle_cause_name(IdleCause cause) {
  switch (cause) {
    case IdleCause::DataLoader:
      return "dataloader";
    case IdleCause::Sync:
      return "sync";
    case IdleCause::Launch:
      return "launch";
    case IdleCause::CpuOp:
      return "cpu_op";
    case IdleCause::Unrecorded:
      break;
    case IdleCause::ShortGap:
      return "short_gaps";
    case IdleCause::Queued:
      return "queued";
    case IdleCause::Nvtx:
      return "nvtx";
    case IdleCause::RuntimeOther:
      return "runtime_other";
  }
  return "unrecorded";
}

std::vector<GapRow> gpu_gaps(const Profile& p, const Attribution& a, const QueuedWork& queued,
                             NameClasses& classes, const Window& w,
                             const std::vector<std::uint32_t>& step_markers, IdleSums& sums,
                             bool over_gpu_span, const IntervalList& one_offs) {
  boost::container::flat_map<std::int32_t, SortedUnion> busy;  // activities come sorted by start
  LastEntry<decltype(busy)> busy_on(busy);
  for (const GpuActivity& act : p.gpu_activities) busy_on[act.device].add({act.start, act.end});
  std::vector<std::uint32_t> nvtx = nvtx_ranges(p, step_markers);
  std::array<IntervalList, 6> host = host_causes(p, a, classes, w, nvtx);
  NvtxIdle nvtx_idle(p, nvtx);
  std::vector<GapRow> gaps;
  for (auto& [device, device_busy] : busy) {
    // One-offs first (set aside), queued work, then the host causes in IdleCause order
    // (exclusive_split's priority).
    std::array<Layer, 2 + std::tuple_size_v<decltype(host)>> layers;
    layers[0].push_back(&one_offs);
    layers[1].push_back(&queued_on(queued, device));
    for (std::size_t i = 0; i < host.size(); ++i) layers[2 + i].push_back(&host[i]);
    // the gaps in time order
    ExclusiveSplitter splitter(over_gpu_span ? std::span<const Layer>() : std::span<const Layer>(layers));
    std::span<const Layer> before_nvtx = std::span<const Layer>(layers).first(layers.size() - 1);
    IntervalList inside = clip(device_busy.take(), {w.start, w.end});
    if (inside.empty()) continue;
    // The idle stretches of the window: before the first activity, between two, after the last
    // (gpu.idle_pct counts them all; the longest-gap metrics only those between activities).
    IntervalList idle;
    idle.reserve(inside.size() + 1);
    if (w.start < inside.front().start && !over_gpu_span) idle.push_back({w.start, inside.front().start});
    for (std::size_t i = 1; i < inside.size(); ++i) {
      idle.push_back({inside[i - 1].end, inside[i].start});
      sums.longest_gap = std::max(sums.longest_gap.value_or(0), inside[i].start - inside[i - 1].end);
      if (inside[i].start - inside[i - 1].end >= kReportedGapNs) ++sums.long_gaps;
    }
    if (inside.back().end < w.end && !over_gpu_span) idle.push_back({inside.back().end, w.end});
    for (const Interval& span : idle) {
      TimeNs gap = span.end - span.start;
      if (gap < kKernelWaitNs) {
        sums.by_cause[static_cast<std::size_t>(IdleCause::ShortGap)] += gap;
        continue;
      }
      GapRow row{device, span.start, gap, {}, IdleCause::Unrecorded};
      // parts: one-offs (in no cause), queued, the six host causes, then covered by none
      // (Unrecorded); over the GPU span only the last, all of the gap.
      std::span<const TimeNs> parts = splitter.split(span);
      constexpr std::array<std::optional<IdleCause>, 9> kPartCause = {
          std::nullopt,     IdleCause::Queued, IdleCause::DataLoader,
          IdleCause::Sync,  IdleCause::Launch, IdleCause::RuntimeOther,
          IdleCause::CpuOp, IdleCause::Nvtx,   IdleCause::Unrecorded};
      std::size_t first_cause = kPartCause.size() - parts.size();
      for (std::size_t c = 0; c < parts.size(); ++c) {
        if (!kPartCause[first_cause + c]) continue;
        auto cause = static_cast<std::size_t>(*kPartCause[first_cause + c]);
        row.by_cause[cause] = parts[c];
        sums.by_cause[cause] += parts[c];
      }
      row.main_cause = main_cause(row.by_cause);
      if (row.by_cause[static_cast<std::size_t>(IdleCause::Nvtx)] > 0) nvtx_idle.add(span, before_nvtx);
      if (gap >= kReportedGapNs) gaps.push_back(row);
    }
  }
  nvtx_idle.name_longest(sums);
  std::sort(gaps.begin(), gaps.end(), [](const GapRow& x, const GapRow& y) {
    return x.duration != y.duration ? x.duration > y.duration : x.start < y.start;
  });
  if (gaps.size() > kMaxReportedGaps) gaps.resize(kMaxReportedGaps);
  return gaps;
}

IdleSums& IdleSums::operator+=(const IdleSums& from) {
  add_time(host_wait, from.host_wait);
  add_time(kernel_wait, from.kernel_wait);
  add_time(other, from.other);
  for (std::size_t c = 0; c < kIdleCauses; ++c) add_time(by_cause[c], from.by_cause[c]);
  if (from.longest_gap) longest_gap = std::max(longest_gap.value_or(0), *from.longest_gap);
  if (from.nvtx_range_idle > nvtx_range_idle) {
    nvtx_range = from.nvtx_range;
    nvtx_outermost = from.nvtx_outermost;
    nvtx_range_idle = from.nvtx_range_idle;
  }
  long_gaps += from.long_gaps;
  delays += from.delays;
  return *this;
}

}  // namespace perfgate
