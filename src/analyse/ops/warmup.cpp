#include "analyse/ops/warmup.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

namespace perfgate {
namespace {

TimeNs within_spans(Interval r, const std::vector<Interval>& spans) {
  TimeNs t = 0;
  for (Interval s : spans) t += overlap(r, s);
  return t;
}

}  // namespace

Warmup warmup_in_window(const Profile& p, NameClasses& classes, const std::vector<Interval>& spans,
                        TimeNs host_start) {
  Warmup out;
  IntervalList found;
  auto consider = [&](Interval r, std::string_view prefix, std::string_view name) {
    if (within_spans(r, spans) <= 0) return;
    found.push_back(r);
    TimeNs length = r.end - r.start;
    if (length <= out.longest) return;
    out.longest = length;
    out.name = fmt::format("{}{}", prefix, name);  // Warmup::name: what it is, with its name
    out.is_range = prefix == "the range ";
    out.start = r.start - host_start;
  };
  // Runtime calls are sorted by start: the first of each name is met first.
  std::unordered_set<StringId> seen;
  for (const RuntimeCall& c : p.runtime_calls)
    if (classes.warmup_call(c.name) && seen.insert(c.name).second)
      consider({c.start, c.end}, "the first call of ", p.str(c.name));
  for (const HostEvent& e : p.host_events)
    if (classes.warmup_range(e.name)) consider({e.start, e.end}, "the range ", p.str(e.name));
  // A window from the capture's own start (an nsys export): until its first recorded event the
  // process was starting up (interpreter, imports, libraries), before any CUDA call or range.
  if (p.info.window_spans_capture && p.info.profiler_end > p.info.profiler_start) {
    TimeNs first = kMaxTimeNs;
    if (!p.runtime_calls.empty()) first = std::min(first, p.runtime_calls.front().start);
    if (!p.gpu_activities.empty()) first = std::min(first, p.gpu_activities.front().start);
    if (!p.gpu_syncs.empty()) first = std::min(first, p.gpu_syncs.front().start);
    for (const HostEvent& e : p.host_events) first = std::min(first, e.start);
    if (first != kMaxTimeNs && first > p.info.profiler_start)
      consider({p.info.profiler_start, first}, "the start-up before the first recorded event", "");
  }
  merge_in_place(found);
  for (Interval s : spans) out.time += length_within(found, s);
  return out;
}

std::optional<Note> warmup_note(const Warmup& w, TimeNs step_time) {
  if (w.time <= 0 || step_time <= 0 || static_cast<double>(w.time) < 0.05 * static_cast<double>(step_time))
    return std::nullopt;
  auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
  return note<NoteId::ops_warmup_in_window>(
      arg<"ms">(ms(w.time)), arg<"pct">(100.0 * static_cast<double>(w.time) / static_cast<double>(step_time)),
      arg<"name">(w.name), arg<"start_ms">(ms(w.start)), arg<"longest_ms">(ms(w.longest)));
}

}  // namespace perfgate
