#include "analyse/ops/kernels_table.h"

#include <algorithm>
#include <map>

#include "analyse/ops/op_info.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

// A kernel's calls so far: only numbers and pointers, so that many of them (a launching op a step,
// each op's name with the step in it) sit in one array the memory budget can spill.
struct KernelAccumulator {
  std::uint64_t calls = 0;
  TimeNs total = 0;
  TimeNs min = 0;
  TimeNs max = 0;
  bool launch_config_varies = false;
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
  TimeNs d = k.end - k.start;
  acc.min = acc.calls == 0 ? d : std::min(acc.min, d);
  acc.max = std::max(acc.max, d);
  ++acc.calls;
  acc.total += d;
  const KernelLaunchInfo& info = p.kernel_info[k.kernel_info];
  if (!acc.first) acc.first = &k;
  if (!same_launch(info, p.kernel_info[acc.first->kernel_info])) acc.launch_config_varies = true;
  if (!acc.longest || d > acc.longest->end - acc.longest->start) acc.longest = &k;
  if (info.occupancy_pct >= 0) {
    acc.occupancy_weighted += info.occupancy_pct * static_cast<double>(d);
    acc.occupancy_time += d;
  }
}

// The ops a compiled kernel's name lists; none for other kernels.
const FusedKernel* fused_kernel(NameClasses& classes, FusedNameCache& fused, StringId name) {
  return classes.compiled_kernel(name) ? fused(name) : nullptr;
}

KernelRow finish(const Profile& p, NameClasses& classes, FusedNameCache& fused, const KernelAccumulator& acc,
                 std::string op) {
  KernelRow r;
  r.calls = acc.calls;
  r.total = acc.total;
  r.min = acc.min;
  r.max = acc.max;
  r.launch_config_varies = acc.launch_config_varies;
  r.name = std::string(p.str(acc.first->name));
  r.short_name = short_kernel_name(r.name);
  r.op = std::move(op);
  TensorCoreRules::Verdict verdict = classes.tensor_core_kernel.verdict(acc.first->name);
  r.uses_tc = verdict.tensor_core;
  r.tc_rule = classes.tensor_core_kernel.rule_text(verdict);
  r.tc_rule_source = classes.tensor_core_kernel.rule_source(verdict);
  if (const KernelPrecisionPattern* k = classes.tensor_core_kernel.precision(verdict))
    r.precision = k->formats.empty() ? k->precision : k->precision + " (" + k->formats + ")";
  if (const FusedKernel* k = fused_kernel(classes, fused, acc.first->name)) {
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

// The rows of a table under the report's row limit as they are made, so that no more than twice the
// limit are held: the same rows and "(N more)" totals as the report's RowLimiter
// (report_model/table_limits.h) makes of every row. Ranked and summed by the microseconds the
// report's cells hold (report/report_cells.h), in batches as it ranks them (a stable sort: ties keep
// the order the rows came in). 200,000 steps held 78 MB of rows when the report cut them.
class KeptTopRows {
 public:
  KeptTopRows(std::vector<TopKernelRow>& rows, RowsSetAside& aside, std::size_t limit)
      : rows_(rows), aside_(aside), limit_(limit) {}

  void add(TopKernelRow row) {
    rows_.push_back(std::move(row));
    if (limit_ > 0 && rows_.size() >= 2 * limit_) set_aside();
  }

  void set_aside() {
    if (limit_ == 0 || rows_.size() <= limit_) return;
    std::stable_sort(rows_.begin(), rows_.end(),
                     [](const TopKernelRow& a, const TopKernelRow& b) { return us(a.total) > us(b.total); });
    for (std::size_t r = limit_; r < rows_.size(); ++r) {
      ++aside_.rows;
      aside_.calls += rows_[r].calls;
      aside_.total_us += us(rows_[r].total);
    }
    rows_.resize(limit_);
  }

 private:
  static double us(TimeNs ns) { return static_cast<double>(ns) / 1000.0; }

  std::vector<TopKernelRow>& rows_;
  RowsSetAside& aside_;
  std::size_t limit_;
};

void kernels_by_iteration(const Profile& p, const StepDetection& steps, const Window& window,
                          std::size_t table_rows, WorkerTables& out) {
  KeptTopRows kept(out.kernels_by_iteration, out.kernels_by_iteration_set_aside, table_rows);
  std::vector<TopKernelRow> step_rows;
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
    step_rows.clear();
    append_top(step_rows, s.name, std::move(rows), kTopKernelsPerStep);
    for (TopKernelRow& r : step_rows) kept.add(std::move(r));
  }
  kept.set_aside();
}

// A kernel name and launching op with its calls: an element of one array, not a map's node (a
// launching op a step held 78 MB of nodes at 200,000 steps).
struct OpKernel {
  StringId name = kNoString;
  StringId op = kNone;  // kNone: launched by no op
  KernelAccumulator acc;
};

std::string_view op_text(const Profile& p, StringId op) {
  return op == kNone ? std::string_view(kNoOpName) : p.str(op);
}

// The kernels in the window by name and launching op, in the by-kernel-and-op table's order
// (by_total: most time first, then by name and op).
std::vector<OpKernel> kernels_by_name_and_op(const Profile& p, const Attribution& a, const Window& window) {
  std::vector<std::pair<OpKernel, std::uint32_t>> uses;  // (name, op), the activity
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& k = p.gpu_activities[i];
    if (k.kind != GpuActivityKind::Kernel || k.start < window.start || k.start >= window.end) continue;
    std::uint32_t owner = a.activity_owner(i);
    uses.push_back(
        {{k.name, owner == kNone ? kNone : p.host_events[owner].name, {}}, static_cast<std::uint32_t>(i)});
  }
  // Each name and op's calls in trace order, as a map of them added them.
  std::sort(uses.begin(), uses.end(), [](const auto& x, const auto& y) {
    return std::tie(x.first.name, x.first.op, x.second) < std::tie(y.first.name, y.first.op, y.second);
  });
  std::vector<OpKernel> out;
  for (const auto& [use, activity] : uses) {
    if (out.empty() || out.back().name != use.name || out.back().op != use.op) out.push_back(use);
    add(p, p.gpu_activities[activity], out.back().acc);
  }
  std::sort(out.begin(), out.end(), [&p](const OpKernel& x, const OpKernel& y) {
    if (x.acc.total != y.acc.total) return x.acc.total > y.acc.total;
    return std::pair(p.str(x.name), op_text(p, x.op)) < std::pair(p.str(y.name), op_text(p, y.op));
  });
  return out;
}

