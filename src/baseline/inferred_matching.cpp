// Inferred units matched by identity (issue 74, item 4): a window of blocks 2-17 against one of
// blocks 8-21 compares blocks 8-17 on both sides, not the slow blocks of one side with the other's.
#include <algorithm>
#include <map>

#include "baseline/baseline.h"
#include "baseline/row_sums.h"

namespace perfgate {
namespace {

bool names_units(const ReportInferredIterations& i) {
  return !i.unit_names.empty() && i.unit_names.size() == i.units_us.size();
}

}  // namespace

MatchedUnits match_inferred_units(const ReportInferredIterations& run, const Baseline& baseline) {
  MatchedUnits m;
  std::vector<ReportInferredIterations> runs = baseline.inferred_runs;
  if (runs.empty() && baseline.inferred_iterations) runs.push_back(*baseline.inferred_iterations);
  m.current_units = run.units_us.size();
  for (const ReportInferredIterations& b : runs)
    m.baseline_units = std::max(m.baseline_units, b.units_us.size());
  m.by_identity = names_units(run) && !runs.empty() && std::all_of(runs.begin(), runs.end(), names_units);
  if (!m.by_identity) {
    m.current_us = run.units_us;
    for (const ReportInferredIterations& b : runs) m.baseline_runs_us.push_back(b.units_us);
    return m;
  }
  std::vector<std::map<std::string, double>> by_name(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t i = 0; i < runs[r].units_us.size(); ++i)
      by_name[r].emplace(runs[r].unit_names[i], runs[r].units_us[i]);
  m.baseline_runs_us.resize(runs.size());
  for (std::size_t i = 0; i < run.units_us.size(); ++i) {
    const std::string& name = run.unit_names[i];
    bool everywhere =
        std::all_of(by_name.begin(), by_name.end(),
                    [&](const std::map<std::string, double>& units) { return units.count(name); });
    if (!everywhere) continue;
    m.names.push_back(name);
    m.current_us.push_back(run.units_us[i]);
    for (std::size_t r = 0; r < runs.size(); ++r) m.baseline_runs_us[r].push_back(by_name[r].at(name));
  }
  return m;
}

namespace {

bool holds_work(const ReportInferredIterations& i) {
  return names_units(i) && i.unit_work.size() == i.unit_names.size();
}

std::vector<BaselineRow> rows_of(RowSums& sums) {
  std::vector<BaselineRow> rows;
  rows.reserve(sums.size());
  for (auto& [name, row] : sums) rows.push_back(std::move(row));
  return rows;
}

// Sums of one side's units.
struct Side {
  RowSums ops, regions, kernels;
  double gpu_idle_us = 0;
  void add(const ReportUnitWork& w) {
    add_rows(ops, w.ops);
    add_rows(regions, w.regions);
    add_rows(kernels, w.kernels);
    gpu_idle_us += w.gpu_idle_us;
  }
};

}  // namespace

std::optional<MatchedUnitWork> matched_unit_work(const ReportInferredIterations& run,
                                                 const Baseline& baseline) {
  std::vector<ReportInferredIterations> runs = baseline.inferred_runs;
  if (runs.empty() && baseline.inferred_iterations) runs.push_back(*baseline.inferred_iterations);
  if (runs.empty() || !holds_work(run) || !std::all_of(runs.begin(), runs.end(), holds_work))
    return std::nullopt;
  // Each baseline run's counted units by identity (the first of a name, as match_inferred_units).
  std::vector<std::map<std::string, const ReportUnitWork*>> by_name(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t i = 0; i < runs[r].unit_names.size(); ++i)
      by_name[r].emplace(runs[r].unit_names[i], &runs[r].unit_work[i]);
  MatchedUnitWork m;
  Side now, before;
  for (std::size_t i = 0; i < run.unit_names.size(); ++i) {
    const std::string& name = run.unit_names[i];
    if (!run.unit_work[i].counted) continue;
    bool everywhere = std::all_of(by_name.begin(), by_name.end(), [&](const auto& units) {
      auto it = units.find(name);
      return it != units.end() && it->second->counted;
    });
    if (!everywhere) continue;
    m.names.push_back(name);
    now.add(run.unit_work[i]);
    for (const auto& units : by_name) before.add(*units.at(name));
  }
  if (m.names.empty()) return std::nullopt;
  m.run_units = static_cast<double>(m.names.size());
  m.baseline_units = static_cast<double>(m.names.size() * runs.size());
  m.run_ops = rows_of(now.ops);
  m.run_regions = rows_of(now.regions);
  m.run_kernels = rows_of(now.kernels);
  m.baseline_ops = rows_of(before.ops);
  m.baseline_regions = rows_of(before.regions);
  m.baseline_kernels = rows_of(before.kernels);
  m.run_gpu_idle_us = now.gpu_idle_us;
  m.baseline_gpu_idle_us = before.gpu_idle_us;
  return m;
}

}  // namespace perfgate
