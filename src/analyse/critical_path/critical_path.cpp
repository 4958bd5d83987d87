// The critical path of a host range (critical_path.h has the definition): its graph and path.
#include "analyse/critical_path/critical_path.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analyse/critical_path/critical_path_graph.h"
#include "analyse/critical_path/sort_runs.h"

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
  // Per event of the range: what it is (8 bytes: a whole capture's graph has millions of events).
  struct Owner {
    PathEventKind kind;
    PathBound bound;
    std::uint32_t index;
  };
  std::vector<Owner> owners;
  std::vector<std::uint32_t> call_owner;  // per runtime call of [first_call, ...): its event or kNone
  std::uint32_t first_call = 0;
  // Per activity the calls of [first_call, ...) launched, in Attribution::activities' order: its
  // event or kNone.
  std::vector<std::uint32_t> gpu_owner;

  static std::uint32_t start_of(std::uint32_t owner) { return 2 * owner; }
  static std::uint32_t end_of(std::uint32_t owner) { return 2 * owner + 1; }

  std::uint32_t add_event(PathEventKind kind, std::uint32_t index, TimeNs start, TimeNs end,
                          PathBound bound) {
    auto owner = static_cast<std::uint32_t>(owners.size());
    owners.push_back({kind, bound, index});
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

  // Room for the range's events: its host items and the activities its calls launched.
  void reserve(const std::vector<std::vector<Item>>& by_thread) {
    std::size_t events = 0;
    for (const auto& items : by_thread) events += items.size();
    const Attribution& at = a.attribution_;
    if (!call_owner.empty())
      events += at.activity_offsets[first_call + call_owner.size()] - at.activity_offsets[first_call];
    owners.reserve(events);
    // About an edge per node, a few more (dependency and synchronisation edges: 0.06% more on a
    // 99 MB export): room for an eighth more, so that the edges are not moved to twice the room.
    graph.reserve(2 * events, 2 * events + events / 8 + 16);
  }
  static void sort_items(std::vector<Item>& items);
  struct Frame {
    std::uint32_t owner;
    TimeNs end;
    std::uint32_t parent;
    bool loading;
    bool blocking;
  };
  std::vector<Frame> stack;  // host_thread's, empty between threads
  void host_thread(std::vector<Item>& items);

  struct GpuWork {
    TimeNs key;
    bool sync;
    std::uint32_t index;  // GPU activity or GpuSync; kNone: a synchronous launch's wait on its work
    std::uint32_t call;   // its runtime call's event
    std::uint32_t owner;  // the activity's event
    bool waited = false;  // an activity its synchronous launch call waited for
  };
  // A launch call that returns once the work it launched is done (rules:
  // critical_path_synchronous_launches), and launched some.
  bool synchronous_launch(std::uint32_t call) const {
    return a.classes_.synchronous_launch(p.runtime_calls[call].name) &&
           !a.attribution_.launched_by(call).empty();
  }
  // Each stream's last activity's end node, in (device, stream) order.
  using StreamKey = std::pair<std::int32_t, std::uint32_t>;
  using StreamEnds = std::vector<std::pair<StreamKey, std::uint32_t>>;
  template <class Ends>  // StreamEnds, const or not
  static auto stream_end(Ends& ends, StreamKey key) {
    return std::lower_bound(ends.begin(), ends.end(), key,
                            [](const auto& entry, const StreamKey& k) { return entry.first < k; });
  }
  std::uint32_t gpu_event(std::uint32_t activity) const;
  std::vector<GpuWork> work;  // gpu_events'
  StreamEnds last_ends;       // gpu_work's
  void gpu_events();
  void gpu_sync(const GpuWork& w, const StreamEnds& last,
                std::unordered_map<std::uint32_t, std::uint32_t>& waits_for);
  void gpu_work();
  // Per device that runs its ops in order: its activities still running (a heap by end) and the
  // end node of the one that ended last.
  struct InOrder {
    std::int32_t device;
    std::vector<std::uint32_t> running;
    std::uint32_t ended;
  };
  std::vector<InOrder> in_order;
  std::uint32_t follow_in_order(std::int32_t device, std::uint32_t owner);
};

