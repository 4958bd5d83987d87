// Kernels a CUDA/HIP graph replay ran. A graph launch (cudaGraphLaunch, hipGraphLaunch; rules:
// graph_launch_calls) runs every kernel of the graph, but only some tracers link them to it by
// correlation (Kineto on ROCm does; CUPTI traces and some HIP replays do not). Activities that no
// correlation links to any call are given to the graph launch whose GPU span holds them: the latest
// graph launch that started before the activity, provided the activity's stream has not yet run
// work launched after that graph launch (which would mean the graph's part of the stream is over).
// Through the launch, the activity then belongs to the op or annotation that issued it.
#pragma once

#include "analyse/attribution.h"
#include "analyse/name_matcher.h"

namespace perfgate {

// Marks the graph launches in `a.graph_launch` and links the unlinked activities their spans hold;
// then gives each activity the op its External id places inside its launching call, where there is
// one (a captured graph's op, a compiled program's op: Attribution::captured_op). Leaves `a` as it
// was when the profile has neither.
void attach_graph_replays(const Profile& profile, const NameMatcher& graph_launch, Attribution& a);

}  // namespace perfgate
