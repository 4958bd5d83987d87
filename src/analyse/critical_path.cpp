// The critical path of a host range (critical_path.h has the definition), and of each window step.
#include "analyse/critical_path.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "analyse/critical_path_graph.h"
#include "analyse/op_info.h"
#include "analyse/timeline.h"
#include "model/side_by_side.h"

namespace perfgate {

const char* path_bound_name(PathBound bound) {
  switch (bound) {
    case PathBound::Cpu:
      return "cpu_bound";
    case PathBound::DataLoading:
      return "data_loading";
    case PathBound::LaunchOverhead:
      return "gpu_kernel_launch_overhead";
    case PathBound::KernelGap:
      return "gpu_kernel_kernel_overhead";
    case PathBound::GpuCompute:
      return "gpu_compute_bound";
    case PathBound::Communication:
      break;
  }
  return "gpu_communication_bound";
}

// Builds one range's graph. Every event gets two nodes, its start (2 * owner) and its end
// (2 * owner + 1), so a node's event and side need no table.
struct PathBuilder {
  const CriticalPathAnalyser& a;
  const Profile& p;
  PathGraph graph;
  std::vector<PathEvent> owners;          // per event of the range (time: unused)
  std::vector<std::uint32_t> call_owner;  // per runtime call of [first_call, ...): its event or kNone
  std::uint32_t first_call = 0;
  std::unordered_map<std::uint32_t, std::uint32_t> gpu_owner;  // GPU activity -> its event

  static std::uint32_t start_of(std::uint32_t owner) { return 2 * owner; }
  static std::uint32_t end_of(std::uint32_t owner) { return 2 * owner + 1; }

  std::uint32_t add_event(PathEventKind kind, std::uint32_t index, TimeNs start, TimeNs end,
                          PathBound bound) {
    auto owner = static_cast<std::uint32_t>(owners.size());
    owners.push_back({kind, bound, index, owner});
    graph.add_node(start);
    graph.add_node(end);
    return owner;
  }

  struct Item {
    TimeNs start;
    TimeNs end;
    PathEventKind kind;
    std::uint32_t index;
  };

  void host_thread(std::vector<Item>& items);
  void gpu_work(TimeNs start, TimeNs end);
};

// One thread's ops and runtime calls, nested by time and walked depth first (HTA's
// _construct_graph_from_call_stack). A range that starts where another ends is its sibling.
void PathBuilder::host_thread(std::vector<Item>& items) {
  std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
    return std::make_tuple(x.start, y.end, x.kind, x.index) <
           std::make_tuple(y.start, x.end, y.kind, y.index);
  });
  struct Frame {
    std::uint32_t owner;
    TimeNs end;
    std::uint32_t parent;
    bool loading;
    bool blocking;
  };
  std::vector<Frame> stack;
  std::uint32_t last = kNone, last_parent = kNone, last_top_end = kNone;
  // HTA's _attribute_edge: a start's own event, else an end's, else (an end to a start) the parent.
  auto owner_of = [&](std::uint32_t from, std::uint32_t to) {
    if (from % 2 == 0) return from / 2;
    if (to % 2 == 1) return to / 2;
    return last_parent;
  };
  auto leave = [&] {
    Frame f = stack.back();
    stack.pop_back();
    if (last != kNone)
      graph.add_edge(last, end_of(f.owner), PathEdgeType::Operator, owner_of(last, end_of(f.owner)),
                     f.blocking);
    if (stack.empty()) {
      last = kNone;
      last_top_end = end_of(f.owner);
    } else {
      last = end_of(f.owner);
      last_parent = f.parent;
    }
  };
  for (const Item& item : items) {
    while (!stack.empty() && stack.back().end <= item.start) leave();
    std::uint32_t parent = stack.empty() ? kNone : stack.back().owner;
    StringId name = item.kind == PathEventKind::HostOp ? p.host_events[item.index].name
                                                       : p.runtime_calls[item.index].name;
    bool loading = (!stack.empty() && stack.back().loading) ||
                   (item.kind == PathEventKind::HostOp && a.classes_.dataloader_op(name));
    std::uint32_t owner = add_event(item.kind, item.index, item.start, item.end,
                                    loading ? PathBound::DataLoading : PathBound::Cpu);
    if (item.kind == PathEventKind::Runtime) call_owner[item.index - first_call] = owner;
    if (stack.empty() && last_top_end != kNone)
      graph.add_edge(last_top_end, start_of(owner), PathEdgeType::Dependency, kNone);
    if (last != kNone)
      graph.add_edge(last, start_of(owner), PathEdgeType::Operator, owner_of(last, start_of(owner)));
    last = start_of(owner);
    last_parent = parent;
    stack.push_back({owner, item.end, parent, loading, a.classes_.blocking_call(name)});
  }
  while (!stack.empty()) leave();
}

