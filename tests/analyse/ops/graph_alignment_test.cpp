// The choice of captured graph for a replayed sequence (best_graph) against its definition: align
// the sequence with every graph in order and keep the one that places most, the lowest index among
// equals, graph 0 where none places any. best_graph skips graphs by class and bound; it must give
// the same graph and the same placement on every input.
#include <random>

#include <gtest/gtest.h>

#include "analyse/ops/graph_alignment.h"

namespace perfgate {
namespace {

// The definition, as merge_graph_captures computed it before the classes and bounds.
std::pair<std::size_t, std::vector<std::uint32_t>> every_graph(const Profile& p,
                                                               std::span<const std::uint32_t> replayed,
                                                               const std::vector<CapturedGraph>& graphs) {
  std::size_t best = 0;
  std::vector<std::uint32_t> node_of;
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    std::vector<std::uint32_t> n = align(p, replayed, graphs[g]);
    if (g == 0 || placed(n) > placed(node_of)) {
      best = g;
      node_of = std::move(n);
    }
  }
  return {best, node_of};
}

struct Alphabet {
  std::vector<StringId> kernels;
};

CapturedNode random_node(std::mt19937& rng, const Alphabet& a, int wildcard_pct) {
  std::uniform_int_distribution<int> pct(0, 99);
  int kind = pct(rng);
  if (kind < 15) return {GpuActivityKind::Memcpy, kNoString, kNone};
  if (kind < 20) return {GpuActivityKind::Memset, kNoString, kNone};
  if (pct(rng) < wildcard_pct) return {GpuActivityKind::Kernel, kNoString, kNone};
  std::uniform_int_distribution<std::size_t> pick(0, a.kernels.size() - 1);
  return {GpuActivityKind::Kernel, a.kernels[pick(rng)], kNone};
}

// Random graphs (some repeated, as a server captures one graph per batch size and replays it), and
// sequences made from a graph's nodes with some dropped, swapped or renamed, or drawn at random.
TEST(GraphAlignment, BestGraphIsTheOneEveryGraphInOrderGives) {
  std::mt19937 rng(55);
  for (int round = 0; round < 300; ++round) {
    Profile p;
    Alphabet a;
    std::size_t names = 1 + rng() % 6;
    for (std::size_t i = 0; i < names; ++i) a.kernels.push_back(p.strings.intern("k" + std::to_string(i)));
    int wildcard_pct = round % 3 == 0 ? 100 : round % 3 == 1 ? 0 : 30;
    std::vector<CapturedGraph> graphs(1 + rng() % 12);
    for (CapturedGraph& g : graphs) {
      if (&g != graphs.data() && rng() % 3 == 0) {
        g.nodes = graphs[rng() % static_cast<std::size_t>(&g - graphs.data())].nodes;
        continue;
      }
      std::size_t n = rng() % 8;
      for (std::size_t i = 0; i < n; ++i) g.nodes.push_back(random_node(rng, a, wildcard_pct));
    }
    GraphClasses classes(graphs);
    for (int s = 0; s < 20; ++s) {
      std::vector<std::uint32_t> replayed;
      const CapturedGraph& from = graphs[rng() % graphs.size()];
      bool random = rng() % 4 == 0;
      std::size_t n = random ? rng() % 8 : from.nodes.size();
      for (std::size_t i = 0; i < n; ++i) {
        CapturedNode node = random ? random_node(rng, a, 0) : from.nodes[i];
        if (!random && rng() % 5 == 0) continue;  // dropped
        if (!random && rng() % 7 == 0) node = random_node(rng, a, 0);
        GpuActivity act;
        act.kind = node.kind;
        act.name = node.kernel != kNoString ? node.kernel : a.kernels[rng() % a.kernels.size()];
        replayed.push_back(static_cast<std::uint32_t>(p.gpu_activities.size()));
        p.gpu_activities.push_back(act);
      }
      if (replayed.size() > 1 && rng() % 3 == 0) std::swap(replayed[0], replayed[1]);
      auto [graph, node_of] = every_graph(p, replayed, graphs);
      Choice choice = best_graph(p, replayed, graphs, classes);
      ASSERT_EQ(choice.graph, graph) << "round " << round << " sequence " << s;
      ASSERT_EQ(choice.node_of, node_of) << "round " << round << " sequence " << s;
    }
  }
}

// A worked case: graph 1 and graph 3 hold the same nodes (one class, aligned once as graph 1);
// the sequence [k0, copy] places 2 on graphs 1 and 3, 1 on graph 0 (its copy) and graph 2 (a
// node that matches any kernel): graph 1, the lower of the two best.
TEST(GraphAlignment, RepeatedGraphsTieToTheLowestIndex) {
  Profile p;
  StringId k0 = p.strings.intern("k0"), k1 = p.strings.intern("k1");
  std::vector<CapturedGraph> graphs(4);
  graphs[0].nodes = {{GpuActivityKind::Kernel, k1, kNone}, {GpuActivityKind::Memcpy, kNoString, kNone}};
  graphs[1].nodes = {{GpuActivityKind::Kernel, k0, kNone}, {GpuActivityKind::Memcpy, kNoString, kNone}};
  graphs[2].nodes = {{GpuActivityKind::Kernel, kNoString, kNone}};
  graphs[3].nodes = graphs[1].nodes;
  GraphClasses classes(graphs);
  EXPECT_EQ(classes.size(), 3u);
  GpuActivity kernel, copy;
  kernel.name = k0;
  copy.kind = GpuActivityKind::Memcpy;
  p.gpu_activities = {kernel, copy};
  std::vector<std::uint32_t> replayed = {0, 1};
  Choice choice = best_graph(p, replayed, graphs, classes);
  EXPECT_EQ(choice.graph, 1u);
  EXPECT_EQ(choice.node_of, (std::vector<std::uint32_t>{0, 1}));
  // A sequence no graph can place: graph 0, nothing placed.
  GpuActivity set;
  set.kind = GpuActivityKind::Memset;
  p.gpu_activities.push_back(set);
  std::vector<std::uint32_t> memset_only = {2};
  Choice none = best_graph(p, memset_only, graphs, classes);
  EXPECT_EQ(none.graph, 0u);
  EXPECT_EQ(placed(none.node_of), 0u);
}

}  // namespace
}  // namespace perfgate