// Sorts a thread's items into walk order: by start, the longest first, then by kind and index.
// They come in runs in start order (its runtime calls, then each thread's ops folded into it):
// each run's equal starts are sorted, then the runs merged.
void PathBuilder::sort_items(std::vector<Item>& items) {
  auto walk_order = [](const Item& x, const Item& y) {
    return std::tie(x.start, y.end, x.kind, x.index) < std::tie(y.start, x.end, y.kind, y.index);
  };
  for (std::size_t i = 0, j; i < items.size(); i = j) {
    for (j = i + 1; j < items.size() && items[j].start == items[i].start;) ++j;
    if (j - i > 1)
      std::sort(items.begin() + static_cast<std::ptrdiff_t>(i),
                items.begin() + static_cast<std::ptrdiff_t>(j), walk_order);
  }
  sort_runs(items, walk_order);
}

// One thread's ops and runtime calls, nested by time and walked depth first (HTA's
// _construct_graph_from_call_stack). A range that starts where another ends is its sibling.
void PathBuilder::host_thread(std::vector<Item>& items) {
  sort_items(items);
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
    // A blocking call by name, or a runtime call that waits on the whole device (a TPU program run
    // that returned once its ops were done: the XSpace reader's context synchronisation) or on an
    // event (a TPU program run that waited for the device's earlier program).
    std::uint32_t sync = item.kind == PathEventKind::Runtime ? a.runtime_sync_[item.index] : kNone;
    bool blocking = a.classes_.blocking_call(name) ||
                    (sync != kNone && (p.gpu_syncs[sync].kind == GpuSyncKind::Context ||
                                       p.gpu_syncs[sync].kind == GpuSyncKind::Event)) ||
                    (item.kind == PathEventKind::Runtime && synchronous_launch(item.index));
    stack.push_back({owner, item.end, parent, loading, blocking});
  }
  while (!stack.empty()) leave();
}

// The event of a GPU activity in the graph, or kNone.
std::uint32_t PathBuilder::gpu_event(std::uint32_t activity) const {
  const Attribution& at = a.attribution_;
  std::uint32_t r = activity == kNone ? kNone : at.activity_runtime[activity];
  if (r == kNone || r < first_call || r - first_call >= call_owner.size()) return kNone;
  auto launched = at.launched_by(r);
  auto it = std::find(launched.begin(), launched.end(), activity);
  if (it == launched.end()) return kNone;
  return gpu_owner[at.activity_offsets[r] - at.activity_offsets[first_call] +
                   static_cast<std::size_t>(it - launched.begin())];
}

// An event for each GPU activity the range's calls launched, and the work to walk: those
// activities at their start and the calls' synchronisations at their end.
void PathBuilder::gpu_events() {
  const Attribution& at = a.attribution_;
  work.clear();
  if (call_owner.empty()) return;
  gpu_owner.assign(at.activity_offsets[first_call + call_owner.size()] - at.activity_offsets[first_call],
                   kNone);
  for (std::uint32_t i = 0, slot = 0; i < call_owner.size(); ++i) {
    std::uint32_t call = call_owner[i];
    bool waits = call != kNone && synchronous_launch(first_call + i);
    for (std::uint32_t g : at.launched_by(first_call + i)) {
      std::uint32_t& owner = gpu_owner[slot++];
      if (call == kNone) continue;
      const GpuActivity& act = p.gpu_activities[g];
      bool comm = act.kind == GpuActivityKind::Kernel && a.classes_.communication_kernel(act.name);
      owner = add_event(PathEventKind::Gpu, g, path_start_time(act.start), path_end_time(act.end),
                        comm ? PathBound::Communication : PathBound::GpuCompute);
      work.push_back({path_start_time(act.start), false, g, call, owner, waits});
      // The call returns once this work is done: its end waits on the work's end, where that ended
      // by then (as an event synchronisation joins only work that ended by the call's end).
      TimeNs call_end = path_end_time(p.runtime_calls[first_call + i].end);
      if (waits && path_end_time(act.end) <= call_end) work.push_back({call_end, true, kNone, call, owner});
    }
  }
  for (std::uint32_t i = 0; i < call_owner.size(); ++i) {
    std::uint32_t s = a.runtime_sync_[first_call + i];
    if (call_owner[i] != kNone && s != kNone)
      work.push_back({path_end_time(p.gpu_syncs[s].end), true, s, call_owner[i], kNone});
  }
  sort_runs(work, [](const GpuWork& x, const GpuWork& y) { return x.key < y.key; });
}

