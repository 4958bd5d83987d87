#include "analyse/activity_intervals.h"

#include <algorithm>

namespace perfgate {

bool is_communication_kernel(const Profile& p, const Attribution& a, NameClasses& classes,
                             std::size_t activity) {
  const GpuActivity& act = p.gpu_activities[activity];
  if (classes.communication_kernel(act.name)) return true;
  std::uint32_t owner = a.activity_owner(activity);
  return owner != kNone && classes.communication_op(p.host_events[owner].name);
}

ActivityIntervals classify_intervals(const Profile& p, const Attribution& a, NameClasses& classes,
                                     const std::vector<std::uint32_t>& step_markers) {
  ActivityIntervals out;
  out.all_kernels.reserve(p.gpu_activities.size());
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    Interval r{act.start, act.end};
    switch (act.kind) {
      case GpuActivityKind::Kernel:
        out.all_kernels.push_back(r);
        (is_communication_kernel(p, a, classes, i) ? out.communication_kernels : out.compute_kernels)
            .push_back(r);
        if (classes.tensor_core_kernel(act.name)) out.tensor_core_kernels.push_back(r);
        break;
      case GpuActivityKind::Memcpy:
        out.memcpy.push_back(r);
        break;
      case GpuActivityKind::Memset:
        out.memset.push_back(r);
        break;
    }
  }
  std::vector<bool> is_marker(p.host_events.size(), false);
  for (std::uint32_t m : step_markers) is_marker[m] = true;
  out.cpu_ops.reserve(p.host_events.size());
  for (std::size_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (is_marker[i] || e.kind == HostKind::PythonFunction) continue;
    Interval r{e.start, e.end};
    if (classes.dataloader_op(e.name))
      out.dataloader.push_back(r);
    else if (classes.communication_op(e.name))
      out.communication_ops.push_back(r);
    else
      out.cpu_ops.push_back(r);
  }
  out.runtime.reserve(p.runtime_calls.size());
  for (const RuntimeCall& c : p.runtime_calls) out.runtime.push_back({c.start, c.end});
  for (IntervalList* list :
       {&out.compute_kernels, &out.communication_kernels, &out.tensor_core_kernels, &out.all_kernels,
        &out.memcpy, &out.memset, &out.communication_ops, &out.runtime, &out.dataloader, &out.cpu_ops})
    merge_in_place(*list);
  // Unions of lists already merged: far fewer intervals than the raw events.
  out.communication = unite(out.communication_kernels, out.communication_ops);
  out.memory = unite(out.memcpy, out.memset);
  out.host = unite(unite(out.cpu_ops, out.communication_ops), unite(out.dataloader, out.runtime));
  return out;
}

}  // namespace perfgate
