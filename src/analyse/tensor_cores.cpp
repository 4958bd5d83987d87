#include "analyse/tensor_cores.h"

#include "analyse/intervals.h"

namespace perfgate {
namespace {

struct PerOp {
  std::vector<TimeNs> self_kernel;  // window time of kernels the op launched itself
  std::vector<TimeNs> self_tc_kernel;
  std::vector<bool> launched_tc;  // any Tensor Core kernel, in or out of the window
};

PerOp self_kernel_times(const Profile& p, const Attribution& a, NameClasses& classes, Interval window,
                        TensorCoreSums& sums) {
  PerOp per;
  per.self_kernel.assign(p.host_events.size(), 0);
  per.self_tc_kernel.assign(p.host_events.size(), 0);
  per.launched_tc.assign(p.host_events.size(), false);
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& k = p.gpu_activities[i];
    if (k.kind != GpuActivityKind::Kernel) continue;
    bool tc = classes.tensor_core_kernel(k.name);
    TimeNs inside = overlap({k.start, k.end}, window);
    sums.kernel_ns += inside;
    if (tc) sums.tc_kernel_ns += inside;
    std::uint32_t owner = a.activity_owner(i);
    if (owner == kNone) continue;
    per.self_kernel[owner] += inside;
    if (tc) {
      per.self_tc_kernel[owner] += inside;
      per.launched_tc[owner] = true;
    }
  }
  return per;
}

}  // namespace

TensorCoreSums tensor_core_sums(const Profile& p, const Attribution& a, NameClasses& classes,
                                const Window& window) {
  TensorCoreSums sums;
  PerOp per = self_kernel_times(p, a, classes, {window.start, window.end}, sums);
  const auto& events = p.host_events;
  std::size_t n = events.size();
  std::vector<bool> eligible(n, false), eligible_below(n, false);
  std::vector<TimeNs> total_kernel(per.self_kernel), total_tc(per.self_tc_kernel);

  // Children follow their parents in host_events, so a reverse pass sees every child first.
  for (std::size_t i = n; i-- > 0;) {
    const HostEvent& e = events[i];
    if (e.kind == HostKind::Op) {
      eligible[i] = classes.eligible_op(e.name) || per.launched_tc[i] || eligible_below[i];
      sums.op_kernel_ns += per.self_kernel[i];
      if (eligible[i] && !eligible_below[i]) {
        sums.eligible_self_kernel_ns += per.self_kernel[i];
        sums.eligible_total_kernel_ns += total_kernel[i];
        sums.eligible_tc_kernel_ns += total_tc[i];
        if (total_kernel[i] > 0 && total_tc[i] == 0) ++sums.eligible_ops_without_tc;
      }
    }
    if (e.parent != kNone) {
      eligible_below[e.parent] = eligible_below[e.parent] || eligible[i] || eligible_below[i];
      total_kernel[e.parent] += total_kernel[i];
      total_tc[e.parent] += total_tc[i];
    }
  }
  return sums;
}

}  // namespace perfgate