// The GPU activities the range's runtime calls launched, per stream in start order, and the
// synchronisations of its runtime calls in end order (HTA's _construct_graph_from_kernels).
void PathBuilder::gpu_work(TimeNs start, TimeNs end) {
  (void)start;
  (void)end;
  struct Work {
    TimeNs key;
    bool sync;
    std::uint32_t index;  // GPU activity or GpuSync
    std::uint32_t call;   // its runtime call's event
  };
  std::vector<Work> work;
  for (std::uint32_t i = 0; i < call_owner.size(); ++i) {
    std::uint32_t call = call_owner[i];
    if (call == kNone) continue;
    for (std::uint32_t g : a.attribution_.launched_by(first_call + i)) {
      const GpuActivity& act = p.gpu_activities[g];
      bool comm = act.kind == GpuActivityKind::Kernel && a.classes_.communication_kernel(act.name);
      gpu_owner[g] = add_event(PathEventKind::Gpu, g, path_start_time(act.start), path_end_time(act.end),
                               comm ? PathBound::Communication : PathBound::GpuCompute);
      work.push_back({path_start_time(act.start), false, g, call});
    }
  }
  for (std::uint32_t i = 0; i < call_owner.size(); ++i) {
    std::uint32_t s = a.runtime_sync_[first_call + i];
    if (call_owner[i] != kNone && s != kNone)
      work.push_back({path_end_time(p.gpu_syncs[s].end), true, s, call_owner[i]});
  }
  std::stable_sort(work.begin(), work.end(), [](const Work& x, const Work& y) { return x.key < y.key; });

  std::map<std::pair<std::int32_t, std::uint32_t>, std::uint32_t> last;  // (device, stream) -> end node
  std::unordered_map<std::uint32_t, std::uint32_t> waits_for;            // activity -> activity
  auto end_node_of = [&](std::uint32_t activity) {
    auto it = activity == kNone ? gpu_owner.end() : gpu_owner.find(activity);
    return it == gpu_owner.end() ? kNone : end_of(it->second);
  };
  for (const Work& w : work) {
    if (w.sync) {
      const GpuSync& s = p.gpu_syncs[w.index];
      const CriticalPathAnalyser::SyncTarget& target = a.sync_targets_[w.index];
      std::uint32_t call_end = end_of(w.call);
      if (s.kind == GpuSyncKind::StreamWaitEvent) {
        if (target.waited != kNone && target.next != kNone) waits_for[target.next] = target.waited;
      } else if (s.kind == GpuSyncKind::Event) {
        std::uint32_t waited = end_node_of(target.waited);
        if (waited != kNone) graph.add_edge(waited, call_end, PathEdgeType::Sync, kNone);
      } else if (s.kind == GpuSyncKind::Context) {
        for (const auto& [stream, node] : last) graph.add_edge(node, call_end, PathEdgeType::Sync, kNone);
      } else if (s.stream >= 0) {
        auto it = last.find({s.device, static_cast<std::uint32_t>(s.stream)});
        if (it != last.end()) graph.add_edge(it->second, call_end, PathEdgeType::Sync, kNone);
      }
      continue;
    }
    const GpuActivity& act = p.gpu_activities[w.index];
    std::uint32_t owner = gpu_owner[w.index];
    graph.add_edge(start_of(owner), end_of(owner), PathEdgeType::Operator, owner);
    std::uint32_t sync_end = kNone;
    if (auto it = waits_for.find(w.index); it != waits_for.end()) {
      sync_end = end_node_of(it->second);
      if (sync_end != kNone) graph.add_edge(sync_end, start_of(owner), PathEdgeType::Sync, kNone);
      waits_for.erase(it);
    }
    auto key = std::make_pair(act.device, act.stream);
    auto prev = last.find(key);
    TimeNs launched = graph.time(start_of(w.call));
    bool launch_delay = a.queue_at_launch_[w.index] == 1 && a.queue_at_start_[w.index] == 0 &&
                        (prev == last.end() || graph.time(prev->second) < launched) &&
                        (sync_end == kNone || graph.time(sync_end) < launched);
    if (launch_delay)
      graph.add_edge(start_of(w.call), start_of(owner), PathEdgeType::LaunchDelay, owner);
    else if (prev != last.end() &&
             graph.time(start_of(owner)) - graph.time(prev->second) < a.max_kernel_gap_ &&
             (sync_end == kNone || graph.time(sync_end) < graph.time(prev->second)))
      graph.add_edge(prev->second, start_of(owner), PathEdgeType::KernelGap, prev->second / 2);
    last[key] = end_of(owner);
  }
}

