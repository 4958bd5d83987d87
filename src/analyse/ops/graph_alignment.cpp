#include "analyse/ops/graph_alignment.h"

#include <algorithm>

namespace perfgate {
namespace {

bool node_matches(const CapturedNode& n, const GpuActivity& act) {
  if (n.kind != act.kind) return false;
  return act.kind != GpuActivityKind::Kernel || n.kernel == kNoString || n.kernel == act.name;
}

// Replayed activities (in GPU order) to captured nodes: each takes the first unused matching node
// among those the cursor skipped within the last kAlignWindow positions (a graph reorders
// independent nodes), else the first matching node within the next kAlignWindow (the nodes passed
// over are launches the replay did not run, or the profiler dropped), else none: it stays unplaced.
// O(activities x kAlignWindow).
constexpr std::size_t kAlignWindow = 32;

NodeKey key_of(const CapturedNode& n) {
  return {n.kind, n.kind == GpuActivityKind::Kernel ? n.kernel : kNoString};
}

}  // namespace

std::vector<std::uint32_t> align(const Profile& p, std::span<const std::uint32_t> replayed,
                                 const CapturedGraph& g) {
  std::vector<std::uint32_t> node_of(replayed.size(), kNone);
  std::vector<bool> used(g.nodes.size(), false);
  std::size_t cursor = 0;
  for (std::size_t k = 0; k < replayed.size(); ++k) {
    const GpuActivity& act = p.gpu_activities[replayed[k]];
    std::size_t from = cursor > kAlignWindow ? cursor - kAlignWindow : 0;
    std::size_t to = std::min(g.nodes.size(), cursor + kAlignWindow);
    for (std::size_t j = from; j < to; ++j) {
      if (used[j] || !node_matches(g.nodes[j], act)) continue;
      used[j] = true;
      node_of[k] = static_cast<std::uint32_t>(j);
      cursor = std::max(cursor, j + 1);
      break;
    }
  }
  return node_of;
}

std::size_t placed(const std::vector<std::uint32_t>& node_of) {
  return static_cast<std::size_t>(
      std::count_if(node_of.begin(), node_of.end(), [](auto n) { return n != kNone; }));
}

GraphClasses::GraphClasses(const std::vector<CapturedGraph>& graphs) {
  std::map<std::vector<NodeKey>, std::uint32_t> class_of;
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    std::vector<NodeKey> keys;
    keys.reserve(graphs[g].nodes.size());
    for (const CapturedNode& n : graphs[g].nodes) keys.push_back(key_of(n));
    auto [it, fresh] = class_of.try_emplace(std::move(keys), static_cast<std::uint32_t>(first_.size()));
    if (!fresh) continue;
    first_.push_back(g);
    Counts counts;
    for (const NodeKey& key : it->first) {
      ++counts[key];
      if (key.kind == GpuActivityKind::Kernel && key.kernel != kNoString) {
        std::vector<std::uint32_t>& with = with_kernel_[key.kernel];
        if (with.empty() || with.back() != it->second) with.push_back(it->second);
      }
    }
    if (counts.count(NodeKey{}) > 0) with_any_kernel_.push_back(it->second);
    counts_.push_back(std::move(counts));
  }
}

std::vector<std::uint32_t> GraphClasses::kernel_candidates(const Counts& wanted) const {
  std::vector<std::uint32_t> out = with_any_kernel_;
  for (const auto& [key, n] : wanted) {
    if (key.kind != GpuActivityKind::Kernel) continue;
    auto it = with_kernel_.find(key.kernel);
    if (it != with_kernel_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::size_t GraphClasses::bound(std::uint32_t c, const Counts& wanted) const {
  const Counts& have = counts_[c];
  std::size_t others = 0, named = 0, kernels = 0;
  for (const auto& [key, n] : wanted) {
    auto it = have.find(key);
    std::size_t h = it == have.end() ? 0 : it->second;
    if (key.kind == GpuActivityKind::Kernel) {
      kernels += n;
      named += std::min(n, h);
    } else {
      others += std::min(n, h);
    }
  }
  auto any = have.find(NodeKey{});
  std::size_t wild = any == have.end() ? 0 : any->second;
  return others + std::min(kernels, named + wild);
}

Choice best_graph(const Profile& p, std::span<const std::uint32_t> replayed,
                  const std::vector<CapturedGraph>& graphs, const GraphClasses& classes) {
  GraphClasses::Counts wanted;
  std::size_t not_kernels = 0;
  for (std::uint32_t i : replayed) {
    const GpuActivity& act = p.gpu_activities[i];
    bool kernel = act.kind == GpuActivityKind::Kernel;
    ++wanted[NodeKey{act.kind, kernel ? act.name : kNoString}];
    not_kernels += kernel ? 0 : 1;
  }
  Choice best{0, align(p, replayed, graphs[0]), {}};
  std::size_t most = placed(best.node_of);
  auto consider = [&](std::uint32_t c) {
    std::size_t g = classes.first_graph(c);
    if (g == best.graph) return;
    std::size_t b = classes.bound(c, wanted);
    if (b < most || (b == most && g > best.graph) || b == 0) return;
    std::vector<std::uint32_t> node_of = align(p, replayed, graphs[g]);
    std::size_t n = placed(node_of);
    if (n > most || (n == most && n > 0 && g < best.graph)) {
      best = {g, std::move(node_of), {}};
      most = n;
    }
  };
  std::vector<std::uint32_t> candidates = classes.kernel_candidates(wanted);
  for (std::uint32_t c : candidates) consider(c);
  // A class outside the candidates places none of the kernels: at most the sequence's copies and
  // memsets. Looked at only while that could still beat or tie the best; the candidates (sorted)
  // are not aligned again.
  if (not_kernels > 0 && not_kernels >= most) {
    auto next = candidates.begin();
    for (std::uint32_t c = 0; c < classes.size(); ++c) {
      if (next != candidates.end() && *next == c) {
        ++next;
        continue;
      }
      consider(c);
    }
  }
  return best;
}

}  // namespace perfgate
