#include "analyse/ops/graph_replay.h"

#include <algorithm>
#include <utility>

#include <boost/container/flat_map.hpp>

#include "analyse/id_index.h"

namespace perfgate {
namespace {

// The graph launches, by start time (runtime calls are sorted by start); empty when there are none.
std::vector<std::uint32_t> mark_graph_launches(const Profile& p, const NameMatcher& graph_launch,
                                               Attribution& a) {
  std::vector<std::uint32_t> launches;
  for (std::uint32_t r = 0; r < p.runtime_calls.size(); ++r)
    if (graph_launch(p.runtime_calls[r].name)) launches.push_back(r);
  if (!launches.empty()) {
    a.graph_launch.assign(p.runtime_calls.size(), 0);
    for (std::uint32_t r : launches) a.graph_launch[r] = 1;
  }
  return launches;
}

// Activities whose own External id names an op that lies within their launching call's span: the
// op captured them (graph_capture.cpp put it there), or the call ran a compiled program whose ops the
// profile names (a TPU's XLA ops, placed in their Execute call by the XSpace reader, tpu_ops.cpp). An
// op that issued the launch encloses it instead, and keeps the activity through the launch: outside
// a graph replay, an activity whose External id is its call's, or names the call's own owner, stays
// with it (a Kineto kernel names the op that launched it).
void link_captured_ops(const Profile& p, Attribution& a) {
  auto candidate = [&](std::size_t i) {
    std::int64_t id = p.gpu_activities[i].external_id;
    std::uint32_t r = a.activity_runtime[i];
    return id != 0 && r != kNone && (a.replayed(i) || p.runtime_calls[r].external_id != id);
  };
  bool any = false;
  for (std::size_t i = 0; i < p.gpu_activities.size() && !any; ++i) any = candidate(i);
  if (!any) return;
  IdIndex ops;
  for (std::uint32_t e = 0; e < p.host_events.size(); ++e)
    if (std::int64_t id = p.details(e).external_id; id != 0 && p.host_events[e].kind == HostKind::Op)
      ops.emplace_back(id, e);
  std::sort(ops.begin(), ops.end());
  IdLookup find_op(ops);
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    if (!candidate(i)) continue;
    std::uint32_t op = find_op(p.gpu_activities[i].external_id);
    std::uint32_t r = a.activity_runtime[i];
    const RuntimeCall& launch = p.runtime_calls[r];
    if (op == kNone || p.host_events[op].start < launch.start || p.host_events[op].end > launch.end) continue;
    if (!a.replayed(i) && op == a.runtime_owner[r]) continue;
    if (a.captured_op.empty()) a.captured_op.assign(p.gpu_activities.size(), kNone);
    a.captured_op[i] = op;
    ++a.activities_by_capture;
  }
}

}  // namespace

void attach_graph_replays(const Profile& p, const NameMatcher& graph_launch, Attribution& a) {
  std::vector<std::uint32_t> launches = mark_graph_launches(p, graph_launch, a);
  if (launches.empty()) {
    link_captured_ops(p, a);
    return;
  }
  // Per stream: the latest start of a call that launched work the stream has run so far.
  boost::container::flat_map<std::pair<std::int32_t, std::uint32_t>, TimeNs> stream_launched_at;
  std::size_t next = 0;
  std::uint32_t current = kNone;  // the latest graph launch that started before the activity
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {  // sorted by start
    const GpuActivity& act = p.gpu_activities[i];
    while (next < launches.size() && p.runtime_calls[launches[next]].start <= act.start)
      current = launches[next++];
    std::pair<std::int32_t, std::uint32_t> stream{act.device, act.stream};
    if (std::uint32_t r = a.activity_runtime[i]; r != kNone) {
      TimeNs& at = stream_launched_at.try_emplace(stream, p.runtime_calls[r].start).first->second;
      at = std::max(at, p.runtime_calls[r].start);
      continue;
    }
    if (current == kNone) continue;
    auto it = stream_launched_at.find(stream);
    if (it != stream_launched_at.end() && it->second > p.runtime_calls[current].start) continue;
    a.activity_runtime[i] = current;
    ++a.activities_by_graph_span;
  }
  if (a.activities_by_graph_span > 0) index_launched_activities(p, a);
  link_captured_ops(p, a);
}

}  // namespace perfgate
