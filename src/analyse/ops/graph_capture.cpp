// Graph-capture traces merged into a replay trace (docs/metrics.md, "Graph replay"). The capture
// trace records, between hipStreamBeginCapture/cudaStreamBeginCapture and the matching EndCapture,
// each launch the graph will replay, with the op and modules that issued it and (ROCm) the kernel it
// names; no kernel runs. Each graph launch of the replay is aligned with the captured graph whose
// launches its kernels match best, by kind, kernel name and order (alignment.h); the ops and module
// frames above each placed launch are copied into the replay inside the launch's span, and each
// placed kernel names its op by External id, which the attribution follows (graph_replay.cpp).
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "analyse/analysis.h"
#include "analyse/attribution.h"
#include "analyse/name_matcher.h"
#include "analyse/ops/graph_alignment.h"
#include "analyse/ops/graph_replay.h"

namespace perfgate {
namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::optional<GpuActivityKind> node_kind(std::string_view call, bool names_kernel) {
  if (names_kernel || contains(call, "Launch")) return GpuActivityKind::Kernel;
  if (contains(call, "Memcpy")) return GpuActivityKind::Memcpy;
  if (contains(call, "Memset")) return GpuActivityKind::Memset;
  return std::nullopt;
}

// The capture's events inside the graph's window above the owners of its placed nodes, in index
// order (parents before children).
std::vector<std::uint32_t> placed_events(const CapturedGraph& g, const std::vector<std::uint32_t>& node_of) {
  const Profile& c = *g.capture;
  std::vector<bool> needed(c.host_events.size(), false);
  for (std::uint32_t node : node_of) {
    if (node == kNone) continue;
    for (std::uint32_t e = g.nodes[node].owner; e != kNone && !needed[e]; e = c.host_events[e].parent) {
      const HostEvent& h = c.host_events[e];
      if (h.start < g.start || h.end > g.end) break;
      needed[e] = true;
    }
  }
  std::vector<std::uint32_t> events;
  for (std::uint32_t e = 0; e < needed.size(); ++e)
    if (needed[e]) events.push_back(e);
  return events;
}

// The graphs of one capture trace, in capture order, their names interned in `replay`'s pool.
std::vector<CapturedGraph> captured_graphs(const Profile& c, Profile& replay) {
  Attribution a = attribute(c);
  std::unordered_map<std::int64_t, StringId> kernel_of;
  for (const LaunchedKernel& k : c.launched_kernels) kernel_of[k.correlation] = k.kernel;
  std::vector<CapturedGraph> graphs;
  std::map<std::uint32_t, TimeNs> open;  // per thread: where its capture began
  for (std::uint32_t r = 0; r < c.runtime_calls.size(); ++r) {
    const RuntimeCall& call = c.runtime_calls[r];
    std::string_view name = c.str(call.name);
    if (contains(name, "StreamBeginCapture")) {
      open[call.thread] = call.end;
    } else if (contains(name, "StreamEndCapture") && open.count(call.thread)) {
      graphs.push_back({&c, open[call.thread], call.start, {}});
      open.erase(call.thread);
    }
  }
  // The calls by start, once: each window takes those that start in it, in call order as before
  // (a scan of every call per window was O(graphs x calls)).
  std::vector<std::uint32_t> by_start(c.runtime_calls.size());
  for (std::uint32_t r = 0; r < by_start.size(); ++r) by_start[r] = r;
  std::stable_sort(by_start.begin(), by_start.end(), [&](std::uint32_t x, std::uint32_t y) {
    return c.runtime_calls[x].start < c.runtime_calls[y].start;
  });
  std::vector<std::uint32_t> inside;
  for (CapturedGraph& g : graphs) {
    inside.clear();
    auto from = std::lower_bound(by_start.begin(), by_start.end(), g.start,
                                 [&](std::uint32_t r, TimeNs t) { return c.runtime_calls[r].start < t; });
    for (auto it = from; it != by_start.end() && c.runtime_calls[*it].start <= g.end; ++it)
      if (c.runtime_calls[*it].end <= g.end) inside.push_back(*it);
    std::sort(inside.begin(), inside.end());
    for (std::uint32_t r : inside) {
      const RuntimeCall& call = c.runtime_calls[r];
      auto named = kernel_of.find(call.correlation);
      bool names_kernel = named != kernel_of.end();
      std::optional<GpuActivityKind> kind = node_kind(c.str(call.name), names_kernel);
      if (!kind) continue;
      StringId kernel = names_kernel ? replay.strings.intern(c.str(named->second)) : kNoString;
      g.nodes.push_back({*kind, kernel, a.runtime_owner[r]});
    }
  }
  return graphs;
}

// Copies the graph's events into the replay inside the launch's span on its thread (times scaled
// from the capture window into the launch: nesting is kept, durations are not measurements) and
// points each placed activity at the copy of its node's owner by a fresh External id.
class Materializer {
 public:
  explicit Materializer(Profile& replay) : p_(replay) {
    for (const OpDetails& d : p_.op_details) next_id_ = std::max(next_id_, d.external_id + 1);
    for (const RuntimeCall& r : p_.runtime_calls) next_id_ = std::max(next_id_, r.external_id + 1);
    for (const GpuActivity& a : p_.gpu_activities) next_id_ = std::max(next_id_, a.external_id + 1);
  }

