#include "analyse/ops/op_stats.h"

#include <algorithm>

#include "model/xla_hlo.h"

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
  sum_device_time();
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

// Durations as unsigned: sums wrap instead of overflowing, and a range's difference is exact. An
// XLA op that states its own time on the device (a TPU's asynchronous copy: its copy-done's, while
// its activity spans the transfer; model/xla_hlo.h) counts that time: the op tables count what held
// the device, as XProf's op metrics do, and a TPU's overlapping transfers are not summed.
void OpStats::sum_device_time() {
  std::size_t n = p_.host_events.size();
  device_prefix_.assign(n + 1, 0);
  tc_prefix_.assign(n + 1, 0);
  const XlaHlo* hlo = p_.xla_hlo.get();
  for (std::size_t e = 0; e < n; ++e) {
    std::uint64_t device = 0, tc = 0;
    for (std::uint32_t a : launched(e)) {
      const GpuActivity& act = p_.gpu_activities[a];
      auto d = static_cast<std::uint64_t>(act.end) - static_cast<std::uint64_t>(act.start);
      device += d;
      if (act.kind == GpuActivityKind::Kernel && classes_.tensor_core_kernel(act.name)) tc += d;
    }
    if (std::uint32_t details = p_.host_events[e].details;
        hlo && details != kNone && offsets_[e + 1] > offsets_[e])
      if (const XlaOp* op = hlo->op(details); op && op->own_ns >= 0)
        device = static_cast<std::uint64_t>(op->own_ns);
    device_prefix_[e + 1] = device_prefix_[e] + device;
    tc_prefix_[e + 1] = tc_prefix_[e] + tc;
  }
}

void OpStats::index_precisions() const {
  precisions_indexed_ = true;
  for (std::size_t k = 0; k < launches_.size(); ++k) {
    const GpuActivity& act = p_.gpu_activities[launches_[k]];
    if (act.kind != GpuActivityKind::Kernel) continue;
    const KernelPrecisionPattern* precision =
        classes_.tensor_core_kernel.precision(classes_.tensor_core_kernel.verdict(act.name));
    if (!precision) continue;
    auto found = std::find_if(precisions_.begin(), precisions_.end(),
                              [&](const PrecisionIndex& p) { return p.precision == precision; });
    if (found == precisions_.end()) {
      precisions_.push_back({precision, {}, {0}});
      found = precisions_.end() - 1;
    }
    found->positions.push_back(static_cast<std::uint32_t>(k));
    found->time.push_back(found->time.back() +
                          (static_cast<std::uint64_t>(act.end) - static_cast<std::uint64_t>(act.start)));
  }
}

// The entry of most time in the subtree's launch range; among equal times the first met, as a
// walk of the subtree in event and launch order finds them. O(entries x log launches).
const KernelPrecisionPattern* OpStats::kernel_precision(std::size_t e) const {
  if (!precisions_indexed_) index_precisions();
  std::uint32_t from = offsets_[e], to = offsets_[subtree_end_[e]];
  const KernelPrecisionPattern* best = nullptr;
  TimeNs best_time = 0;
  std::uint32_t best_first = 0;
  for (const PrecisionIndex& index : precisions_) {
    auto first = std::lower_bound(index.positions.begin(), index.positions.end(), from);
    if (first == index.positions.end() || *first >= to) continue;  // not met in this subtree
    auto last = std::lower_bound(first, index.positions.end(), to);
    TimeNs time = range_sum(index.time, static_cast<std::size_t>(first - index.positions.begin()),
                            static_cast<std::size_t>(last - index.positions.begin()));
    if (!best || time > best_time || (time == best_time && *first < best_first)) {
      best = index.precision;
      best_time = time;
      best_first = *first;
    }
  }
  return best;
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