// A synchronisation's edges from the GPU work it waits for; a Stream Wait Event's wait is kept
// for the activity made to wait (`waits_for`). An event's waiter joins the recorded work only where
// that ended by the call's end: a cudaEventQuery that returned "not ready" (CUPTI writes an Event
// Sync for it) waited for nothing. A stream or context synchronisation joins its streams' last
// work whatever its end, as HTA: nsys exports show work another thread queued ending microseconds
// after the call returned.
void PathBuilder::gpu_sync(const GpuWork& w, const StreamEnds& last,
                           std::unordered_map<std::uint32_t, std::uint32_t>& waits_for) {
  const GpuSync& s = p.gpu_syncs[w.index];
  const CriticalPathAnalyser::SyncTarget& target = a.sync_targets_[w.index];
  std::uint32_t call_end = end_of(w.call);
  auto join = [&](std::uint32_t waited_end) {
    graph.add_edge(waited_end, call_end, PathEdgeType::Sync, kNone);
  };
  if (s.kind == GpuSyncKind::StreamWaitEvent) {
    if (target.waited != kNone && target.next != kNone) waits_for[target.next] = target.waited;
  } else if (s.kind == GpuSyncKind::Event) {
    std::uint32_t waited = gpu_event(target.waited);
    if (waited != kNone && graph.time(end_of(waited)) <= graph.time(call_end)) join(end_of(waited));
  } else if (s.kind == GpuSyncKind::Context) {
    for (const auto& [stream, node] : last) join(node);
  } else if (s.stream >= 0) {
    StreamKey key{s.device, static_cast<std::uint32_t>(s.stream)};
    if (auto it = stream_end(last, key); it != last.end() && it->first == key) join(it->second);
  }
}

// The GPU activities the range's runtime calls launched, per stream in start order, and the
// synchronisations of its runtime calls in end order (HTA's _construct_graph_from_kernels).
void PathBuilder::gpu_work() {
  StreamEnds& last = last_ends;
  last.clear();
  std::unordered_map<std::uint32_t, std::uint32_t> waits_for;  // activity -> activity
  gpu_events();
  for (const GpuWork& w : work) {
    if (w.sync && w.index == kNone) {
      graph.add_edge(end_of(w.owner), end_of(w.call), PathEdgeType::Sync, kNone);
      continue;
    }
    if (w.sync) {
      gpu_sync(w, last, waits_for);
      continue;
    }
    const GpuActivity& act = p.gpu_activities[w.index];
    std::uint32_t owner = w.owner;
    graph.add_edge(start_of(owner), end_of(owner), PathEdgeType::Operator, owner);
    std::uint32_t sync_end = kNone;
    if (auto it = waits_for.find(w.index); it != waits_for.end()) {
      std::uint32_t waited = gpu_event(it->second);
      sync_end = waited == kNone ? kNone : end_of(waited);
      if (sync_end != kNone) graph.add_edge(sync_end, start_of(owner), PathEdgeType::Sync, kNone);
      waits_for.erase(it);
    }
    StreamKey key{act.device, act.stream};
    auto prev_it = stream_end(last, key);
    bool seen = prev_it != last.end() && prev_it->first == key;
    std::uint32_t prev = seen ? prev_it->second : kNone;
    TimeNs launched = graph.time(start_of(w.call));
    // On a device that runs its ops in order, an op that followed the device's op before it, which
    // ran after the launch, waited for that op, not for its launch.
    std::uint32_t before = a.in_order_devices_.empty() ? kNone : follow_in_order(act.device, owner);
    // A synchronous launch's work is reached from its call whatever the queue: the call waited.
    bool launch_delay = (before == kNone || graph.time(before) < launched) &&
                        ((w.waited && (prev == kNone || graph.time(prev) <= launched)) ||
                         (a.queue_at_launch_[w.index] == 1 && a.queue_at_start_[w.index] == 0 &&
                          (prev == kNone || graph.time(prev) < launched) &&
                          (sync_end == kNone || graph.time(sync_end) < launched)));
    if (launch_delay)
      graph.add_edge(start_of(w.call), start_of(owner), PathEdgeType::LaunchDelay, owner);
    else if (prev != kNone && graph.time(start_of(owner)) - graph.time(prev) < a.max_kernel_gap_ &&
             (sync_end == kNone || graph.time(sync_end) < graph.time(prev)))
      graph.add_edge(prev, start_of(owner), PathEdgeType::KernelGap, prev / 2);
    if (seen)
      prev_it->second = end_of(owner);
    else
      last.insert(prev_it, {key, end_of(owner)});
  }
}