  void add(const RuntimeCall& launch, const CapturedGraph& g, std::span<const std::uint32_t> replayed,
           const std::vector<std::uint32_t>& node_of, const std::vector<std::uint32_t>& events) {
    const Profile& c = *g.capture;
    std::unordered_map<std::uint32_t, std::int64_t> id_of;  // capture event -> External id of its copy
    for (std::uint32_t e : events) {
      const HostEvent& h = c.host_events[e];
      HostEvent copy{at(launch, g, h.start),
                     at(launch, g, h.end),
                     intern(c, h.name),
                     kNone,
                     launch.thread,
                     h.kind,
                     kNone};
      OpDetails d = copy_details(c, c.details(h));
      if (h.kind == HostKind::Op) d.external_id = id_of[e] = next_id_++;
      if (!d.empty()) {
        copy.details = static_cast<std::uint32_t>(p_.op_details.size());
        p_.op_details.push_back(d);
      }
      p_.host_events.push_back(copy);
    }
    for (std::size_t k = 0; k < replayed.size(); ++k) {
      if (node_of[k] == kNone) continue;
      auto id = id_of.find(g.nodes[node_of[k]].owner);
      if (id != id_of.end()) p_.gpu_activities[replayed[k]].external_id = id->second;
    }
  }

 private:
  // Strictly inside the launch where it lasts over 2 ns, so that no copy encloses the launch itself.
  static TimeNs at(const RuntimeCall& launch, const CapturedGraph& g, TimeNs t) {
    TimeNs inset = launch.end - launch.start > 2 ? 1 : 0;
    TimeNs first = launch.start + inset, last = launch.end - inset;
    double share = static_cast<double>(std::clamp(t, g.start, g.end) - g.start) /
                   static_cast<double>(std::max<TimeNs>(g.end - g.start, 1));
    return first + static_cast<TimeNs>(share * static_cast<double>(last - first));  // monotone in t
  }
  StringId intern(const Profile& c, StringId id) {
    return id == kNoString ? kNoString : p_.strings.intern(c.str(id));
  }
  OpDetails copy_details(const Profile& c, const OpDetails& d) {
    OpDetails out = d;
    out.external_id = 0;
    out.input_dims = intern(c, d.input_dims);
    out.input_types = intern(c, d.input_types);
    out.concrete_inputs = intern(c, d.concrete_inputs);
    out.call_stack = intern(c, d.call_stack);
    return out;
  }

  Profile& p_;
  std::int64_t next_id_ = 1;
};

// A replay's kernel sequence, to align each distinct sequence with the captured graphs once.
std::vector<StringId> signature(const Profile& p, std::span<const std::uint32_t> replayed) {
  std::vector<StringId> names;
  names.reserve(replayed.size() + 1);
  for (std::uint32_t i : replayed)
    names.push_back(p.gpu_activities[i].kind == GpuActivityKind::Kernel
                        ? p.gpu_activities[i].name
                        : static_cast<StringId>(p.gpu_activities[i].kind));
  return names;
}

}  // namespace

GraphCaptureCoverage merge_graph_captures(Profile& replay, const std::vector<Profile>& captures,
                                          const Classification& classification) {
  GraphCaptureCoverage coverage;
  std::vector<CapturedGraph> graphs;
  for (const Profile& c : captures)
    for (CapturedGraph& g : captured_graphs(c, replay)) graphs.push_back(std::move(g));
  coverage.captured_graphs = graphs.size();
  PatternSet launch_patterns(classification.graph_launch_calls, "graph_launch_calls");
  NameMatcher graph_launch(launch_patterns, replay.strings);
  Attribution a = attribute(replay);
  attach_graph_replays(replay, graph_launch, a);
  replay.info.graph_capture = true;
  if (graphs.empty() || a.graph_launch.empty()) return coverage;
  GraphClasses classes(graphs);
  std::map<std::vector<StringId>, Choice> chosen;  // per distinct kernel sequence
  Materializer materialize(replay);
  for (std::uint32_t r = 0; r < a.graph_launch.size(); ++r) {
    if (!a.graph_launch[r]) continue;
    ++coverage.launches;
    std::span<const std::uint32_t> replayed = a.launched_by(r);
    coverage.replayed += replayed.size();
    auto [it, fresh] = chosen.try_emplace(signature(replay, replayed));
    if (fresh) {
      it->second = best_graph(replay, replayed, graphs, classes);
      it->second.events = placed_events(graphs[it->second.graph], it->second.node_of);
    }
    std::size_t n = placed(it->second.node_of);
    if (n == 0) continue;
    ++coverage.launches_aligned;
    coverage.placed += n;
    materialize.add(replay.runtime_calls[r], graphs[it->second.graph], replayed, it->second.node_of,
                    it->second.events);
  }
  build_host_tree(replay);
  replay.notes.push_back(note<NoteId::graph_capture_coverage>(
      arg<"aligned">(coverage.launches_aligned), arg<"launches">(coverage.launches),
      arg<"graphs">(coverage.captured_graphs), arg<"placed">(coverage.placed),
      arg<"replayed">(coverage.replayed), arg<"unplaced">(coverage.replayed - coverage.placed)));
  return coverage;
}

}  // namespace perfgate
