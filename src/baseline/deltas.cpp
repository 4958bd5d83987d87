// Per-op, per-region and per-kernel changes against the baseline. Times and calls are per window
// step, so that runs that profiled different numbers of steps compare; every such column says so
// in its name ("_per_step"), which every output shows in its header. Where either run has no steps
// (nsys exports often have none) each run's whole window is compared instead: the columns keep
// their names, and the table's description and every output say so.
//
// User regions (record_function and user annotations) have a table of their own: PyTorch 2.x
// records the DataLoader's `enumerate(DataLoader)#...__next__` as a user annotation, not an op, and
// a region's times include what runs inside it, so they would count twice among the ops' self times.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "perfgate/baseline.h"

namespace perfgate {
namespace {

// A change smaller than this (µs per step, or this share of the baseline) is "unchanged".
constexpr double kNoiseUs = 1.0;
constexpr double kNoiseShare = 0.01;

struct Pair {
  std::optional<BaselineRow> before, after;
};

std::string change_of(const Pair& p) {
  if (!p.before) return "new";
  if (!p.after) return "gone";
  double before = p.before->gpu_us + p.before->cpu_us, after = p.after->gpu_us + p.after->cpu_us;
  double delta = after - before;
  if (std::fabs(delta) < std::max(kNoiseUs, kNoiseShare * before)) return "unchanged";
  return delta > 0 ? "regression" : "improvement";
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

}  // namespace

std::vector<ReportTable> delta_tables(const ReportModel& current, const Baseline& baseline) {
  Baseline now = baseline_from_report(current, "", "");
  Basis basis{changes_per_step(now.info.steps, baseline.info.steps)};
  double now_steps = basis.per_step ? static_cast<double>(now.info.steps) : 1;
  double base_steps = basis.per_step ? static_cast<double>(baseline.info.steps) : 1;
  return {op_deltas(pair_rows(baseline.ops, base_steps, now.ops, now_steps), basis),
          region_deltas(pair_rows(baseline.regions, base_steps, now.regions, now_steps), basis),
          kernel_deltas(pair_rows(baseline.kernels, base_steps, now.kernels, now_steps), basis)};
}

}  // namespace perfgate
