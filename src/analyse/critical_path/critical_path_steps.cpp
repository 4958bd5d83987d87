// The critical path of each window step (critical_paths): the steps' rows, the ops on their
// paths and the timeline step's path on its lanes.
#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <boost/container/flat_map.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "analyse/critical_path/critical_path.h"
#include "analyse/ops/op_info.h"
#include "analyse/run/worker_hold.h"
#include "analyse/timeline/timeline.h"
#include "model/side_by_side.h"

namespace perfgate {

namespace {

// The name of the event a path stretch belongs to.
StringId path_event_name(const Profile& p, PathEventKind kind, std::uint32_t index) {
  return kind == PathEventKind::HostOp    ? p.host_events[index].name
         : kind == PathEventKind::Runtime ? p.runtime_calls[index].name
                                          : p.gpu_activities[index].name;
}

// An event's time on one path with one bound: an op's time comes in stretches (between its
// children), a GPU activity's with up to three bounds (its own, launch delay, kernel gap).
struct PathEventTime {
  PathEventKind kind;
  PathBound bound;
  std::uint32_t index;
  TimeNs time;
  std::uint32_t next;  // the entry of the same event with another bound, or kNone
};

// Each (event, bound) of the path once, in first-stretch order, its stretches' times summed.
std::vector<PathEventTime> event_times(const RangePath& path) {
  std::vector<std::uint32_t> first(path.graph_events, kNone);  // per graph event: its first entry
  std::vector<PathEventTime> out;
  out.reserve(path.events.size());
  for (const PathEvent& e : path.events) {
    std::uint32_t at = first[e.owner], prev = kNone;
    while (at != kNone && out[at].bound != e.bound) prev = std::exchange(at, out[at].next);
    if (at == kNone) {
      at = static_cast<std::uint32_t>(out.size());
      (prev == kNone ? first[e.owner] : out[prev].next) = at;
      out.push_back({e.kind, e.bound, e.index, 0, kNone});
    }
    out[at].time += e.time;
  }
  return out;
}

// The steps' path events summed by name and bound (the ops table).
class OpTotals {
 public:
  // Adds one step's path events (event_times).
  void add(const Profile& p, const std::vector<PathEventTime>& events) {
    ++steps_added_;
    for (const PathEventTime& e : events) {
      Entry& entry = rows_[key(path_event_name(p, e.kind, e.index), e.bound)];
      add_time(entry.row.time, e.time);
      ++entry.row.calls;
      if (entry.last_step != steps_added_) ++entry.row.steps;
      entry.last_step = steps_added_;
    }
  }

  // Adds another part's totals (the steps of another thread).
  void merge(const OpTotals& other) {
    for (const auto& [k, from] : other.rows_) {
      CriticalPathOpRow& row = rows_[k].row;
      add_time(row.time, from.row.time);
      row.calls += from.row.calls;
      row.steps += from.row.steps;
    }
  }

  // The rows, most time first (at most `limit`); of equal times in (name id, bound) order.
  std::vector<CriticalPathOpRow> finish(const Profile& p, std::size_t limit = kCriticalPathOps) {
    std::vector<std::pair<std::uint64_t, CriticalPathOpRow*>> sorted;
    sorted.reserve(rows_.size());
    for (auto& [k, entry] : rows_) sorted.emplace_back(k, &entry.row);
    std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
      return x.second->time != y.second->time ? x.second->time > y.second->time : x.first < y.first;
    });
    if (sorted.size() > limit) sorted.resize(limit);
    std::vector<CriticalPathOpRow> out;
    out.reserve(sorted.size());
    for (const auto& [k, row] : sorted) {
      row->name = std::string(p.str(static_cast<StringId>(k >> 8)));
      row->bound = static_cast<PathBound>(k & 0xff);
      out.push_back(std::move(*row));
    }
    return out;
  }

 private:
  struct Entry {
    CriticalPathOpRow row;
    std::size_t last_step = 0;  // the last step (of steps_added_) that added to it
  };
  static std::uint64_t key(StringId name, PathBound bound) {
    return std::uint64_t{name} << 8 | static_cast<std::uint8_t>(bound);
  }
  // One allocation for its slots, not one a row: a tiny rank's few rows made most of its cost.
  // Its order is never read: finish sorts the rows.
  boost::unordered_flat_map<std::uint64_t, Entry> rows_;
  std::size_t steps_added_ = 0;
};

// The path's stretches on the timeline's lanes: host ops on their thread's ops lane, runtime calls
// on its runtime lane, GPU activities on their stream's; relative to the timeline's step, within
// it. As on the timeline, stretches of one lane and bound shorter than a pixel of its 1000 and
// less than a pixel apart are drawn as one ("N events").
struct PathStretch {
  std::int32_t device = 0;
  std::uint32_t stream = 0;
  TimeNs start = 0;
  TimeNs end = 0;
  StringId name = kNoString;  // written once merged: short kernel names cost a parse each
  bool kernel = false;
  PathBound bound = PathBound::Cpu;
  std::uint32_t merged = 0;  // events merged into it; 0: one
};

