// A run's critical path by name, per step (baseline/baseline.h PathProfile): what the gate needs to
// name the ops that grew on the path, from a report model or a JSON report's tables alike.
#include <algorithm>
#include <map>

#include "baseline/baseline.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

std::optional<double> number_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  return cell ? cell_number(*cell) : std::nullopt;
}

// One worker's profile: its critical_path table's steps and their mean length, its path ops per step.
std::optional<PathProfile> worker_profile(const ReportTable& steps, const ReportTable& ops) {
  PathProfile p;
  double length = 0;
  for (std::size_t r = 0; r < steps.rows.size(); ++r) {
    std::optional<double> l = number_at(steps, r, table_column(Table::CriticalPath, "length_us"));
    if (!l) continue;
    length += *l;
    p.steps += 1;
  }
  if (p.steps == 0) return std::nullopt;
  p.length_us_per_step = length / p.steps;
  std::map<std::pair<std::string, std::string>, double> by_name;
  for (std::size_t r = 0; r < ops.rows.size(); ++r) {
    const ReportCell* name = find_cell(ops, r, table_column(Table::CriticalPathOps, "name"));
    const ReportCell* bound = find_cell(ops, r, table_column(Table::CriticalPathOps, "bound_by"));
    const auto* name_text = name ? std::get_if<std::string>(name) : nullptr;
    const auto* bound_text = bound ? std::get_if<std::string>(bound) : nullptr;
    std::optional<double> time = number_at(ops, r, table_column(Table::CriticalPathOps, "time_us"));
    if (!name_text || !bound_text || !time || is_more_rows_label(*name_text)) continue;
    bool host = *bound_text == "cpu_bound" || *bound_text == "data_loading";
    by_name[{host ? family_of(*name_text) : *name_text, *bound_text}] += *time / p.steps;
  }
  for (const auto& [key, us] : by_name) p.ops.push_back({key.first, key.second, us});
  std::stable_sort(p.ops.begin(), p.ops.end(),
                   [](const PathOp& a, const PathOp& b) { return a.us_per_step > b.us_per_step; });
  return p;
}

}  // namespace

std::optional<PathProfile> path_profile(
    const std::vector<std::pair<const ReportTable*, const ReportTable*>>& workers) {
  std::optional<PathProfile> longest;
  for (const auto& [steps, ops] : workers) {
    if (!steps || !ops) continue;
    std::optional<PathProfile> p = worker_profile(*steps, *ops);
    // The first on a tie, as the run's metrics take the rank whose mean path is longest.
    if (p && (!longest || p->length_us_per_step > longest->length_us_per_step)) longest = std::move(p);
  }
  return longest;
}

std::optional<PathProfile> path_profile(const ReportModel& report) {
  std::vector<std::pair<const ReportTable*, const ReportTable*>> workers;
  for (const ReportWorker& w : report.workers)
    workers.emplace_back(find_table(w.tables, Table::CriticalPath),
                         find_table(w.tables, Table::CriticalPathOps));
  return path_profile(workers);
}

// Each op's mean per step over the runs (a run without it: 0), the mean path; none where a run has
// no profile.
std::optional<PathProfile> pooled_path_profile(const std::vector<const PathProfile*>& runs) {
  if (runs.empty() || std::any_of(runs.begin(), runs.end(), [](const PathProfile* p) { return !p; }))
    return std::nullopt;
  auto n = static_cast<double>(runs.size());
  PathProfile pooled;
  std::map<std::pair<std::string, std::string>, double> ops;
  for (const PathProfile* p : runs) {
    pooled.steps += p->steps;
    pooled.length_us_per_step += p->length_us_per_step / n;
    for (const PathOp& op : p->ops) ops[{op.name, op.bound}] += op.us_per_step / n;
  }
  for (const auto& [key, us] : ops) pooled.ops.push_back({key.first, key.second, us});
  std::stable_sort(pooled.ops.begin(), pooled.ops.end(),
                   [](const PathOp& a, const PathOp& b) { return a.us_per_step > b.us_per_step; });
  return pooled;
}

}  // namespace perfgate
