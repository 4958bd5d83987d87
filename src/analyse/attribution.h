// Who launched what. A GPU activity links to its runtime call by correlation id; the call
// belongs to the op named by its External id when that op encloses it in time, else to the
// innermost op or annotation enclosing it on its thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "model/profile.h"

namespace perfgate {

struct Attribution {
  std::vector<std::uint32_t> activity_runtime;  // per GPU activity: runtime call index or kNone
  std::vector<std::uint32_t> runtime_owner;     // per runtime call: host event index or kNone
  std::vector<std::uint32_t> activity_offsets;  // CSR: activities of runtime r are
  std::vector<std::uint32_t> activities;        //   activities[activity_offsets[r] .. activity_offsets[r+1])
  std::size_t owners_by_external_id = 0;
  std::size_t owners_by_containment = 0;
  // Per runtime call, 1 for a graph launch (rules: graph_launch_calls); empty when the profile has
  // none. Set by attach_graph_replays (graph_replay.h), as is the count of activities it gave a
  // graph launch by stream and time (no correlation linked them).
  std::vector<std::uint8_t> graph_launch;
  std::size_t activities_by_graph_span = 0;
  // Per activity, the op that launched it when its graph was captured: a replayed activity whose own
  // External id names an op inside its graph launch's span (the ops a graph-capture trace gave the
  // replay, graph_capture.cpp); likewise the op of a compiled program that its launching call ran (a
  // TPU's XLA op inside its Execute call, the XSpace reader's). Empty when there are none; kNone for
  // the other activities. `activities_by_capture` counts both.
  std::vector<std::uint32_t> captured_op;
  std::size_t activities_by_capture = 0;

  std::uint32_t activity_owner(std::size_t activity) const {
    if (!captured_op.empty() && captured_op[activity] != kNone) return captured_op[activity];
    std::uint32_t r = activity_runtime[activity];
    return r == kNone ? kNone : runtime_owner[r];
  }
  bool is_graph_launch(std::uint32_t runtime) const {
    return runtime != kNone && !graph_launch.empty() && graph_launch[runtime] != 0;
  }
  // The activity ran in a graph replay: its launching call is a graph launch.
  bool replayed(std::size_t activity) const { return is_graph_launch(activity_runtime[activity]); }
  std::span<const std::uint32_t> launched_by(std::size_t runtime) const {
    return {activities.data() + activity_offsets[runtime], activities.data() + activity_offsets[runtime + 1]};
  }
};

struct AttributionRules {
  bool by_time_containment = true;
  bool external_id_must_enclose = true;
};
// Runtime calls owned by an annotation that `moves` (a communication range: nccl:all_reduce) and
// that an op encloses (record_param_comms, c10d::allreduce_) go to the nearest such op: the work is
// the op's, and the ops table has no "(no op)" row for it (issue 53). Returns how many moved.
std::size_t reown_to_enclosing_ops(const Profile& profile, Attribution& a,
                                   const std::function<bool(const HostEvent&)>& moves);

// Rebuilds the runtime → activities index (Attribution::activities) from activity_runtime.
void index_launched_activities(const Profile& profile, Attribution& a);

// On up to `threads` threads; the same at any count.
Attribution attribute(const Profile& profile, AttributionRules rules = {}, unsigned threads = 1);

}  // namespace perfgate
