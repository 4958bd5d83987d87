#include "analyse/steps/iterations.h"

#include <algorithm>

#include "analyse/run/worker_hold.h"

namespace perfgate {

std::vector<IterationRow> iteration_rows(const Profile& p, NameClasses& classes, const StepDetection& steps,
                                         const Window& window, const ActivityIntervals& in) {
  std::vector<IterationRow> rows;
  RowHold hold(rows, [](IterationRow& r) { r.name = std::string(r.name); });  // a row a step (worker_hold.h)
  for (std::size_t index : window.steps) {
    const Step& s = steps.steps[index];
    IterationRow r;
    r.name = s.name;
    r.number = s.number;
    r.start = s.start;
    r.duration = s.duration();
    r.gpu = union_length_within(in.all_kernels(), {s.start, s.end});
    r.tc_gpu = length_within(in.tensor_core_kernels, {s.start, s.end});
    r.breakdown = s.breakdown;
    auto first = std::lower_bound(p.gpu_activities.begin(), p.gpu_activities.end(), s.start,
                                  [](const GpuActivity& a, TimeNs t) { return a.start < t; });
    for (auto it = first; it != p.gpu_activities.end() && it->start < s.end; ++it) {
      if (it->kind != GpuActivityKind::Kernel) continue;
      ++r.kernels;
      if (classes.tensor_core_kernel(it->name)) ++r.tc_kernels;
    }
    rows.push_back(std::move(r));
    hold.added();
  }
  hold.finish();
  return rows;
}

}  // namespace perfgate
