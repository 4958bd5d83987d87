#include "analyse/gpu/launch_delay.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace perfgate {
namespace {

std::optional<TimeNs> difference(TimeNs later, TimeNs earlier) {
  TimeNs d = 0;
  if (__builtin_sub_overflow(later, earlier, &d)) return std::nullopt;
  return d;
}

void keep_least(std::optional<TimeNs>& least, std::optional<TimeNs> value) {
  if (value) least = std::min(least.value_or(*value), *value);
}

// A device-to-host copy made by a blocking call returns once the copy has ended (CUDA runtime API,
// "API synchronization behavior"): its return minus the copy's end.
std::optional<TimeNs> copy_skew(const Profile& p, const Attribution& a, std::size_t call) {
  std::optional<TimeNs> skew;
  for (std::uint32_t i : a.launched_by(call)) {
    const GpuActivity& act = p.gpu_activities[i];
    if (act.kind == GpuActivityKind::Memcpy && act.copy_kind == CopyKind::DeviceToHost)
      keep_least(skew, difference(p.runtime_calls[call].end, act.end));
  }
  return skew;
}

// A device synchronize returns once all the work launched before it has ended: its return minus
// the latest end of the activities whose launch call returned before it started. One device only
// (it synchronises the calling thread's current device, which the trace does not name).
std::optional<TimeNs> device_sync_skew(const Profile& p, const Attribution& a, NameClasses& classes) {
  std::vector<std::pair<TimeNs, TimeNs>> launched;  // (launch call end, activity end)
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    if (act.device != p.gpu_activities.front().device) return std::nullopt;
    if (a.activity_runtime[i] != kNone)
      launched.emplace_back(p.runtime_calls[a.activity_runtime[i]].end, act.end);
  }
  if (launched.empty()) return std::nullopt;
  std::sort(launched.begin(), launched.end());
  for (std::size_t i = 1; i < launched.size(); ++i)
    launched[i].second = std::max(launched[i].second, launched[i - 1].second);  // latest end so far
  std::optional<TimeNs> skew;
  for (const RuntimeCall& c : p.runtime_calls) {
    if (!classes.device_sync_call(c.name)) continue;
    auto after = std::upper_bound(launched.begin(), launched.end(),
                                  std::pair{c.start, std::numeric_limits<TimeNs>::max()});
    if (after == launched.begin()) continue;  // nothing queued before it
    keep_least(skew, difference(c.end, std::prev(after)->second));
  }
  return skew;
}

}  // namespace

LaunchDelays launch_delays(const Profile& p, const Attribution& a, NameClasses& classes) {
  LaunchDelays out;
  std::vector<TimeNs> delays;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    std::uint32_t r = a.activity_runtime[i];
    if (r == kNone) continue;
    if (auto d = difference(p.gpu_activities[i].start, p.runtime_calls[r].end)) delays.push_back(*d);
  }
  out.launched = delays.size();
  if (delays.empty()) return out;
  auto middle = delays.begin() + static_cast<std::ptrdiff_t>(delays.size() / 2);
  std::nth_element(delays.begin(), middle, delays.end());
  out.median_ns = *middle;
  out.min_ns = *std::min_element(delays.begin(), middle + 1);
  if (*out.min_ns <= kClockOffsetMinDelayNs) return out;
  out.offset_workers = 1;
  for (std::size_t r = 0; r < p.runtime_calls.size(); ++r)
    if (classes.sync_call(p.runtime_calls[r].name)) keep_least(out.sync_skew_ns, copy_skew(p, a, r));
  keep_least(out.sync_skew_ns, device_sync_skew(p, a, classes));
  return out;
}

std::optional<Note> clock_offset_note(const LaunchDelays& d) {
  if (d.offset_workers == 0 || !d.min_ns) return std::nullopt;
  auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
  auto launched = arg<"launched">(d.launched);
  auto min_ms = arg<"min_ms">(ms(*d.min_ns));
  auto median_ms = arg<"median_ms">(ms(d.median_ns.value_or(*d.min_ns)));
  // What a blocking call tells of the delays: none waited, it returned before the work it waited
  // for ended (the clocks disagree), or after it (the queue never drained).
  if (!d.sync_skew_ns) return note<NoteId::gpu_clock_offset_unknown>(launched, min_ms, median_ms);
  if (*d.sync_skew_ns < -kClockOffsetMinDelayNs)
    return note<NoteId::gpu_clock_offset_disagree>(launched, min_ms, median_ms,
                                                   arg<"skew_ms">(ms(-*d.sync_skew_ns)));
  return note<NoteId::gpu_clock_offset_queue>(launched, min_ms, median_ms,
                                              arg<"skew_ms">(ms(*d.sync_skew_ns)));
}

LaunchDelays& LaunchDelays::operator+=(const LaunchDelays& from) {
  launched += from.launched;
  if (from.min_ns) min_ns = std::min(min_ns.value_or(*from.min_ns), *from.min_ns);
  if (from.median_ns) median_ns = std::max(median_ns.value_or(*from.median_ns), *from.median_ns);
  if (from.sync_skew_ns)
    sync_skew_ns = std::min(sync_skew_ns.value_or(*from.sync_skew_ns), *from.sync_skew_ns);
  offset_workers += from.offset_workers;
  return *this;
}

}  // namespace perfgate
