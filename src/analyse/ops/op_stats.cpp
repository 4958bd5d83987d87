#include "analyse/ops/op_stats.h"

#include <algorithm>

namespace perfgate {
namespace {
constexpr std::string_view kAutogradPrefix = "autograd::engine::evaluate_function:";

// PyTorch names autograd nodes "XxxBackward" or "XxxBackward0".
bool is_backward_node_name(std::string_view name) {
  while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
  return name.ends_with("Backward");
}
}  // namespace

bool is_autograd_wrapper(std::string_view name) {
  return name.starts_with(kAutogradPrefix);
}

OpStats::OpStats(const Profile& p, const Attribution& a, NameClasses& classes, const Window& window,
                 const std::vector<std::uint32_t>& step_markers)
    : p_(p), classes_(classes) {
  index_launches(a);
  mark_window_and_direction(window, step_markers);
  mark_eligible(classes);
}

// CSR of the activities each host event launched through its own runtime calls.
void OpStats::index_launches(const Attribution& a) {
  std::size_t n = p_.host_events.size();
  offsets_.assign(n + 1, 0);
  for (std::size_t i = 0; i < p_.gpu_activities.size(); ++i)
    if (std::uint32_t owner = a.activity_owner(i); owner != kNone) ++offsets_[owner + 1];
  for (std::size_t e = 0; e < n; ++e) offsets_[e + 1] += offsets_[e];
  launches_.assign(offsets_[n], 0);
  std::vector<std::uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (std::uint32_t i = 0; i < p_.gpu_activities.size(); ++i)
    if (std::uint32_t owner = a.activity_owner(i); owner != kNone) launches_[fill[owner]++] = i;
}

void OpStats::mark_window_and_direction(const Window& window,
                                        const std::vector<std::uint32_t>& step_markers) {
  const auto& events = p_.host_events;
  std::size_t n = events.size();
  flags_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (events[i].kind == HostKind::Op) flags_[i] = kOp;
  for (std::uint32_t m : step_markers) flags_[m] = 0;
  subtree_end_.resize(n);
  // Threads that run autograd wrappers are the autograd engine's: everything on them is backward.
  std::vector<bool> autograd_thread(p_.threads.size(), false);
  for (const HostEvent& e : events)
    if (is_autograd_wrapper(p_.str(e.name))) autograd_thread[e.thread] = true;
  for (std::size_t i = 0; i < n; ++i) {
    const HostEvent& e = events[i];
    std::uint8_t f = flags_[i];
    if (e.start >= window.host_start && e.start < window.host_end) f |= kInWindow;
    std::uint8_t parent_flags = e.parent == kNone ? 0 : flags_[e.parent];
    if (autograd_thread[e.thread] || (parent_flags & kBackward) || is_autograd_wrapper(p_.str(e.name)) ||
        is_backward_node_name(p_.str(e.name)))
      f |= kBackward;
    flags_[i] = f;
  }
  // Top-level ops: no op among the ancestors. Subtrees are contiguous index ranges.
  std::vector<bool> op_above(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t parent = events[i].parent;
    op_above[i] = parent != kNone && (op_above[parent] || (flags_[parent] & kOp));
    if ((flags_[i] & kOp) && !op_above[i]) flags_[i] |= kTopLevelOp;
  }
  // A subtree is contiguous (parents sort before their callees), so its end is the largest end
  // among its children's subtrees.
  for (std::size_t i = 0; i < n; ++i) subtree_end_[i] = static_cast<std::uint32_t>(i + 1);
  for (std::size_t i = n; i-- > 0;)
    if (std::uint32_t parent = events[i].parent; parent != kNone)
      subtree_end_[parent] = std::max(subtree_end_[parent], subtree_end_[i]);
}

TimeNs OpStats::self_device(std::size_t e) const {
  TimeNs sum = 0;
  for (std::uint32_t a : launched(e)) sum += p_.gpu_activities[a].end - p_.gpu_activities[a].start;
  return sum;
}

TimeNs OpStats::self_tc(std::size_t e) const {
  TimeNs sum = 0;
  for (std::uint32_t a : launched(e)) {
    const GpuActivity& act = p_.gpu_activities[a];
    if (act.kind == GpuActivityKind::Kernel && classes_.tensor_core_kernel(act.name))
      sum += act.end - act.start;
  }
  return sum;
}

TimeNs OpStats::total_device(std::size_t e) const {
  TimeNs sum = 0;
  for (std::size_t k = e; k < subtree_end_[e]; ++k) sum += self_device(k);
  return sum;
}

TimeNs OpStats::total_tc(std::size_t e) const {
  TimeNs sum = 0;
  for (std::size_t k = e; k < subtree_end_[e]; ++k) sum += self_tc(k);
  return sum;
}

const KernelPrecisionPattern* OpStats::kernel_precision(std::size_t e) const {
  // A few kernels per op: a short list of (entry, time) beats a map.
  std::vector<std::pair<const KernelPrecisionPattern*, TimeNs>> times;
  for (std::size_t k = e; k < subtree_end_[e]; ++k)
    for (std::uint32_t a : launched(k)) {
      const GpuActivity& act = p_.gpu_activities[a];
      if (act.kind != GpuActivityKind::Kernel) continue;
      const KernelPrecisionPattern* precision =
          classes_.tensor_core_kernel.precision(classes_.tensor_core_kernel.verdict(act.name));
      if (!precision) continue;
      auto found =
          std::find_if(times.begin(), times.end(), [&](const auto& t) { return t.first == precision; });
      if (found == times.end()) {
        times.emplace_back(precision, 0);
        found = times.end() - 1;
      }
      found->second += act.end - act.start;
    }
  auto most = std::max_element(times.begin(), times.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return most == times.end() ? nullptr : most->first;
}

std::uint32_t OpStats::self_kernels(std::size_t e) const {
  std::uint32_t n = 0;
  for (std::uint32_t a : launched(e)) n += p_.gpu_activities[a].kind == GpuActivityKind::Kernel;
  return n;
}

// Children follow their parents, so one reverse pass finds eligible ops: an op is eligible by
// name, by launching a Tensor Core kernel, or by calling an eligible op.
void OpStats::mark_eligible(NameClasses& classes) {
  const auto& events = p_.host_events;
  std::vector<bool> eligible_below(events.size(), false);
  for (std::size_t i = events.size(); i-- > 0;) {
    const HostEvent& e = events[i];
    if ((flags_[i] & kOp) && (classes.eligible_op(e.name) || self_tc(i) > 0 || eligible_below[i])) {
      flags_[i] |= kEligible;
      if (!eligible_below[i]) flags_[i] |= kBottomEligible;
    }
    if (e.parent != kNone)
      eligible_below[e.parent] = eligible_below[e.parent] || eligible_below[i] || (flags_[i] & kEligible);
  }
}

}  // namespace perfgate
