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

// Each list is built as a union while the events are read (GPU activities and runtime calls come
// sorted by start, host events by thread and start), so the raw intervals are never all held.
ActivityIntervals classify_intervals(const Profile& p, const Attribution& a, NameClasses& classes,
                                     const std::vector<std::uint32_t>& step_markers,
                                     bool communication_host_time) {
  SortedUnion compute, communication_kernels, tensor_core, memcpy, memset;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    Interval r{act.start, act.end};
    switch (act.kind) {
      case GpuActivityKind::Kernel:
        (is_communication_kernel(p, a, classes, i) ? communication_kernels : compute).add(r);
        if (classes.tensor_core_kernel(act.name)) tensor_core.add(r);
        break;
      case GpuActivityKind::Memcpy:
        memcpy.add(r);
        break;
      case GpuActivityKind::Memset:
        memset.add(r);
        break;
    }
  }
  std::vector<bool> is_marker(p.host_events.size(), false);
  for (std::uint32_t m : step_markers) is_marker[m] = true;
  SortedUnion dataloader, communication_ops, cpu_ops, runtime;
  // A collective's host wrapper is host time where the GPUs did the communicating (vllm::all_reduce:
  // 12.64 ms of Python choosing an all-reduce around a 1.1 ms kernel, issue 72); without GPU work
  // the collective runs on the CPU (gloo) and its host range is the communication.
  bool host_ranges_communicate = communication_host_time || p.gpu_activities.empty();
  for (std::size_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (is_marker[i] || e.kind == HostKind::PythonFunction) continue;
    Interval r{e.start, e.end};
    if (classes.dataloader_op(e.name))
      dataloader.add(r);
    else if (host_ranges_communicate && classes.communication_op(e.name))
      communication_ops.add(r);
    else
      cpu_ops.add(r);
  }
  for (const RuntimeCall& c : p.runtime_calls) runtime.add({c.start, c.end});

  ActivityIntervals out;
  out.compute_kernels = compute.take();
  out.communication_kernels = communication_kernels.take();
  out.tensor_core_kernels = tensor_core.take();
  out.memcpy = memcpy.take();
  out.memset = memset.take();
  out.communication_ops = communication_ops.take();
  out.runtime = runtime.take();
  out.dataloader = dataloader.take();
  out.cpu_ops = cpu_ops.take();
  return out;
}

}  // namespace perfgate
