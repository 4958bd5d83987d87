#include "analyse/tensor_cores.h"

#include "analyse/intervals.h"

namespace perfgate {
namespace {

// Kernel time an op launched itself (not through a child op), for the ops that launched any.
struct OwnedKernelTime {
  std::uint32_t owner = kNone;
  bool launched_tc = false;  // any Tensor Core kernel, in or out of the window
  TimeNs kernel = 0;         // window time of the kernels
  TimeNs tc_kernel = 0;
};

// Sorted by owner, one entry per owner: far fewer than the host events.
std::vector<OwnedKernelTime> owned_kernel_times(const Profile& p, const Attribution& a, NameClasses& classes,
                                                Interval window, bool count_unlaunched,
                                                TensorCoreSums& sums) {
  std::vector<OwnedKernelTime> owned;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& k = p.gpu_activities[i];
    if (k.kind != GpuActivityKind::Kernel) continue;
    bool tc = classes.tensor_core_kernel(k.name);
    TimeNs inside = overlap({k.start, k.end}, window);
    if (count_unlaunched || a.activity_runtime[i] != kNone) {
      sums.kernel_ns += inside;
      if (tc) sums.tc_kernel_ns += inside;
    }
    std::uint32_t owner = a.activity_owner(i);
    if (owner != kNone) owned.push_back({owner, tc, inside, tc ? inside : 0});
  }
  std::stable_sort(owned.begin(), owned.end(),
                   [](const OwnedKernelTime& x, const OwnedKernelTime& y) { return x.owner < y.owner; });
  std::size_t kept = 0;
  for (const OwnedKernelTime& o : owned) {
    if (kept > 0 && owned[kept - 1].owner == o.owner) {
      OwnedKernelTime& sum = owned[kept - 1];
      sum.launched_tc = sum.launched_tc || o.launched_tc;
      sum.kernel += o.kernel;
      sum.tc_kernel += o.tc_kernel;
    } else {
      owned[kept++] = o;
    }
  }
  owned.resize(kept);
  return owned;
}

// An open range on the current thread's ancestor chain, with what its subtree has so far.
struct OpenRange {
  std::uint32_t event;
  OwnedKernelTime self;
  TimeNs total_kernel;
  TimeNs total_tc;
  bool eligible_below;
};

class TensorCoreWalk {
 public:
  TensorCoreWalk(const Profile& p, NameClasses& classes, TensorCoreSums& sums)
      : events_(p.host_events), classes_(classes), sums_(sums) {}

  // Events come by thread in pre-order, so a range's parent is on the chain when it arrives and
  // its subtree is complete when it leaves the chain.
  void enter(std::uint32_t i, const OwnedKernelTime& self) {
    const HostEvent& e = events_[i];
    while (!chain_.empty() &&
           (events_[chain_.back().event].thread != e.thread || chain_.back().event != e.parent))
      leave();
    chain_.push_back({i, self, self.kernel, self.tc_kernel, false});
  }
  void finish() {
    while (!chain_.empty()) leave();
  }

 private:
  void leave() {
    OpenRange r = chain_.back();
    chain_.pop_back();
    const HostEvent& e = events_[r.event];
    bool eligible = false;
    if (e.kind == HostKind::Op) {
      eligible = classes_.eligible_op(e.name) || r.self.launched_tc || r.eligible_below;
      sums_.op_kernel_ns += r.self.kernel;
      if (eligible && !r.eligible_below) {
        sums_.eligible_self_kernel_ns += r.self.kernel;
        sums_.eligible_total_kernel_ns += r.total_kernel;
        sums_.eligible_tc_kernel_ns += r.total_tc;
        if (r.total_kernel > 0 && r.total_tc == 0) ++sums_.eligible_ops_without_tc;
      }
    }
    if (chain_.empty() || chain_.back().event != e.parent) return;
    OpenRange& parent = chain_.back();
    parent.eligible_below = parent.eligible_below || eligible || r.eligible_below;
    parent.total_kernel += r.total_kernel;
    parent.total_tc += r.total_tc;
  }

  const std::vector<HostEvent>& events_;
  NameClasses& classes_;
  TensorCoreSums& sums_;
  std::vector<OpenRange> chain_;
};

}  // namespace

TensorCoreSums tensor_core_sums(const Profile& p, const Attribution& a, NameClasses& classes,
                                const Window& window, bool count_unlaunched) {
  TensorCoreSums sums;
  std::vector<OwnedKernelTime> owned =
      owned_kernel_times(p, a, classes, {window.start, window.end}, count_unlaunched, sums);
  TensorCoreWalk walk(p, classes, sums);
  auto next_owned = owned.begin();
  for (std::uint32_t i = 0; i < p.host_events.size(); ++i) {
    OwnedKernelTime self;
    if (next_owned != owned.end() && next_owned->owner == i) self = *next_owned++;
    walk.enter(i, self);
  }
  walk.finish();
  return sums;
}

}  // namespace perfgate