// On a device that runs its ops in order: an edge from the activity of the device that ended last
// before this one started (what its program waited for: a transfer its copy-done waited on, or the
// op before it), under the kernel gap. Returns that activity's end node, or kNone.
std::uint32_t PathBuilder::follow_in_order(std::int32_t device, std::uint32_t owner) {
  if (!std::binary_search(a.in_order_devices_.begin(), a.in_order_devices_.end(), device)) return kNone;
  auto it =
      std::find_if(in_order.begin(), in_order.end(), [&](const InOrder& d) { return d.device == device; });
  if (it == in_order.end()) it = in_order.insert(in_order.end(), InOrder{device, {}, kNone});
  InOrder& d = *it;
  TimeNs start = graph.time(start_of(owner));
  auto later = [&](std::uint32_t x, std::uint32_t y) { return graph.time(x) > graph.time(y); };
  while (!d.running.empty() && graph.time(d.running.front()) <= start) {
    std::uint32_t ended = d.running.front();
    std::pop_heap(d.running.begin(), d.running.end(), later);
    d.running.pop_back();
    if (d.ended == kNone || graph.time(ended) >= graph.time(d.ended)) d.ended = ended;
  }
  std::uint32_t before = kNone;
  if (d.ended != kNone && start - graph.time(d.ended) < a.max_kernel_gap_) {
    before = d.ended;
    graph.add_edge(before, start_of(owner), PathEdgeType::KernelGap, before / 2);
  }
  d.running.push_back(end_of(owner));
  std::push_heap(d.running.begin(), d.running.end(), later);
  return before;
}

namespace {

// The buffers of a thread's last path, lent to its next: a tiny rank's step made about 25
// allocations a path, most of its critical path's cost (issue 78). One grown past kKeptPathBytes
// is let go once used, as every buffer was before.
constexpr std::size_t kKeptPathBytes = std::size_t{64} << 10;

struct PathBuffers {
  PathGraph graph;
  PathGraph::Work work;
  std::vector<PathBuilder::Owner> owners;
  std::vector<std::uint32_t> call_owner;
  std::vector<std::uint32_t> gpu_owner;
  std::vector<PathBuilder::Frame> stack;
  std::vector<PathBuilder::GpuWork> gpu_work;
  PathBuilder::StreamEnds ends;
  std::vector<std::vector<PathBuilder::Item>> by_thread;  // each emptied, its room kept
};

thread_local PathBuffers t_path_buffers;

template <class T>
std::size_t capacity_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
std::size_t capacity_bytes(const PathGraph& g) {
  return g.capacity_bytes();
}
std::size_t capacity_bytes(const PathGraph::Work& w) {
  return w.capacity_bytes();
}
std::size_t capacity_bytes(const std::vector<std::vector<PathBuilder::Item>>& by_thread) {
  std::size_t bytes = by_thread.capacity() * sizeof(by_thread[0]);
  for (const auto& items : by_thread) bytes += items.capacity() * sizeof(PathBuilder::Item);
  return bytes;
}

// A kept buffer, empty (a moved-from vector is).
template <class Buffer>
Buffer lend(Buffer& kept) {
  Buffer out = std::move(kept);
  out.clear();
  return out;
}

// Keeps a used buffer for the thread's next path unless it grew past kKeptPathBytes.
template <class Buffer>
void give_back(Buffer& kept, Buffer&& used) {
  if (capacity_bytes(used) <= kKeptPathBytes) kept = std::move(used);
}

}  // namespace

