#include "analyse/idle.h"

#include <algorithm>
#include <map>

#include "analyse/intervals.h"

namespace perfgate {

IdleSums idle_breakdown(const Profile& p, const Attribution& a, const Window& w) {
  IdleSums s;
  std::map<std::pair<std::int32_t, std::uint32_t>, TimeNs> stream_free_at;  // end of the last activity
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
    if (r != kNone && p.runtime_calls[r].start > previous_end)
      s.host_wait += gap;
    else if (gap < kKernelWaitNs)
      s.kernel_wait += gap;
    else
      s.other += gap;
  }
  return s;
}

std::vector<GapRow> gpu_gaps(const Profile& p, const Window& w, IdleSums& sums) {
  std::map<std::int32_t, SortedUnion> busy;  // activities come sorted by start
  for (const GpuActivity& a : p.gpu_activities) busy[a.device].add({a.start, a.end});
  std::vector<GapRow> gaps;
  for (auto& [device, device_busy] : busy) {
    IntervalList inside = clip(device_busy.take(), {w.start, w.end});
    for (std::size_t i = 1; i < inside.size(); ++i) {
      TimeNs gap = inside[i].start - inside[i - 1].end;
      sums.longest_gap = std::max(sums.longest_gap.value_or(0), gap);
      if (gap >= kReportedGapNs) gaps.push_back({device, inside[i - 1].end, gap});
    }
  }
  std::sort(gaps.begin(), gaps.end(), [](const GapRow& x, const GapRow& y) {
    return x.duration != y.duration ? x.duration > y.duration : x.start < y.start;
  });
  sums.long_gaps = gaps.size();
  if (gaps.size() > kMaxReportedGaps) gaps.resize(kMaxReportedGaps);
  return gaps;
}

}  // namespace perfgate