RangePath CriticalPathAnalyser::path(TimeNs start, TimeNs end) const {
  const Profile& p = profile_;
  TimeNs first = path_start_time(start), last = path_end_time(end);
  PathBuilder b{*this, p, {}, {}, {}, 0, {}};
  std::uint32_t out_short_launches = 0;
  // Runtime calls starting in [first, last] after rounding: a start above first - 1000.
  auto call_begin = std::lower_bound(p.runtime_calls.begin(), p.runtime_calls.end(), first - 999,
                                     [](const RuntimeCall& c, TimeNs t) { return c.start < t; });
  auto call_end = std::upper_bound(call_begin, p.runtime_calls.end(), last,
                                   [](TimeNs t, const RuntimeCall& c) { return t < c.start; });
  b.first_call = static_cast<std::uint32_t>(call_begin - p.runtime_calls.begin());
  b.call_owner.assign(static_cast<std::size_t>(call_end - call_begin), kNone);
  std::vector<std::vector<PathBuilder::Item>> by_thread(p.threads.size());
  for (auto it = call_begin; it != call_end; ++it) {
    TimeNs s = path_start_time(it->start), e = path_end_time(it->end);
    // HTA leaves out what lasts under 1 us once rounded: a launch call so short takes the GPU work
    // it launched off the graph too, which the report says.
    if (e <= s && !attribution_.launched_by(static_cast<std::uint32_t>(it - p.runtime_calls.begin())).empty())
      ++out_short_launches;
    if (e > s && it->thread < by_thread.size())
      by_thread[walk_thread_[it->thread]].push_back(
          {s, e, PathEventKind::Runtime, static_cast<std::uint32_t>(it - p.runtime_calls.begin())});
  }
  for (std::uint32_t t = 0; t < p.threads.size(); ++t) {
    std::uint32_t walk = walk_thread_[t];
    auto begin = p.host_events.begin() + thread_begin_[t],
         stop = p.host_events.begin() + thread_begin_[t + 1];
    auto from =
        std::lower_bound(begin, stop, first - 999, [](const HostEvent& h, TimeNs x) { return h.start < x; });
    for (auto it = from; it != stop && it->start <= last; ++it) {
      TimeNs s = path_start_time(it->start), e = path_end_time(it->end);
      if (it->kind == HostKind::Op && e > s)
        by_thread[walk].push_back(
            {s, e, PathEventKind::HostOp, static_cast<std::uint32_t>(it - p.host_events.begin())});
    }
  }
  for (auto& items : by_thread)
    if (!items.empty()) b.host_thread(items);
  b.gpu_work(first, last);

  PathGraph::Path found = b.graph.longest_path();
  RangePath out;
  out.short_launches = out_short_launches;
  out.length = found.length;
  out.had_cycle = found.had_cycle;
  out.graph_events = static_cast<std::uint32_t>(b.owners.size());
  for (const PathEdge& e : found.edges) {
    if (e.weight <= 0) continue;
    if (e.owner == kNone) {  // an end to a start with no enclosing event: host time
      out.by[static_cast<std::size_t>(PathBound::Cpu)] += e.weight;
      continue;
    }
    PathEvent event = b.owners[e.owner];
    if (e.type == PathEdgeType::LaunchDelay) event.bound = PathBound::LaunchOverhead;
    if (e.type == PathEdgeType::KernelGap) event.bound = PathBound::KernelGap;
    event.start = b.graph.time(e.from);
    event.time = e.weight;
    out.by[static_cast<std::size_t>(event.bound)] += e.weight;
    out.events.push_back(event);
  }
  return out;
}

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

  // The rows, most time first; of equal times in (name id, bound) order.
  std::vector<CriticalPathOpRow> finish(const Profile& p) {
    std::vector<std::pair<std::uint64_t, CriticalPathOpRow*>> sorted;
    sorted.reserve(rows_.size());
    for (auto& [k, entry] : rows_) sorted.emplace_back(k, &entry.row);
    std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
      return x.second->time != y.second->time ? x.second->time > y.second->time : x.first < y.first;
    });
    if (sorted.size() > kCriticalPathOps) sorted.resize(kCriticalPathOps);
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
  std::unordered_map<std::uint64_t, Entry> rows_;
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
  std::map<std::pair<std::int32_t, std::uint32_t>, std::vector<PathStretch>> lanes;
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
  for (const auto& [lane, stretches] : lanes)
    for (const PathStretch& s : stretches) {
      if (out.size() == kMaxTimelineBoxes) return out;
      std::string name = s.merged > 0 ? fmt::format("{} events", s.merged)
                         : s.kernel   ? short_kernel_name(p.str(s.name))
                                      : std::string(p.str(s.name));
      out.push_back(
          {s.device, s.stream, s.start, s.end - s.start, std::move(name), "", path_bound_name(s.bound)});
    }
  return out;
}

