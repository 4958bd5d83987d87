#include "analyse/critical_path/critical_path_graph.h"

#include <algorithm>
#include <numeric>

namespace perfgate {

namespace {

constexpr std::uint32_t kDone = kNone;  // a node's pending count once it is taken

// Each node's outgoing edges in the order they were added (CSR arrays, by a counting sort) and
// its number of incoming edges, into the work's arrays.
void build_adjacency(const std::vector<PathEdge>& edges, std::size_t nodes, PathGraph::Work& w) {
  w.begin.assign(nodes + 1, 0);
  std::uint32_t* out = w.out.with_room(edges.size());
  w.pending.assign(nodes, 0);
  for (const PathEdge& e : edges) {
    ++w.begin[e.from];
    ++w.pending[e.to];
  }
  std::partial_sum(w.begin.begin(), w.begin.end() - 1, w.begin.begin());  // begin[v]: where v's edges end
  w.begin[nodes] = static_cast<std::uint32_t>(edges.size());
  // From the last edge back: each node's edges land in order, and begin[v] ends at their start.
  for (std::size_t i = edges.size(); i-- > 0;) out[--w.begin[edges[i].from]] = static_cast<std::uint32_t>(i);
}

}  // namespace

// Kahn's order (the nodes without incoming edges in id order, then each node once its last
// incoming edge is taken), each node relaxing its outgoing edges. A node's best incoming edge is
// the longest, of equal lengths the first added: the same as pulling its incoming edges in order.
PathGraph::Path PathGraph::longest_path(Work& work) const {
  const std::size_t n = times_.size();
  Path path;
  if (n == 0 || n >= kNone) return path;  // node ids are 32-bit
  build_adjacency(edges_, n, work);
  const std::vector<std::uint32_t>& begin = work.begin;
  const std::uint32_t* out = work.out.at.get();
  std::vector<std::uint32_t>& pending = work.pending;
  std::uint32_t* order = work.order.with_room(n);
  std::size_t queued = 0;
  for (std::uint32_t v = 0; v < n; ++v)
    if (pending[v] == 0) order[queued++] = v;
  std::vector<TimeNs>& dist = work.dist;
  dist.assign(n, 0);
  std::vector<std::uint32_t>& best = work.best;
  best.assign(n, kNone);
  std::vector<std::uint32_t> by_time;  // built only when a cycle must be broken
  std::size_t next_by_time = 0;
  std::uint32_t end = 0;
  for (std::size_t taken = 0; taken < n; ++taken) {
    if (taken == queued) {  // a cycle: take its earliest node (in time, then id)
      if (by_time.empty()) by_time = nodes_by_time();
      while (pending[by_time[next_by_time]] == kDone) ++next_by_time;
      order[queued++] = by_time[next_by_time];
      path.had_cycle = true;
    }
    std::uint32_t v = order[taken];
    pending[v] = kDone;
    if (taken == 0 || dist[v] > dist[end]) end = v;
    for (std::uint32_t k = begin[v]; k < begin[v + 1]; ++k) {
      std::uint32_t i = out[k];
      const PathEdge& e = edges_[i];
      if (pending[e.to] == kDone) continue;  // an edge of a broken cycle
      TimeNs d = dist[v] + weight(e);
      if (best[e.to] == kNone || d > dist[e.to] || (d == dist[e.to] && i < best[e.to])) {
        dist[e.to] = d;
        best[e.to] = i;
      }
      if (--pending[e.to] == 0) order[queued++] = e.to;
    }
  }
  path.length = dist[end];
  std::size_t edges = 0;
  for (std::uint32_t v = end; best[v] != kNone; v = edges_[best[v]].from) ++edges;
  path.edges.resize(edges);
  for (std::uint32_t v = end; best[v] != kNone; v = edges_[best[v]].from)
    path.edges[--edges] = edges_[best[v]];
  return path;
}

std::vector<std::uint32_t> PathGraph::nodes_by_time() const {
  std::vector<std::uint32_t> nodes(times_.size());
  std::iota(nodes.begin(), nodes.end(), 0u);
  std::stable_sort(nodes.begin(), nodes.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return times_[a] < times_[b]; });
  return nodes;
}

}  // namespace perfgate
