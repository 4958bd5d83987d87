// Inferred units matched by identity (issue 74, item 4): a window of blocks 2-17 against one of
// blocks 8-21 compares blocks 8-17 on both sides, not the slow blocks of one side with the other's.
#include <algorithm>
#include <map>

#include "baseline/baseline.h"

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

}  // namespace perfgate
