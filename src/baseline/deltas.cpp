// Per-op, per-region and per-kernel changes against the baseline. Times and calls are per window
// step, so that runs that profiled different numbers of steps compare; every such column says so
// in its name ("_per_step"), which every output shows in its header. Where either run has no steps
// (nsys exports often have none) they are per inferred unit where the gate matches the units both
// runs repeat ("_per_unit"), else each run's whole window ("_per_window"), and the table's
// description and every output say so (change_counting). Per inferred unit, and per step where both
// runs' steps are their inferred units, the ops, regions and kernels are the work inside the units
// both runs have, over their count (issue 95), where both runs' reports hold it.
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
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "baseline/memory_site_deltas.h"
#include "report_model/table_limits.h"

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
  std::string_view name;  // "gpu_us": baseline_gpu_us_per_step, gpu_us_per_step, delta_gpu_us_per_step
  double BaselineRow::*field;
};

ReportCell value(const std::optional<BaselineRow>& r, double BaselineRow::*field) {
  if (!r) return std::monostate{};
  return (*r).*field;
}

// `name` is `prefix`, then `middle`, then `suffix`.
constexpr bool spells(std::string_view name, std::string_view prefix, std::string_view middle,
                      std::string_view suffix) {
  return name.size() == prefix.size() + middle.size() + suffix.size() && name.starts_with(prefix) &&
         name.substr(prefix.size(), middle.size()) == middle && name.ends_with(suffix);
}

// The table's declared columns are a delta table's: name, change, then each measure's three in
// the measures' order, where the rows put their cells.
constexpr bool declares_measures(Table table, std::span<const Measure> measures) {
  std::span<const std::string_view> names = table_column_names(table);
  if (names.size() != 2 + 3 * measures.size() || names[0] != "name" || names[1] != "change") return false;
  for (std::size_t m = 0; m < measures.size(); ++m) {
    std::string_view measure = measures[m].name;
    if (!spells(names[2 + 3 * m], "baseline_", measure, "_per_step") ||
        !spells(names[3 + 3 * m], "", measure, "_per_step") ||
        !spells(names[4 + 3 * m], "delta_", measure, "_per_step"))
      return false;
  }
  return true;
}

constexpr Measure kOpMeasures[] = {
    {"gpu_us", &BaselineRow::gpu_us}, {"cpu_us", &BaselineRow::cpu_us}, {"calls", &BaselineRow::calls}};
constexpr Measure kRegionMeasures[] = {
    {"cpu_us", &BaselineRow::cpu_us}, {"gpu_us", &BaselineRow::gpu_us}, {"calls", &BaselineRow::calls}};
constexpr Measure kKernelMeasures[] = {{"us", &BaselineRow::gpu_us}, {"calls", &BaselineRow::calls}};
static_assert(declares_measures(Table::OpDeltas, kOpMeasures));
static_assert(declares_measures(Table::RegionDeltas, kRegionMeasures));
static_assert(declares_measures(Table::KernelDeltas, kKernelMeasures));

ReportTable delta_table(Table table, std::span<const Measure> measures, const std::vector<Pair>& pairs,
                        ChangeBasis basis) {
  ReportTable t = declared_table(table, {.basis = basis});
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
// gpu.idle_pct of the mean step (per step), or of the window over every run pooled, divided as the
// window totals are (per unit: by the run's units).
std::optional<double> idle_us(const Baseline& run, const ChangeCounting& counting, bool is_run) {
  bool per_step = counting.basis == ChangeBasis::Step;
  auto idle_pct = run.metric(Metric::GpuIdlePct), gpus = run.metric(Metric::GpuCount);
  auto span = per_step ? run.metric(Metric::StepsMeanUs) : run.metric(Metric::WindowWallUs);
  if (!idle_pct || !gpus || !span) return std::nullopt;
  if (per_step) return *idle_pct / 100 * *span * *gpus;
  double runs = static_cast<double>(std::max<std::size_t>(run.info.runs, 1));
  return *idle_pct / 100 * *span * *gpus * runs / (is_run ? counting.run_count : counting.baseline_count);
}

// The rows' cells: label, kind, name, change, then the time in the baseline, now, and the change.
static_assert(table_column_names(Table::StepTimeDeltas).size() == 7);

ReportTable step_time_deltas(std::vector<Contribution> parts, ChangeBasis basis) {
  std::stable_sort(parts.begin(), parts.end(), [](const Contribution& a, const Contribution& b) {
    return a.delta() != b.delta() ? a.delta() > b.delta() : a.label < b.label;
  });
  ReportTable t = declared_table(Table::StepTimeDeltas, {.basis = basis});
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

// At most `max_rows` rows (--max-rows, as every table; issue 92: a forged baseline of 1,000,000 op
// rows made op_deltas and step_time_deltas of 1,000,072 rows each): the largest changes either way
// (their time deltas' sizes; bytes where a table has no times), in the table's order, and one
// "(N more)" row with the others' sums.
void keep_largest_changes(ReportTable& t, std::size_t max_rows) {
  if (max_rows == 0 || t.rows.size() <= max_rows) return;
  std::vector<std::size_t> deltas;
  for (std::string_view unit : {"us", "bytes"}) {
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].name.starts_with("delta") && t.columns[c].unit == unit) deltas.push_back(c);
    if (!deltas.empty()) break;
  }
  std::vector<double> size(t.rows.size(), 0.0);
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    for (std::size_t c : deltas)
      if (const double* v = c < t.rows[r].size() ? std::get_if<double>(&t.rows[r][c]) : nullptr)
        size[r] += std::fabs(*v);
  std::vector<std::size_t> order(t.rows.size());
  for (std::size_t r = 0; r < order.size(); ++r) order[r] = r;
  auto mid = order.begin() + static_cast<std::ptrdiff_t>(max_rows);
  std::nth_element(order.begin(), mid, order.end(), [&](std::size_t a, std::size_t b) {
    return size[a] != size[b] ? size[a] > size[b] : a < b;
  });
  std::sort(order.begin(), mid);
  std::sort(mid, order.end());
  std::vector<std::vector<ReportCell>> rows = std::move(t.rows);
  t.rows.clear();
  RowLimiter limiter(t, max_rows, false);
  for (std::size_t r : order) limiter.add(std::move(rows[r]));
  limiter.finish();
}

}  // namespace