// The names with most time on one path, most first; of equal times the first name in string order.
std::vector<std::pair<std::string, TimeNs>> top_ops(const Profile& p,
                                                    const std::vector<PathEventTime>& events) {
  std::unordered_map<StringId, TimeNs> by_name;  // interned: equal names, equal ids
  for (const PathEventTime& e : events) by_name[path_event_name(p, e.kind, e.index)] += e.time;
  std::vector<std::pair<StringId, TimeNs>> names(by_name.begin(), by_name.end());
  std::size_t kept = std::min(names.size(), kPathTopOps);
  std::partial_sort(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(kept), names.end(),
                    [&](const auto& a, const auto& b) {
                      return a.second != b.second ? a.second > b.second : p.str(a.first) < p.str(b.first);
                    });
  std::vector<std::pair<std::string, TimeNs>> out;
  for (std::size_t i = 0; i < kept; ++i)
    out.emplace_back(std::string(p.str(names[i].first)), names[i].second);
  return out;
}

CriticalPathStep step_row(const Profile& p, const RangePath& path, const std::vector<PathEventTime>& events,
                          std::string name, std::optional<std::int64_t> number, TimeNs start, TimeNs end) {
  CriticalPathStep row;
  row.step = std::move(name);
  row.number = number;
  row.span = std::max<TimeNs>(0, path_end_time(end) - path_start_time(start));
  row.length = path.length;
  row.by = path.by;
  row.events = static_cast<std::uint32_t>(path.events.size());
  row.short_launches = path.short_launches;
  row.top_ops = top_ops(p, events);
  return row;
}

}  // namespace

CriticalPathSums critical_paths(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                                const StepDetection& steps, const Window& window, TimeNs max_kernel_gap,
                                const Timeline& timeline, unsigned threads) {
  CriticalPathSums sums;
  if (profile.host_events.empty() && profile.runtime_calls.empty()) return sums;
  CriticalPathAnalyser analyser(profile, attribution, classes, max_kernel_gap);
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
                  TimeNs end, bool on_timeline) {
    RangePath path = analyser.path(start, end);
    if (on_timeline) part.timeline = timeline_boxes(profile, path, timeline);
    std::vector<PathEventTime> events = event_times(path);
    part.ops.add(profile, events);
    part.cycles += path.had_cycle ? 1 : 0;
    part.rows.push_back(step_row(profile, path, events, name, number, start, end));
  };
  std::vector<Part> parts;
  if (window.steps.empty()) {
    walk(parts.emplace_back(), "window", std::nullopt, window.host_start, window.host_end,
         timeline.step == kWholeCaptureName);
  } else {
    std::size_t n = window.steps.size();
    std::size_t count = std::clamp<std::size_t>(threads, 1, n);
    parts.resize(count);
    std::vector<std::function<void()>> tasks;
    for (std::size_t k = 0; k < count; ++k)
      tasks.push_back([&, k] {
        Part& part = parts[k];
        for (std::size_t j = n * k / count; j < n * (k + 1) / count; ++j) {
          const Step& s = steps.steps[window.steps[j]];
          walk(part, s.name, s.number, s.host_start, s.host_end,
               s.start == timeline.step_start && s.name == timeline.step);
        }
      });
    run_side_by_side(threads, tasks);
  }
  OpTotals ops;
  for (Part& part : parts) {
    ops.merge(part.ops);
    sums.graph_cycles += part.cycles;
    if (!part.timeline.empty()) sums.timeline = std::move(part.timeline);
    for (CriticalPathStep& row : part.rows) sums.steps.push_back(std::move(row));
  }
  sums.ops = ops.finish(profile);
  return sums;
}

}  // namespace perfgate
