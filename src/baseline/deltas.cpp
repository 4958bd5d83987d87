// Per-op, per-region and per-kernel changes against the baseline. Times and calls are per window
// step, so that runs that profiled different numbers of steps compare; every such column says so
// in its name ("_per_step"), which every output shows in its header. Where either run has no steps
// (nsys exports often have none) each run's whole window is compared instead: the columns keep
// their names, and the table's description and every output say so.
//
// User regions (record_function and user annotations) have a table of their own: PyTorch 2.x
// records the DataLoader's `enumerate(DataLoader)#...__next__` as a user annotation, not an op, and
// a region's times include what runs inside it, so they would count twice among the ops' self times.
//
// "step_time_deltas" puts every part of the step time that can grow side by side (each op's GPU and
// host self time, each region's host time, the GPU idle time) so that the step-time rule names what
// grew most wherever it is: a slower DataLoader is host time and GPU idle, not GPU op time.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "baseline/memory_site_deltas.h"
#include "perfgate/baseline.h"

namespace perfgate {
namespace {

// A change smaller than this (µs per step, or this share of the baseline) is "unchanged".
constexpr double kNoiseUs = 1.0;
constexpr double kNoiseShare = 0.01;

struct Pair {
  std::optional<BaselineRow> before, after;
};

std::string change_of(std::optional<double> before, std::optional<double> after) {
  if (!before) return "new";
  if (!after) return "gone";
  double delta = *after - *before;
  if (std::fabs(delta) < std::max(kNoiseUs, kNoiseShare * *before)) return "unchanged";
  return delta > 0 ? "regression" : "improvement";
}

std::optional<double> total_us(const std::optional<BaselineRow>& r) {
  if (!r) return std::nullopt;
  return r->gpu_us + r->cpu_us;
}

std::string change_of(const Pair& p) {
  return change_of(total_us(p.before), total_us(p.after));
}

BaselineRow per_step(BaselineRow row, double steps) {
  row.gpu_us /= steps;
  row.cpu_us /= steps;
  row.calls /= steps;
  return row;
}

std::vector<Pair> pair_rows(const std::vector<BaselineRow>& before, double before_steps,
                            const std::vector<BaselineRow>& after, double after_steps) {
  std::map<std::string, Pair> by_name;
  for (const auto& r : before) by_name[r.name].before = per_step(r, before_steps);
  for (const auto& r : after) by_name[r.name].after = per_step(r, after_steps);
  std::vector<Pair> pairs;
  for (auto& [name, p] : by_name) pairs.push_back(std::move(p));
  auto delta = [](const Pair& p) {
    auto total = [](const std::optional<BaselineRow>& r) { return r ? r->gpu_us + r->cpu_us : 0.0; };
    return total(p.after) - total(p.before);
  };
  std::stable_sort(pairs.begin(), pairs.end(),
                   [&](const Pair& a, const Pair& b) { return delta(a) > delta(b); });
  return pairs;
}

// A measure of a row, shown three times: in the baseline, now, and the difference.
struct Measure {
  std::string name;  // "gpu_us" -> baseline_gpu_us_per_step, gpu_us_per_step, delta_gpu_us_per_step
  double BaselineRow::*field;
  const char* unit;
  const char* what;  // "GPU time the op launched itself"
};

ReportCell value(const std::optional<BaselineRow>& r, double BaselineRow::*field) {
  if (!r) return std::monostate{};
  return (*r).*field;
}

// How the rows are counted, for the descriptions: per window step, or over each run's whole window.
struct Basis {
  bool per_step = true;
  const char* table() const {
    return per_step ? "per window step" : "over each run's whole window (a run has no steps)";
  }
  const char* column() const { return per_step ? "per step" : "over the whole window"; }
};

ReportTable delta_table(ReportTable t, const char* item, const std::vector<Measure>& measures,
                        const std::vector<Pair>& pairs, Basis basis) {
  t.description = fmt::format(fmt::runtime(t.description), basis.table());
  t.columns = {{"name", "", std::string(item) + " name"},
               {"change", "", "regression, improvement, unchanged (under 1 us or 1%), new or gone"}};
  for (const Measure& m : measures) {
    std::string name = m.name + "_per_step";
    t.columns.push_back(
        {"baseline_" + name, m.unit, fmt::format("Baseline: {}, {}", m.what, basis.column())});
    t.columns.push_back({name, m.unit, fmt::format("This run: {}, {}", m.what, basis.column())});
    t.columns.push_back(
        {"delta_" + name, m.unit, fmt::format("Change {}: {} - baseline_{}", basis.column(), name, name)});
  }
  for (const Pair& p : pairs) {
    std::vector<ReportCell> row = {p.after ? p.after->name : p.before->name, change_of(p)};
    for (const Measure& m : measures) {
      row.push_back(value(p.before, m.field));
      row.push_back(value(p.after, m.field));
      row.push_back((p.after ? (*p.after).*m.field : 0.0) - (p.before ? (*p.before).*m.field : 0.0));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

ReportTable op_deltas(const std::vector<Pair>& pairs, Basis basis) {
  return delta_table({"op_deltas",
                      "Op changes against the baseline",
                      "Ops by name, {}; largest regression first (GPU plus host self time)",
                      {},
                      {}},
                     "Op",
                     {{"gpu_us", &BaselineRow::gpu_us, "us", "GPU time the op launched itself"},
                      {"cpu_us", &BaselineRow::cpu_us, "us", "host self time"},
                      {"calls", &BaselineRow::calls, "count", "calls"}},
                     pairs, basis);
}

ReportTable region_deltas(const std::vector<Pair>& pairs, Basis basis) {
  return delta_table(
      {"region_deltas",
       "Region changes against the baseline",
       "User regions (record_function, user annotations such as the DataLoader's), {}; largest "
       "regression first (host plus GPU time)",
       {},
       {}},
      "Region",
      {{"cpu_us", &BaselineRow::cpu_us, "us", "host time of the ranges"},
       {"gpu_us", &BaselineRow::gpu_us, "us", "GPU time of the work launched inside the ranges"},
       {"calls", &BaselineRow::calls, "count", "ranges"}},
      pairs, basis);
}

ReportTable kernel_deltas(const std::vector<Pair>& pairs, Basis basis) {
  return delta_table({"kernel_deltas",
                      "Kernel changes against the baseline",
                      "Kernels by name, {}; largest regression first",
                      {},
                      {}},
                     "Kernel",
                     {{"us", &BaselineRow::gpu_us, "us", "total duration"},
                      {"calls", &BaselineRow::calls, "count", "calls"}},
                     pairs, basis);
}

// One part of the step time in both runs: an op's GPU or host self time, a region's host time or
// the GPU idle time. Absent where the run has no such op or region.
struct Contribution {
  std::string label, kind, name;
  std::optional<double> before, after;
  double delta() const { return after.value_or(0) - before.value_or(0); }
};

std::optional<double> field_of(const std::optional<BaselineRow>& r, double BaselineRow::*field) {
  if (!r) return std::nullopt;
  return (*r).*field;
}

// The pairs' `field` as contributions, leaving out those that are zero in both runs (an op with no
// GPU work has no GPU row).
void add_contributions(std::vector<Contribution>& out, const std::vector<Pair>& pairs,
                       double BaselineRow::*field, const char* kind, const char* suffix) {
  for (const Pair& p : pairs) {
    Contribution c{"", kind, p.after ? p.after->name : p.before->name, field_of(p.before, field),
                   field_of(p.after, field)};
    if (c.before.value_or(0) == 0 && c.after.value_or(0) == 0) continue;
    c.label = fmt::format("{} ({})", c.name, suffix);
    out.push_back(std::move(c));
  }
}

// The GPU idle time of a run, summed over its GPUs as the ops' times are summed over its workers:
// gpu.idle_pct of the mean step (per step), or of the window over every run pooled (whole window).
std::optional<double> idle_us(const Baseline& run, Basis basis) {
  auto idle_pct = run.metric(Metric::GpuIdlePct), gpus = run.metric(Metric::GpuCount);
  auto span = basis.per_step ? run.metric(Metric::StepsMeanUs) : run.metric(Metric::WindowWallUs);
  if (!idle_pct || !gpus || !span) return std::nullopt;
  double runs = basis.per_step ? 1 : static_cast<double>(std::max<std::size_t>(run.info.runs, 1));
  return *idle_pct / 100 * *span * *gpus * runs;
}

ReportTable step_time_deltas(std::vector<Contribution> parts, Basis basis) {
  std::stable_sort(parts.begin(), parts.end(), [](const Contribution& a, const Contribution& b) {
    return a.delta() != b.delta() ? a.delta() > b.delta() : a.label < b.label;
  });
  ReportTable t{
      "step_time_deltas",
      "What the step time grew by",
      fmt::format("Every part of the step time that can grow, {}: each op's GPU self time and host "
                  "self time, each user region's host time and the GPU idle time; largest growth "
                  "first. The rows overlap (a region holds ops, host time runs beside GPU time, "
                  "the GPU is idle while the host works): they are not to be summed",
                  basis.table()),
      {{"label", "", "What grew: the op or region name with (GPU), (host) or (region), or GPU idle"},
       {"kind", "",
        "GPU op (its GPU self time), host op (its host self time), region (its host "
        "time) or GPU idle (gpu.idle_pct of the mean step, or of the window where a "
        "run has no steps, summed over the GPUs)"},
       {"name", "", "Op or region name (empty for GPU idle)"},
       {"change", "", "regression, improvement, unchanged (under 1 us or 1%), new or gone"},
       {"baseline_us_per_step", "us", fmt::format("Baseline: the time, {}", basis.column())},
       {"us_per_step", "us", fmt::format("This run: the time, {}", basis.column())},
       {"delta_us_per_step", "us",
        fmt::format("Change {}: us_per_step - baseline_us_per_step", basis.column())}},
      {}};
  for (const Contribution& c : parts) {
    auto cell = [](std::optional<double> v) -> ReportCell {
      if (!v) return std::monostate{};
      return *v;
    };
    t.rows.push_back(
        {c.label, c.kind, c.name, change_of(c.before, c.after), cell(c.before), cell(c.after), c.delta()});
  }
  return t;
}

}  // namespace

std::vector<ReportTable> delta_tables(const ReportModel& current, const Baseline& baseline) {
  Baseline now = baseline_from_report(current, "", "");
  Basis basis{changes_per_step(now.info.steps, baseline.info.steps)};
  double now_steps = basis.per_step ? static_cast<double>(now.info.steps) : 1;
  double base_steps = basis.per_step ? static_cast<double>(baseline.info.steps) : 1;
  std::vector<Pair> ops = pair_rows(baseline.ops, base_steps, now.ops, now_steps);
  std::vector<Pair> regions = pair_rows(baseline.regions, base_steps, now.regions, now_steps);
  std::vector<Contribution> parts;
  add_contributions(parts, ops, &BaselineRow::gpu_us, "GPU op", "GPU");
  add_contributions(parts, ops, &BaselineRow::cpu_us, "host op", "host");
  add_contributions(parts, regions, &BaselineRow::cpu_us, "region", "region");
  auto idle_before = idle_us(baseline, basis), idle_now = idle_us(now, basis);
  if (idle_before && idle_now) parts.push_back({"GPU idle", "GPU idle", "", idle_before, idle_now});
  std::vector<ReportTable> tables = {
      step_time_deltas(std::move(parts), basis), op_deltas(ops, basis), region_deltas(regions, basis),
      kernel_deltas(pair_rows(baseline.kernels, base_steps, now.kernels, now_steps), basis)};
  tables.push_back(largest_changes_table(tables, basis.per_step, kChangesPerItem));
  // Bytes at a peak are no time: after "changes", which reads the tables of times before it.
  tables.push_back(memory_site_deltas(baseline.memory_sites, now.memory_sites));
  return tables;
}

}  // namespace perfgate
