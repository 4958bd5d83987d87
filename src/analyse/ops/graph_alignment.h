// Aligning a graph launch's replayed GPU activities with the graphs a capture trace recorded
// (docs/metrics.md, "Graph replay"): the captured nodes, the alignment of one sequence with one
// graph, and the choice of the graph that places most of a sequence.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "model/profile.h"

namespace perfgate {

// One launch recorded while a graph was captured: a kernel (its name, where the trace gives it) or
// a copy or memset node.
struct CapturedNode {
  GpuActivityKind kind = GpuActivityKind::Kernel;
  StringId kernel = kNoString;  // in the replay's pool; kNoString: not recorded (matches any kernel)
  std::uint32_t owner = kNone;  // the capture's op that issued it
};

// One captured graph: its window and launches.
struct CapturedGraph {
  const Profile* capture = nullptr;
  TimeNs start = 0;
  TimeNs end = 0;
  std::vector<CapturedNode> nodes;
};

// Replayed activities (in GPU order) to captured nodes (kNone: not placed). O(activities x 32).
std::vector<std::uint32_t> align(const Profile& p, std::span<const std::uint32_t> replayed,
                                 const CapturedGraph& g);

// How many activities an alignment placed.
std::size_t placed(const std::vector<std::uint32_t>& node_of);

// What align() reads of a node: its kind and kernel (kNoString: any kernel). A copy or memset node
// is keyed by its kind alone, as node_matches() compares it.
struct NodeKey {
  GpuActivityKind kind = GpuActivityKind::Kernel;
  StringId kernel = kNoString;
  auto operator<=>(const NodeKey&) const = default;
};

// The captured graphs grouped by the keys of their nodes in order: align() gives every graph of a
// class the same placement, so only the class's first graph (its lowest index, which the tie rule
// prefers) is ever aligned. Each class also keeps its key counts, for an upper bound on what any
// sequence can place on it, and an index of the classes that hold each kernel and of those that
// hold a node matching any kernel: a sequence is aligned with the classes that can place its
// kernels, and with the others only while their bound can still beat the best. Without it every
// distinct sequence was aligned with every graph: O(sequences x graphs).
class GraphClasses {
 public:
  using Counts = std::map<NodeKey, std::size_t>;  // activities or nodes per key

  explicit GraphClasses(const std::vector<CapturedGraph>& graphs);

  std::size_t size() const { return first_.size(); }
  std::size_t first_graph(std::uint32_t c) const { return first_[c]; }

  // The classes whose nodes can place one of the sequence's kernels, by index.
  std::vector<std::uint32_t> kernel_candidates(const Counts& wanted) const;

  // At most this many of the sequence's activities (`wanted`: its key counts) can be placed on class
  // c: each placed activity takes a distinct matching node.
  std::size_t bound(std::uint32_t c, const Counts& wanted) const;

 private:
  std::vector<std::size_t> first_;  // per class: its first graph
  std::vector<Counts> counts_;      // per class: its nodes per key
  std::unordered_map<StringId, std::vector<std::uint32_t>> with_kernel_;
  std::vector<std::uint32_t> with_any_kernel_;
};

struct Choice {
  std::size_t graph = 0;
  std::vector<std::uint32_t> node_of;
  std::vector<std::uint32_t> events;  // placed_events
};

// The graph that places most of the sequence's activities, the lowest index among equals; graph 0
// where none places any (as aligning with every graph in order gives). Exact: a class is skipped only
// where its bound shows it can neither beat the best nor tie it from a lower index.
Choice best_graph(const Profile& p, std::span<const std::uint32_t> replayed,
                  const std::vector<CapturedGraph>& graphs, const GraphClasses& classes);

}  // namespace perfgate