PathStretch path_stretch(const Profile& p, const PathEvent& e, TimeNs start, TimeNs end) {
  if (e.kind == PathEventKind::Gpu) {
    const GpuActivity& a = p.gpu_activities[e.index];
    return {a.device, a.stream, start, end, a.name, a.kind == GpuActivityKind::Kernel, e.bound, 0};
  }
  bool runtime = e.kind == PathEventKind::Runtime;
  std::uint32_t thread = runtime ? p.runtime_calls[e.index].thread : p.host_events[e.index].thread;
  StringId name = runtime ? p.runtime_calls[e.index].name : p.host_events[e.index].name;
  return {runtime ? kRuntimeDevice : kHostOpsDevice,
          static_cast<std::uint32_t>(p.threads[thread].tid),
          start,
          end,
          name,
          false,
          e.bound,
          0};
}

std::vector<TimelineBox> timeline_boxes(const Profile& p, const RangePath& path, const Timeline& timeline) {
  TimeNs pixel = std::max<TimeNs>(1, timeline.step_duration / kTimelinePixels);
  boost::container::flat_map<std::pair<std::int32_t, std::uint32_t>, std::vector<PathStretch>> lanes;
  for (const PathEvent& e : path.events) {
    TimeNs start = std::max<TimeNs>(e.start - timeline.step_start, 0);
    TimeNs end = std::min<TimeNs>(e.start + e.time - timeline.step_start, timeline.step_duration);
    if (end <= start) continue;
    PathStretch s = path_stretch(p, e, start, end);
    std::vector<PathStretch>& stretches = lanes[{s.device, s.stream}];
    if (!stretches.empty()) {
      PathStretch& last = stretches.back();
      bool small = end - start < pixel && (last.end - last.start < pixel || last.merged > 0);
      if (last.bound == s.bound && small && start >= last.start && start - last.end < pixel) {
        last.end = std::max(last.end, end);
        last.merged = std::max<std::uint32_t>(last.merged, 1) + 1;
        continue;
      }
    }
    stretches.push_back(s);
  }
  std::vector<TimelineBox> out;
  ShortKernelNames short_names(p);
  for (const auto& [lane, stretches] : lanes)
    for (const PathStretch& s : stretches) {
      if (out.size() == kMaxTimelineBoxes) return out;
      std::string name = s.merged > 0 ? fmt::format("{} events", s.merged)
                         : s.kernel   ? short_names(s.name)
                                      : std::string(p.str(s.name));
      out.push_back(
          {s.device, s.stream, s.start, s.end - s.start, std::move(name), "", path_bound_name(s.bound)});
    }
  return out;
}

// The names with most time on one path, most first; of equal times the first name in string order.
std::vector<std::pair<std::string, TimeNs>> top_ops(const Profile& p,
                                                    const std::vector<PathEventTime>& events) {
  // Summed by name id (interned: equal names, equal ids); the order is the sort's below. A short
  // path (a tiny rank's step has three events) is summed in the list itself, without a map.
  constexpr std::size_t kSummedInPlace = 16;
  std::vector<std::pair<StringId, TimeNs>> names;
  if (events.size() <= kSummedInPlace) {
    names.reserve(events.size());
    for (const PathEventTime& e : events) {
      StringId name = path_event_name(p, e.kind, e.index);
      auto at = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
      if (at == names.end())
        names.emplace_back(name, e.time);
      else
        at->second += e.time;
    }
  } else {
    boost::unordered_flat_map<StringId, TimeNs> by_name;
    for (const PathEventTime& e : events) by_name[path_event_name(p, e.kind, e.index)] += e.time;
    names.assign(by_name.begin(), by_name.end());
  }
  std::size_t kept = std::min(names.size(), kPathTopOps);
  std::partial_sort(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(kept), names.end(),
                    [&](const auto& a, const auto& b) {
                      return a.second != b.second ? a.second > b.second : p.str(a.first) < p.str(b.first);
                    });
  std::vector<std::pair<std::string, TimeNs>> out;
  out.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i)
    out.emplace_back(std::string(p.str(names[i].first)), names[i].second);
  return out;
}

// `span`: the step as perfgate analyses it (Step::start to Step::end, its step time: from its host
// start, or the previous step's end where the GPU runs behind, to the end of its GPU work). A
// serving step's host annotation can end long before the GPU work it launched (a graph replay):
// shares of the host range alone would exceed 100%.
CriticalPathStep step_row(const Profile& p, const RangePath& path, const std::vector<PathEventTime>& events,
                          std::string name, std::optional<std::int64_t> number, TimeNs span) {
  CriticalPathStep row;
  row.step = std::move(name);
  row.number = number;
  row.span = std::max<TimeNs>(path.length, path_end_time(span));
  row.length = path.length;
  row.by = path.by;
  row.events = static_cast<std::uint32_t>(path.events.size());
  row.short_launches = path.short_launches;
  row.top_ops = top_ops(p, events);
  return row;
}

