#include "analyse/ops/kernels_table.h"

#include <algorithm>
#include <map>

#include "analyse/ops/op_info.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

struct KernelAccumulator {
  KernelRow row;
  const GpuActivity* longest = nullptr;
  const GpuActivity* first = nullptr;
  double occupancy_weighted = 0;
  TimeNs occupancy_time = 0;
};

bool same_launch(const KernelLaunchInfo& a, const KernelLaunchInfo& b) {
  return std::equal(a.grid, a.grid + 3, b.grid) && std::equal(a.block, a.block + 3, b.block) &&
         a.registers_per_thread == b.registers_per_thread && a.shared_memory == b.shared_memory;
}

void add(const Profile& p, const GpuActivity& k, KernelAccumulator& acc) {
  KernelRow& r = acc.row;
  TimeNs d = k.end - k.start;
  r.min = r.calls == 0 ? d : std::min(r.min, d);
  r.max = std::max(r.max, d);
  ++r.calls;
  r.total += d;
  const KernelLaunchInfo& info = p.kernel_info[k.kernel_info];
  if (!acc.first) acc.first = &k;
  if (!same_launch(info, p.kernel_info[acc.first->kernel_info])) r.launch_config_varies = true;
  if (!acc.longest || d > acc.longest->end - acc.longest->start) acc.longest = &k;
  if (info.occupancy_pct >= 0) {
    acc.occupancy_weighted += info.occupancy_pct * static_cast<double>(d);
    acc.occupancy_time += d;
  }
}

KernelRow finish(const Profile& p, NameClasses& classes, FusedNameCache& fused, KernelAccumulator& acc,
                 std::string op) {
  KernelRow r = std::move(acc.row);
  r.name = std::string(p.str(acc.first->name));
  r.short_name = short_kernel_name(r.name);
  r.op = std::move(op);
  TensorCoreRules::Verdict verdict = classes.tensor_core_kernel.verdict(acc.first->name);
  r.uses_tc = verdict.tensor_core;
  r.tc_rule = classes.tensor_core_kernel.rule_text(verdict);
  if (const KernelPrecisionPattern* k = classes.tensor_core_kernel.precision(verdict))
    r.precision = k->formats.empty() ? k->precision : k->precision + " (" + k->formats + ")";
  if (classes.compiled_kernel(acc.first->name))
    if (const FusedKernel* k = fused(acc.first->name)) {
      r.fused_ops = k->ops_text();
      if (k->pattern) r.fused_as = k->pattern->name;
    }
  const KernelLaunchInfo& info = p.kernel_info[acc.longest->kernel_info];
  std::copy(info.grid, info.grid + 3, r.grid.begin());
  std::copy(info.block, info.block + 3, r.block.begin());
  r.registers_per_thread = info.registers_per_thread;
  r.shared_memory = info.shared_memory;
  if (acc.occupancy_time > 0)
    r.occupancy_pct = acc.occupancy_weighted / static_cast<double>(acc.occupancy_time);
  return r;
}

bool by_total(const KernelRow& a, const KernelRow& b) {
  return a.total != b.total ? a.total > b.total : std::tie(a.name, a.op) < std::tie(b.name, b.op);
}

// The top `limit` rows of a group and one "other" row for the rest.
void append_top(std::vector<TopKernelRow>& out, const std::string& group, std::vector<TopKernelRow> rows,
                std::size_t limit) {
  std::sort(rows.begin(), rows.end(), [](const TopKernelRow& a, const TopKernelRow& b) {
    return a.total != b.total ? a.total > b.total : a.kernel < b.kernel;
  });
  TopKernelRow other{group, "(other kernels)", 0, 0};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i < limit) {
      out.push_back(std::move(rows[i]));
    } else {
      other.calls += rows[i].calls;
      other.total += rows[i].total;
    }
  }
  if (other.calls > 0) out.push_back(other);
}

void kernels_by_iteration(const Profile& p, const StepDetection& steps, const Window& window,
                          WorkerTables& out) {
  for (std::size_t index : window.steps) {
    const Step& s = steps.steps[index];
    std::map<StringId, TopKernelRow> kernels;
    auto first = std::lower_bound(p.gpu_activities.begin(), p.gpu_activities.end(), s.start,
                                  [](const GpuActivity& a, TimeNs t) { return a.start < t; });
    for (auto it = first; it != p.gpu_activities.end() && it->start < s.end; ++it) {
      if (it->kind != GpuActivityKind::Kernel) continue;
      TopKernelRow& r = kernels[it->name];
      ++r.calls;
      r.total += it->end - it->start;
    }
    std::vector<TopKernelRow> rows;
    for (auto& [name, r] : kernels) {
      r.group = s.name;
      r.kernel = short_kernel_name(p.str(name));
      rows.push_back(std::move(r));
    }
    append_top(out.kernels_by_iteration, s.name, std::move(rows), kTopKernelsPerStep);
  }
}

// Groups by reference into kernels_by_op: the strings are copied only for the rows kept.
void kernels_by_op_top(WorkerTables& out) {
  std::map<std::string_view, std::vector<const KernelRow*>> by_op;
  for (const KernelRow& k : out.kernels_by_op) by_op[k.op].push_back(&k);
  std::vector<std::pair<TimeNs, std::string_view>> order;
  for (const auto& [op, rows] : by_op) {
    TimeNs total = 0;
    for (const KernelRow* r : rows) total += r->total;
    order.emplace_back(total, op);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto& [total, op] : order) {
    std::vector<TopKernelRow> rows;
    rows.reserve(by_op[op].size());
    for (const KernelRow* k : by_op[op]) rows.push_back({std::string(op), k->short_name, k->calls, k->total});
    append_top(out.kernels_by_op_top, std::string(op), std::move(rows), kTopKernelsPerOp);
  }
}

}  // namespace

void build_kernel_tables(const Profile& p, const Attribution& a, NameClasses& classes,
                         const FusedNames& names, const StepDetection& steps, const Window& window,
                         WorkerTables& out) {
  FusedNameCache fused(names, p);
  std::map<StringId, KernelAccumulator> by_name;
  std::map<std::pair<StringId, StringId>, KernelAccumulator> by_op;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& k = p.gpu_activities[i];
    if (k.kind != GpuActivityKind::Kernel || k.start < window.start || k.start >= window.end) continue;
    std::uint32_t owner = a.activity_owner(i);
    add(p, k, by_name[k.name]);
    add(p, k, by_op[{k.name, owner == kNone ? kNone : p.host_events[owner].name}]);
  }
  // Each accumulator is freed as its row is made: a trace of many names never holds both whole.
  out.kernels.reserve(by_name.size());
  for (auto it = by_name.begin(); it != by_name.end(); it = by_name.erase(it))
    out.kernels.push_back(finish(p, classes, fused, it->second, ""));
  out.kernels_by_op.reserve(by_op.size());
  for (auto it = by_op.begin(); it != by_op.end(); it = by_op.erase(it)) {
    StringId op = it->first.second;
    out.kernels_by_op.push_back(
        finish(p, classes, fused, it->second, std::string(op == kNone ? kNoOpName : p.str(op))));
  }
  std::sort(out.kernels.begin(), out.kernels.end(), by_total);
  std::sort(out.kernels_by_op.begin(), out.kernels_by_op.end(), by_total);
  kernels_by_iteration(p, steps, window, out);
  kernels_by_op_top(out);
}

}  // namespace perfgate
