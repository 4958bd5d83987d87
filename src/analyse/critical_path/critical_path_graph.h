// The critical path's graph: nodes are instants (an event's start or end), edges the dependencies
// between them, and the path the longest one through the graph (HTA's CPGraph and networkx's
// dag_longest_path, in linear time: Kahn's topological order with one relaxation per edge).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "model/profile.h"

namespace perfgate {

// HTA's CPEdgeType. Dependency and sync edges weigh 0; the others weigh the time between their ends.
enum class PathEdgeType : std::uint8_t { Operator, Dependency, LaunchDelay, KernelGap, Sync };

// 16 bytes: a whole capture's graph has millions of edges. Its weight is not kept: it is the time
// between its nodes (PathGraph::weight).
struct PathEdge {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::uint32_t owner = kNone;  // the event the edge's time is attributed to (the caller's index)
  PathEdgeType type = PathEdgeType::Operator;
  bool weightless = false;
};

class PathGraph {
 public:
  void reserve(std::size_t nodes, std::size_t edges) {
    times_.reserve(nodes);
    edges_.reserve(edges);
  }
  std::uint32_t add_node(TimeNs time) {
    times_.push_back(time);
    return static_cast<std::uint32_t>(times_.size() - 1);
  }
  TimeNs time(std::uint32_t node) const { return times_[node]; }
  // An edge weighing (to's time - from's time), 0 for dependency and sync edges or when
  // `zero_weight`; never below 0 (HTA drops the -1 µs that rounding leaves: it zeroes them).
  void add_edge(std::uint32_t from, std::uint32_t to, PathEdgeType type, std::uint32_t owner,
                bool zero_weight = false) {
    bool weightless = zero_weight || type == PathEdgeType::Dependency || type == PathEdgeType::Sync;
    edges_.push_back({from, to, owner, type, weightless});
  }
  TimeNs weight(const PathEdge& e) const {
    return e.weightless ? 0 : std::max<TimeNs>(0, times_[e.to] - times_[e.from]);
  }
  std::size_t nodes() const { return times_.size(); }
  // No nodes nor edges, the room for them kept (a thread's next range reuses it).
  void clear() {
    times_.clear();
    edges_.clear();
  }
  std::size_t capacity_bytes() const {
    return times_.capacity() * sizeof(TimeNs) + edges_.capacity() * sizeof(PathEdge);
  }

  struct Path {
    std::vector<PathEdge> edges;  // in path order
    TimeNs length = 0;
    bool had_cycle = false;  // the graph was not acyclic: a node of a cycle was taken out of it
  };
  // The longest path, its edges in order. On a tie the first longest end node in topological order
  // and, into each node, the first edge added win. A cycle (out-of-order timestamps, HTA #113) is
  // broken at its earliest node, whose unresolved incoming edges are then left out.
  Path longest_path() const {
    Work work;
    return longest_path(work);
  }
  // The arrays the walk fills, reused from one call to the next by a caller that keeps them.
  struct Work {
    // Room for n ids, left unset (each is written before it is read), as the walk's own arrays were.
    struct Ids {
      std::unique_ptr<std::uint32_t[]> at;
      std::size_t room = 0;
      Ids() = default;
      Ids(Ids&& from) noexcept : at(std::move(from.at)), room(std::exchange(from.room, 0)) {}
      Ids& operator=(Ids&& from) noexcept {
        at = std::move(from.at);
        room = std::exchange(from.room, 0);
        return *this;
      }
      std::uint32_t* with_room(std::size_t n) {
        if (n > room) {
          at = std::make_unique_for_overwrite<std::uint32_t[]>(n);
          room = n;
        }
        return at.get();
      }
    };
    std::vector<std::uint32_t> begin;    // node v's edges: out[begin[v]] .. out[begin[v + 1] - 1]
    Ids out;                             // edge ids by source node, in the order they were added
    std::vector<std::uint32_t> pending;  // incoming edges not yet taken; kDone once taken
    Ids order;                           // Kahn's queue, each node once
    std::vector<TimeNs> dist;
    std::vector<std::uint32_t> best;  // the incoming edge of the longest path to a node
    std::size_t capacity_bytes() const {
      return (begin.capacity() + out.room + pending.capacity() + order.room + best.capacity()) *
                 sizeof(std::uint32_t) +
             dist.capacity() * sizeof(TimeNs);
    }
  };
  Path longest_path(Work& work) const;

 private:
  std::vector<std::uint32_t> nodes_by_time() const;  // stable: of equal times, the first added first

  std::vector<TimeNs> times_;
  std::vector<PathEdge> edges_;
};

}  // namespace perfgate
