#include "analyse/critical_path_graph.h"

#include <algorithm>
#include <numeric>

namespace perfgate {

std::uint32_t PathGraph::add_node(TimeNs time) {
  times_.push_back(time);
  return static_cast<std::uint32_t>(times_.size() - 1);
}

void PathGraph::add_edge(std::uint32_t from, std::uint32_t to, PathEdgeType type, std::uint32_t owner,
                         bool zero_weight) {
  bool weightless = zero_weight || type == PathEdgeType::Dependency || type == PathEdgeType::Sync;
  TimeNs weight = weightless ? 0 : std::max<TimeNs>(0, times_[to] - times_[from]);
  edges_.push_back({from, to, weight, owner, type});
}

PathGraph::Path PathGraph::longest_path() const {
  const std::size_t n = times_.size();
  Path path;
  if (n == 0 || n >= kNone) return path;  // node ids are 32-bit
  // Incoming edges by node (counting sort, insertion order kept) and outgoing counts.
  std::vector<std::uint32_t> in_begin(n + 1, 0), pending(n, 0);
  for (const PathEdge& e : edges_) {
    ++in_begin[e.to + 1];
    ++pending[e.to];
  }
  std::partial_sum(in_begin.begin(), in_begin.end(), in_begin.begin());
  std::vector<std::uint32_t> incoming(edges_.size());
  std::vector<std::uint32_t> fill(n), out_fill(n);
  std::copy_n(in_begin.begin(), n, fill.begin());
  std::vector<std::uint32_t> out_begin(n + 1, 0);
  for (const PathEdge& e : edges_) ++out_begin[e.from + 1];
  std::partial_sum(out_begin.begin(), out_begin.end(), out_begin.begin());
  std::vector<std::uint32_t> outgoing(edges_.size());
  std::copy_n(out_begin.begin(), n, out_fill.begin());
  for (std::uint32_t i = 0; i < edges_.size(); ++i) {
    incoming[fill[edges_[i].to]++] = i;
    outgoing[out_fill[edges_[i].from]++] = i;
  }
  // Kahn's order; nodes in time order break a cycle when no node is ready.
  std::vector<std::uint32_t> by_time(n);
  std::iota(by_time.begin(), by_time.end(), 0u);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return times_[a] < times_[b]; });
  std::vector<std::uint32_t> ready;
  for (std::uint32_t v = 0; v < n; ++v)
    if (pending[v] == 0) ready.push_back(v);
  std::vector<char> done(n, 0);
  std::vector<TimeNs> dist(n, 0);
  std::vector<std::uint32_t> best(n, kNone);  // the incoming edge of the longest path to a node
  std::size_t next_ready = 0, next_by_time = 0, finished = 0;
  std::uint32_t end = 0;
  bool have_end = false;
  while (finished < n) {
    std::uint32_t v;
    if (next_ready < ready.size()) {
      v = ready[next_ready++];
      if (done[v]) continue;
    } else {
      while (done[by_time[next_by_time]]) ++next_by_time;
      v = by_time[next_by_time];
      path.had_cycle = true;
    }
    done[v] = 1;
    ++finished;
    for (std::uint32_t k = in_begin[v]; k < in_begin[v + 1]; ++k) {
      const PathEdge& e = edges_[incoming[k]];
      if (!done[e.from]) continue;  // an edge of a broken cycle
      TimeNs d = dist[e.from] + e.weight;
      if (best[v] == kNone || d > dist[v]) {
        dist[v] = d;
        best[v] = incoming[k];
      }
    }
    if (!have_end || dist[v] > dist[end]) {
      end = v;
      have_end = true;
    }
    for (std::uint32_t k = out_begin[v]; k < out_begin[v + 1]; ++k) {
      std::uint32_t w = edges_[outgoing[k]].to;
      if (pending[w] > 0 && --pending[w] == 0 && !done[w]) ready.push_back(w);
    }
  }
  path.length = dist[end];
  for (std::uint32_t v = end; best[v] != kNone; v = edges_[best[v]].from)
    path.edges.push_back(edges_[best[v]]);
  std::reverse(path.edges.begin(), path.edges.end());
  return path;
}

}  // namespace perfgate