void CriticalPathAnalyser::leave_out(const std::vector<std::uint32_t>& host_events) {
  if (host_events.empty()) return;
  left_out_.assign(profile_.host_events.size(), false);
  for (std::uint32_t e : host_events)
    if (e < left_out_.size()) left_out_[e] = true;
}

RangePath CriticalPathAnalyser::path(TimeNs start, TimeNs end) const {
  const Profile& p = profile_;
  TimeNs first = path_start_time(start), last = path_end_time(end);
  PathBuffers& kept = t_path_buffers;
  PathBuilder b{*this,
                p,
                lend(kept.graph),
                lend(kept.owners),
                lend(kept.call_owner),
                0,
                lend(kept.gpu_owner),
                lend(kept.stack),
                lend(kept.gpu_work),
                lend(kept.ends),
                {}};
  std::uint32_t out_short_launches = 0;
  // Runtime calls starting in [first, last] after rounding: a start above first - 1000.
  auto call_begin = std::lower_bound(p.runtime_calls.begin(), p.runtime_calls.end(), first - 999,
                                     [](const RuntimeCall& c, TimeNs t) { return c.start < t; });
  auto call_end = std::upper_bound(call_begin, p.runtime_calls.end(), last,
                                   [](TimeNs t, const RuntimeCall& c) { return t < c.start; });
  b.first_call = static_cast<std::uint32_t>(call_begin - p.runtime_calls.begin());
  b.call_owner.assign(static_cast<std::size_t>(call_end - call_begin), kNone);
  std::vector<std::vector<PathBuilder::Item>> by_thread = std::move(kept.by_thread);
  for (auto& items : by_thread) items.clear();
  by_thread.resize(p.threads.size());
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
      auto index = static_cast<std::uint32_t>(it - p.host_events.begin());
      if (it->kind == HostKind::Op && e > s && (left_out_.empty() || !left_out_[index]))
        by_thread[walk].push_back({s, e, PathEventKind::HostOp, index});
    }
  }
  b.reserve(by_thread);
  for (auto& items : by_thread)
    if (!items.empty()) b.host_thread(items);
  // Walked: kept for the next path, or freed before the GPU work's edges and the path's arrays are made.
  give_back(kept.by_thread, std::move(by_thread));
  by_thread = {};
  b.gpu_work();

  PathGraph::Work work = std::move(kept.work);
  PathGraph::Path found = b.graph.longest_path(work);
  RangePath out;
  out.short_launches = out_short_launches;
  out.length = found.length;
  out.had_cycle = found.had_cycle;
  out.graph_events = static_cast<std::uint32_t>(b.owners.size());
  out.events.reserve(found.edges.size());
  for (const PathEdge& e : found.edges) {
    TimeNs weight = b.graph.weight(e);
    if (weight <= 0) continue;
    if (e.owner == kNone) {  // an end to a start with no enclosing event: host time
      out.by[static_cast<std::size_t>(PathBound::Cpu)] += weight;
      continue;
    }
    const PathBuilder::Owner& owner = b.owners[e.owner];
    PathEvent event{owner.kind, owner.bound, owner.index, e.owner};
    if (e.type == PathEdgeType::LaunchDelay) event.bound = PathBound::LaunchOverhead;
    if (e.type == PathEdgeType::KernelGap) event.bound = PathBound::KernelGap;
    event.start = b.graph.time(e.from);
    event.time = weight;
    out.by[static_cast<std::size_t>(event.bound)] += weight;
    out.events.push_back(event);
  }
  give_back(kept.work, std::move(work));
  give_back(kept.graph, std::move(b.graph));
  give_back(kept.owners, std::move(b.owners));
  give_back(kept.call_owner, std::move(b.call_owner));
  give_back(kept.gpu_owner, std::move(b.gpu_owner));
  give_back(kept.stack, std::move(b.stack));
  give_back(kept.gpu_work, std::move(b.work));
  give_back(kept.ends, std::move(b.last_ends));
  return out;
}

}  // namespace perfgate
