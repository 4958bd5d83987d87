// A run's critical path by name, per step (baseline/baseline.h PathProfile): what the gate needs to
// name the ops that grew on the path, from a report model or a JSON report's tables alike.
#include <algorithm>
#include <array>
#include <map>
#include <string_view>

#include "baseline/baseline.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

std::optional<double> number_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  return cell ? cell_number(*cell) : std::nullopt;
}

std::optional<std::string> text_at(const ReportTable& t, std::size_t row, std::string_view column) {
  const ReportCell* cell = find_cell(t, row, column);
  const auto* text = cell ? std::get_if<std::string>(cell) : nullptr;
  if (!text || is_more_rows_label(*text)) return std::nullopt;
  return *text;
}

// Host time (cpu_bound, data_loading) by op family, as a worker's profile keeps it.
std::string path_op_name(const std::string& name, const std::string& bound) {
  bool host = bound == "cpu_bound" || bound == "data_loading";
  return host ? family_of(name) : name;
}

void sort_ops(std::vector<PathOp>& ops) {
  std::stable_sort(ops.begin(), ops.end(),
                   [](const PathOp& a, const PathOp& b) { return a.us_per_step > b.us_per_step; });
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
    by_name[{path_op_name(*name_text, *bound_text), *bound_text}] += *time / p.steps;
  }
  for (const auto& [key, us] : by_name) p.ops.push_back({key.first, key.second, us});
  sort_ops(p.ops);
  return p;
}

// UnitPath::bounds_us's columns, in its order.
constexpr Table kUnits = Table::CriticalPathUnits;
constexpr std::array<std::string_view, 6> kUnitBoundColumns = {
    table_column(kUnits, "cpu_bound_us"),       table_column(kUnits, "data_loading_us"),
    table_column(kUnits, "launch_overhead_us"), table_column(kUnits, "kernel_gap_us"),
    table_column(kUnits, "gpu_compute_us"),     table_column(kUnits, "communication_us")};

// One worker's paths per unit, in its units' order.
std::vector<UnitPath> worker_unit_paths(const ReportTable& units, const ReportTable& ops) {
  constexpr Table kOps = Table::CriticalPathUnitOps;
  std::vector<UnitPath> out;
  std::map<std::string, std::size_t> at;
  for (std::size_t r = 0; r < units.rows.size(); ++r) {
    std::optional<std::string> unit = text_at(units, r, table_column(kUnits, "unit"));
    std::optional<double> span = number_at(units, r, table_column(kUnits, "span_us"));
    std::optional<double> length = number_at(units, r, table_column(kUnits, "length_us"));
    if (!unit || !span || !length || at.count(*unit)) continue;
    UnitPath u;
    u.unit = *unit;
    u.span_us = *span;
    u.length_us = *length;
    for (std::size_t b = 0; b < kUnitBoundColumns.size(); ++b)
      u.bounds_us[b] = number_at(units, r, kUnitBoundColumns[b]).value_or(0);
    at.emplace(u.unit, out.size());
    out.push_back(std::move(u));
  }
  std::vector<std::map<std::pair<std::string, std::string>, double>> by_name(out.size());
  for (std::size_t r = 0; r < ops.rows.size(); ++r) {
    std::optional<std::string> unit = text_at(ops, r, table_column(kOps, "unit"));
    std::optional<std::string> name = text_at(ops, r, table_column(kOps, "name"));
    std::optional<std::string> bound = text_at(ops, r, table_column(kOps, "bound_by"));
    std::optional<double> time = number_at(ops, r, table_column(kOps, "time_us"));
    if (!unit || !name || !bound || !time || !at.count(*unit)) continue;
    by_name[at.at(*unit)][{path_op_name(*name, *bound), *bound}] += *time;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const auto& [key, us] : by_name[i]) out[i].ops.push_back({key.first, key.second, us});
    sort_ops(out[i].ops);
  }
  return out;
}

}  // namespace

std::vector<UnitPath> unit_paths(
    const std::vector<std::pair<const ReportTable*, const ReportTable*>>& workers) {
  std::vector<UnitPath> out;
  std::map<std::string, std::size_t> at;
  for (const auto& [units, ops] : workers) {
    if (!units || !ops) continue;
    for (UnitPath& u : worker_unit_paths(*units, *ops)) {
      auto found = at.find(u.unit);
      if (found == at.end()) {
        at.emplace(u.unit, out.size());
        out.push_back(std::move(u));
      } else if (u.length_us > out[found->second].length_us) {
        // The worker whose path of the unit is longest, as the run's unit is its slowest worker's.
        out[found->second] = std::move(u);
      }
    }
  }
  return out;
}

std::vector<UnitPath> unit_paths(const ReportModel& report) {
  std::vector<std::pair<const ReportTable*, const ReportTable*>> workers;
  for (const ReportWorker& w : report.workers)
    workers.emplace_back(find_table(w.tables, Table::CriticalPathUnits),
                         find_table(w.tables, Table::CriticalPathUnitOps));
  return unit_paths(workers);
}

std::vector<UnitPath> pooled_unit_paths(const std::vector<const std::vector<UnitPath>*>& runs) {
  std::vector<UnitPath> out;
  if (runs.empty() || std::any_of(runs.begin(), runs.end(), [](const auto* r) { return !r || r->empty(); }))
    return out;
  auto n = static_cast<double>(runs.size());
  for (const UnitPath& first : *runs.front()) {
    std::vector<const UnitPath*> same;
    for (const std::vector<UnitPath>* run : runs) {
      auto it =
          std::find_if(run->begin(), run->end(), [&](const UnitPath& u) { return u.unit == first.unit; });
      if (it != run->end()) same.push_back(&*it);
    }
    if (same.size() < runs.size()) continue;
    UnitPath pooled;
    pooled.unit = first.unit;
    std::map<std::pair<std::string, std::string>, double> ops;
    for (const UnitPath* u : same) {
      pooled.span_us += u->span_us / n;
      pooled.length_us += u->length_us / n;
      for (std::size_t b = 0; b < pooled.bounds_us.size(); ++b) pooled.bounds_us[b] += u->bounds_us[b] / n;
      for (const PathOp& op : u->ops) ops[{op.name, op.bound}] += op.us_per_step / n;
    }
    for (const auto& [key, us] : ops) pooled.ops.push_back({key.first, key.second, us});
    sort_ops(pooled.ops);
    out.push_back(std::move(pooled));
  }
  return out;
}

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
