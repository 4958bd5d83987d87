#include "analyse/worker_attribution.h"

#include "analyse/ops/graph_replay.h"

namespace perfgate {

Attribution worker_attribution(const Profile& profile, const CompiledClassification& compiled,
                               const NameClasses& classes, unsigned threads) {
  Attribution attribution = attribute(profile, compiled.attribution, threads);
  attach_graph_replays(profile, classes.graph_launch, attribution);
  reown_to_enclosing_ops(profile, attribution,
                         [&](const HostEvent& e) { return classes.communication_op(e.name); });
  return attribution;
}

}  // namespace perfgate