// Each inferred unit's path over its host range, as a step's (the first kCriticalPathUnits units),
// where the window marks no steps but repeats a unit: the gate differences the units both runs have,
// not a window's one path, which holds other units.
void unit_paths(const Profile& p, const CriticalPathAnalyser& analyser, const InferredIterations& inferred,
                CriticalPathSums& sums) {
  std::size_t n = std::min(inferred.units.size(), kCriticalPathUnits);
  for (std::size_t i = 0; i < n; ++i) {
    const InferredUnit& u = inferred.units[i];
    RangePath path = analyser.path(u.start, u.end);
    std::vector<PathEventTime> events = event_times(path);
    OpTotals ops;
    ops.add(p, events);
    sums.units.push_back(step_row(p, path, events, u.name, std::nullopt, u.end - u.start));
    sums.unit_ops.push_back(ops.finish(p, kCriticalPathUnitOps));
    for (CriticalPathOpRow& row : sums.unit_ops.back()) row.time_per_step = row.time;
  }
}

}  // namespace

CriticalPathSums critical_paths(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                                const StepDetection& steps, const Window& window, TimeNs max_kernel_gap,
                                const Timeline& timeline, unsigned threads, bool detailed) {
  CriticalPathSums sums;
  if (profile.host_events.empty() && profile.runtime_calls.empty()) return sums;
  CriticalPathAnalyser analyser(profile, attribution, classes, max_kernel_gap);
  // The ranges that name the steps enclose them: no step's work. A key op (--key-op) is work.
  if (steps.source == StepSource::ProfilerStep || steps.source == StepSource::StepPattern)
    analyser.leave_out(steps.marker_events);
  // Each step's graph is its own: the steps are cut into runs of consecutive steps, one per thread,
  // each summed on its own and joined in step order (every total is an integer sum, so the result
  // does not depend on the cut).
  struct Part {
    OpTotals ops;
    std::vector<CriticalPathStep> rows;
    std::vector<TimelineBox> timeline;
    std::uint64_t cycles = 0;
  };
  // One stretch (a step, or the window without steps) into a part; `on_timeline`: the stretch the
  // step timeline shows.
  auto walk = [&](Part& part, const std::string& name, std::optional<std::int64_t> number, TimeNs start,
                  TimeNs end, TimeNs span, bool on_timeline) {
    RangePath path = analyser.path(start, end);
    if (on_timeline) part.timeline = timeline_boxes(profile, path, timeline);
    std::vector<PathEventTime> events = event_times(path);
    if (detailed) part.ops.add(profile, events);
    part.cycles += path.had_cycle ? 1 : 0;
    part.rows.push_back(step_row(profile, path, events, name, number, span));
  };
  std::vector<Part> parts;
  // No timeline: none was built, or its step had no time; or it is on the GPUs' clock, which the
  // host's path is not.
  bool shown = detailed && timeline.step_duration > 0 && !timeline.gpu_clock;
  if (window.steps.empty()) {
    walk(parts.emplace_back(), "window", std::nullopt, window.host_start, window.host_end,
         window.end - std::min(window.start, window.host_start), shown && timeline.step == kWholeCaptureName);
    if (steps.inferred) unit_paths(profile, analyser, *steps.inferred, sums);
  } else {
    std::size_t n = window.steps.size();
    std::size_t count = std::clamp<std::size_t>(threads, 1, n);
    parts.resize(count);
    auto walk_part = [&](std::size_t k) {
      Part& part = parts[k];
      part.rows.reserve(n * (k + 1) / count - n * k / count);
      // A row a step, its name and top ops kept to the report (worker_hold.h); a hold a thread.
      RowHold hold(part.rows, [](CriticalPathStep& row) {
        row.step = std::string(row.step);
        row.top_ops = std::vector<std::pair<std::string, TimeNs>>(row.top_ops);
      });
      for (std::size_t j = n * k / count; j < n * (k + 1) / count; ++j) {
        const Step& s = steps.steps[window.steps[j]];
        walk(part, s.name, s.number, s.host_start, s.host_end, s.duration(),
             shown && s.start == timeline.step_start && s.name == timeline.step);
        hold.added();
      }
      hold.finish();
    };
    if (count == 1) {
      walk_part(0);  // on this thread, without a task list to make
    } else {
      std::vector<std::function<void()>> tasks;
      for (std::size_t k = 0; k < count; ++k) tasks.push_back([&walk_part, k] { walk_part(k); });
      run_side_by_side(threads, tasks);
    }
  }
  OpTotals ops;
  sums.steps.reserve(window.steps.size());
  for (Part& part : parts) {
    if (parts.size() == 1)
      ops = std::move(part.ops);  // the same rows as a merge into none
    else
      ops.merge(part.ops);
    sums.graph_cycles += part.cycles;
    if (!part.timeline.empty()) sums.timeline = std::move(part.timeline);
    for (CriticalPathStep& row : part.rows) sums.steps.push_back(std::move(row));
  }
  sums.ops = ops.finish(profile);
  auto path_steps = static_cast<TimeNs>(std::max<std::size_t>(sums.steps.size(), 1));
  for (CriticalPathOpRow& row : sums.ops) row.time_per_step = row.time / path_steps;
  return sums;
}

}  // namespace perfgate
