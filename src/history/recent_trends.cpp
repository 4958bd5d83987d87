// A gated metric's recent values next to the current run, for the report of a run gated against a
// history: what a reviewer needs to tell a step from a wobble at a glance.
#include <algorithm>
#include <cmath>

#include "common/metrics.h"
#include "history/history.h"
#include "report_model/trend.h"

namespace perfgate {
namespace {

ReportMetricTrend trend_of(const std::vector<HistoryRun>& runs, const ReportModel& current,
                           const std::string& metric, const std::string& current_commit,
                           std::size_t max_points) {
  ReportMetricTrend t;
  t.metric = metric;
  // The rules' name, resolved once (a gated metric is a catalog name: the rules were checked).
  std::optional<Metric> id = metric_id(metric);
  if (!id) return t;
  t.unit = std::string(metric_info(*id).unit);
  std::size_t history_points = max_points > 1 ? max_points - 1 : 0;
  for (auto run = runs.rbegin(); run != runs.rend() && t.points.size() < history_points; ++run)
    if (std::optional<double> v = run->data.metric(*id); v && std::isfinite(*v))
      t.points.push_back(ReportTrendPoint{run->labels.commit, *v, false});
  std::reverse(t.points.begin(), t.points.end());
  if (std::optional<double> v = current.metric(*id); v && std::isfinite(*v))
    t.points.push_back(ReportTrendPoint{current_commit, *v, true});
  return t;
}

}  // namespace

std::vector<ReportMetricTrend> recent_trends(const std::vector<HistoryRun>& baseline_runs,
                                             const ReportModel& current,
                                             const std::vector<GatedMetric>& gated,
                                             const std::string& current_commit, std::size_t max_points) {
  std::vector<ReportMetricTrend> out;
  for (const std::string& metric : gated_metrics(gated, baseline_runs)) {
    ReportMetricTrend t = trend_of(baseline_runs, current, metric, current_commit, max_points);
    // Only the history's runs make a trend; the current run alone is already in the finding.
    bool has_history = !t.points.empty() && !t.points.front().is_current;
    if (has_history) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace perfgate