// Both runs' window steps are their inferred units (--step-pattern inferred), of one family.
bool steps_are_inferred_units(const Baseline& run, const Baseline& baseline) {
  const auto &now = run.inferred_iterations, &base = baseline.inferred_iterations;
  return now && base && now->steps && base->steps && now->family == base->family && now->kind == base->kind;
}

ChangeCounting change_counting(const Baseline& run, const Baseline& baseline) {
  ChangeCounting c;
  if (changes_per_step(run.info.steps, baseline.info.steps)) {
    c.run_count = static_cast<double>(run.info.steps);
    c.baseline_count = static_cast<double>(baseline.info.steps);
    // Steps made of inferred units compare the units both runs have, one to one, as the default
    // analysis does: blocks 8-21 against blocks 2-17 are not 14 steps against 16 of like work.
    if (steps_are_inferred_units(run, baseline))
      c.matched = matched_unit_work(*run.inferred_iterations, baseline);
    return c;
  }
  if (compares_inferred(run.inferred_iterations, run.info.steps, baseline.inferred_iterations,
                        baseline.info.steps) &&
      !match_inferred_units(*run.inferred_iterations, baseline).names.empty()) {
    c.basis = ChangeBasis::Unit;
    c.run_count = static_cast<double>(run.inferred_iterations->units_us.size());
    c.baseline_count = static_cast<double>(baseline.inferred_iterations->units_us.size());
    // The work inside the matched units, where both runs hold it (issue 95). Else a window's totals
    // over its units count the work outside them too (a window of N openings holds N - 1 units): 13
    // calls over 12 units against 9 over 8 read +3.8% a unit for a kernel whose every call took as
    // long. The changes are then ordered and named by the time a call.
    c.matched = matched_unit_work(*run.inferred_iterations, baseline);
    c.by_call = !c.matched;
    return c;
  }
  c.basis = ChangeBasis::Window;
  c.by_call = windows_hold_different_work(run, baseline);
  return c;
}

std::vector<ReportTable> delta_tables(const ReportModel& current, const Baseline& baseline) {
  Baseline now = baseline_from_report(current, "", "");
  ChangeCounting counting = change_counting(now, baseline);
  ChangeBasis basis = counting.basis;
  double now_steps = counting.run_count, base_steps = counting.baseline_count;
  // The matched units' work over their count, else the window totals over the steps or units.
  const MatchedUnitWork* matched = counting.matched ? &*counting.matched : nullptr;
  double now_count = matched ? matched->run_units : now_steps;
  double base_count = matched ? matched->baseline_units : base_steps;
  std::vector<Pair> ops = pair_rows(matched ? matched->baseline_ops : baseline.ops, base_count,
                                    matched ? matched->run_ops : now.ops, now_count);
  std::vector<Pair> regions = pair_rows(matched ? matched->baseline_regions : baseline.regions, base_count,
                                        matched ? matched->run_regions : now.regions, now_count);
  std::vector<Pair> kernels = pair_rows(matched ? matched->baseline_kernels : baseline.kernels, base_count,
                                        matched ? matched->run_kernels : now.kernels, now_count);
  std::vector<Contribution> parts;
  add_contributions(parts, ops, &BaselineRow::gpu_us, "GPU op", "GPU");
  add_contributions(parts, ops, &BaselineRow::cpu_us, "host op", "host");
  add_contributions(parts, regions, &BaselineRow::cpu_us, "region", "region");
  // The matched units' own GPU idle time where their work is compared, else the window's share.
  auto idle_before = matched ? std::optional(matched->baseline_gpu_idle_us / base_count)
                             : idle_us(baseline, counting, false);
  auto idle_now =
      matched ? std::optional(matched->run_gpu_idle_us / now_count) : idle_us(now, counting, true);
  if (idle_before && idle_now) parts.push_back({"GPU idle", "GPU idle", "", idle_before, idle_now});
  std::vector<ReportTable> tables = {step_time_deltas(std::move(parts), basis),
                                     delta_table(Table::OpDeltas, kOpMeasures, ops, basis),
                                     delta_table(Table::RegionDeltas, kRegionMeasures, regions, basis),
                                     delta_table(Table::KernelDeltas, kKernelMeasures, kernels, basis)};
  tables.push_back(largest_changes_table(
      tables, {.basis = basis, .per_item = kChangesPerItem, .by_call = counting.by_call}));
  // Bytes at a peak are no time: after "changes", which reads the tables of times before it.
  tables.push_back(memory_site_deltas(baseline.memory_sites, now.memory_sites));
  // Cut once "changes" has read them whole.
  for (ReportTable& t : tables) keep_largest_changes(t, max_table_rows());
  return tables;
}

}  // namespace perfgate