// kernels_by_op: the first `table_rows` of `kernels` (what the report keeps of them: they come most
// time first) made rows, the others summed as the report sums its cells.
void kernels_by_op(const Profile& p, NameClasses& classes, FusedNameCache& fused,
                   const std::vector<OpKernel>& kernels, std::size_t table_rows, WorkerTables& out) {
  std::size_t kept = table_rows == 0 ? kernels.size() : std::min(table_rows, kernels.size());
  out.kernels_by_op.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i)
    out.kernels_by_op.push_back(
        finish(p, classes, fused, kernels[i].acc, std::string(op_text(p, kernels[i].op))));
  RowsSetAside& aside = out.kernels_by_op_set_aside;
  for (std::size_t i = kept; i < kernels.size(); ++i) {
    ++aside.rows;
    aside.calls += kernels[i].acc.calls;
    aside.total_us += static_cast<double>(kernels[i].acc.total) / 1000.0;
    if (const FusedKernel* k = fused_kernel(classes, fused, kernels[i].name))
      aside.fused = aside.fused || !k->ops_text().empty();
  }
}

// kernels_by_op_top: each op's kernels (in `kernels`' order), the ops with the most time first.
void kernels_by_op_top(const Profile& p, const std::vector<OpKernel>& kernels, std::size_t table_rows,
                       WorkerTables& out) {
  std::vector<std::uint32_t> by_op(kernels.size());
  for (std::uint32_t i = 0; i < by_op.size(); ++i) by_op[i] = i;
  std::stable_sort(by_op.begin(), by_op.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return kernels[x].op < kernels[y].op; });
  struct OpTotal {
    StringId op;
    TimeNs total;
    std::size_t begin, end;  // in by_op
  };
  std::vector<OpTotal> order;
  for (std::size_t i = 0; i < by_op.size(); ++i) {
    StringId op = kernels[by_op[i]].op;
    if (order.empty() || order.back().op != op) order.push_back({op, 0, i, i});
    order.back().total += kernels[by_op[i]].acc.total;
    order.back().end = i + 1;
  }
  std::sort(order.begin(), order.end(), [&p](const OpTotal& x, const OpTotal& y) {
    return x.total != y.total ? x.total > y.total : op_text(p, x.op) < op_text(p, y.op);
  });
  KeptTopRows kept(out.kernels_by_op_top, out.kernels_by_op_top_set_aside, table_rows);
  std::vector<TopKernelRow> op_rows;
  for (const OpTotal& o : order) {
    std::string op(op_text(p, o.op));
    std::vector<TopKernelRow> rows;
    rows.reserve(o.end - o.begin);
    for (std::size_t i = o.begin; i < o.end; ++i) {
      const OpKernel& k = kernels[by_op[i]];
      rows.push_back({op, short_kernel_name(p.str(k.name)), k.acc.calls, k.acc.total});
    }
    op_rows.clear();
    append_top(op_rows, op, std::move(rows), kTopKernelsPerOp);
    for (TopKernelRow& r : op_rows) kept.add(std::move(r));
  }
  kept.set_aside();
}

}  // namespace

void build_kernel_tables(const Profile& p, const Attribution& a, NameClasses& classes,
                         const FusedNames& names, const StepDetection& steps, const Window& window,
                         std::size_t table_rows, WorkerTables& out, bool detailed) {
  FusedNameCache fused(names, p);
  std::map<StringId, KernelAccumulator> by_name;
  for (const GpuActivity& k : p.gpu_activities)
    if (k.kind == GpuActivityKind::Kernel && k.start >= window.start && k.start < window.end)
      add(p, k, by_name[k.name]);
  out.kernels.reserve(by_name.size());
  for (const auto& [name, acc] : by_name) out.kernels.push_back(finish(p, classes, fused, acc, ""));
  std::sort(out.kernels.begin(), out.kernels.end(), by_total);
  if (!detailed) return;
  std::vector<OpKernel> by_op = kernels_by_name_and_op(p, a, window);
  kernels_by_op(p, classes, fused, by_op, table_rows, out);
  kernels_by_op_top(p, by_op, table_rows, out);
  kernels_by_iteration(p, steps, window, table_rows, out);
}

}  // namespace perfgate
