// Per-op and per-kernel changes against the baseline. Times and calls are per window step, so that
// runs that profiled different numbers of steps compare.
#include <algorithm>
#include <cmath>
#include <map>

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

ReportCell value(const std::optional<BaselineRow>& r, double BaselineRow::*field) {
  if (!r) return std::monostate{};
  return (*r).*field;
}

ReportCell difference(const Pair& p, double BaselineRow::*field) {
  return (p.after ? (*p.after).*field : 0.0) - (p.before ? (*p.before).*field : 0.0);
}

const std::string& name_of(const Pair& p) {
  return p.after ? p.after->name : p.before->name;
}

ReportTable op_deltas(const std::vector<Pair>& pairs) {
  ReportTable t{"op_deltas",
                "Op changes against the baseline",
                "Per window step; largest regression first (GPU plus host self time)",
                {},
                {}};
  t.columns = {{"name", "", "Op name"},
               {"change", "", "regression, improvement, unchanged (under 1 us or 1%), new or gone"},
               {"baseline_gpu_us", "us", "Baseline: GPU time the op launched itself, per step"},
               {"gpu_us", "us", "This run: GPU time the op launched itself, per step"},
               {"delta_gpu_us", "us", "gpu_us - baseline_gpu_us"},
               {"baseline_cpu_us", "us", "Baseline: host self time, per step"},
               {"cpu_us", "us", "This run: host self time, per step"},
               {"delta_cpu_us", "us", "cpu_us - baseline_cpu_us"},
               {"baseline_calls", "count", "Baseline: calls per step"},
               {"calls", "count", "This run: calls per step"},
               {"delta_calls", "count", "calls - baseline_calls"}};
  for (const Pair& p : pairs)
    t.rows.push_back({name_of(p), change_of(p), value(p.before, &BaselineRow::gpu_us),
                      value(p.after, &BaselineRow::gpu_us), difference(p, &BaselineRow::gpu_us),
                      value(p.before, &BaselineRow::cpu_us), value(p.after, &BaselineRow::cpu_us),
                      difference(p, &BaselineRow::cpu_us), value(p.before, &BaselineRow::calls),
                      value(p.after, &BaselineRow::calls), difference(p, &BaselineRow::calls)});
  return t;
}

ReportTable kernel_deltas(const std::vector<Pair>& pairs) {
  ReportTable t{"kernel_deltas",
                "Kernel changes against the baseline",
                "Per window step; largest regression first",
                {},
                {}};
  t.columns = {{"name", "", "Kernel name"},
               {"change", "", "regression, improvement, unchanged (under 1 us or 1%), new or gone"},
               {"baseline_us", "us", "Baseline: total duration per step"},
               {"us", "us", "This run: total duration per step"},
               {"delta_us", "us", "us - baseline_us"},
               {"baseline_calls", "count", "Baseline: calls per step"},
               {"calls", "count", "This run: calls per step"},
               {"delta_calls", "count", "calls - baseline_calls"}};
  for (const Pair& p : pairs)
    t.rows.push_back({name_of(p), change_of(p), value(p.before, &BaselineRow::gpu_us),
                      value(p.after, &BaselineRow::gpu_us), difference(p, &BaselineRow::gpu_us),
                      value(p.before, &BaselineRow::calls), value(p.after, &BaselineRow::calls),
                      difference(p, &BaselineRow::calls)});
  return t;
}

}  // namespace

std::vector<ReportTable> delta_tables(const ReportModel& current, const Baseline& baseline) {
  Baseline now = baseline_from_report(current, "", "");
  double now_steps = std::max<double>(1, static_cast<double>(now.info.steps));
  double base_steps = std::max<double>(1, static_cast<double>(baseline.info.steps));
  return {op_deltas(pair_rows(baseline.ops, base_steps, now.ops, now_steps)),
          kernel_deltas(pair_rows(baseline.kernels, base_steps, now.kernels, now_steps))};
}

}  // namespace perfgate
