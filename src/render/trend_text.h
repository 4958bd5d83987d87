// Texts shared by the trend renderers (HTML, Markdown, terminal) and the recent values shown next
// to a report's findings: one wording everywhere.
#pragma once

#include <string>

#include "report_model/report.h"
#include "report_model/trend.h"

namespace perfgate {

// A run on an axis or in a table: its commit (a long hexadecimal id cut to 10 characters, like a
// short git hash), or "run ID" when it was recorded without one.
std::string run_label(const std::string& commit, std::int64_t run_id);
std::string point_label(const TrendPoint& point);

// "+10.0%", "+32.8 pts" for a share, or "n/a" when the mean before was 0.
std::string change_text(const TrendChangePoint& change);
// "0.005"
std::string p_value_text(double p);
// "6 runs before, 6 after": the runs the means on either side of a change point are of.
std::string change_runs_text(const TrendChangePoint& change);
// "99.72%", or "≥ 99.99%" (p below 0.0001): 100 (1 - p), how sure the test is that the level changed.
std::string confidence_text(const TrendChangePoint& change);
// "+39.3%" ("+5.0 pts" for a share, "n/a" from a level of 0): an outlier against the runs around it.
std::string outlier_change_text(const TrendOutlier& outlier);
// "run abc1234567 at 140.0 ms, +39.3% on the 100.5 ms around it": an outlier, for a line or a tooltip.
std::string outlier_text(const TrendOutlier& outlier, const std::string& unit);
// "11.90 ms to 12.54 ms: median of the last 10 runs ± 3% (regression.step-time)"; "... of the 5
// runs since the change (from abc1234567) ± 3% ..." when it starts at a change point.
std::string band_text(const TrendBand& band, const std::string& unit);
// A change limit as a size, without the bad direction's sign: "3%", "5 pts".
std::string limit_size(const std::string& limit_text);
// "10% (regression.memory)": the smallest change a change point of the metric must show; empty
// without a rule.
std::string min_effect_text(const MetricTrend& metric);
// What the test can see in a series: "a change shows at p ≤ 0.001 with ≥ 3 runs on each side of
// it", or
// "p ≤ 0.001 needs ≥ 14 runs: the best p-value of 10 runs is 0.0079".
std::string detection_text(const TrendDetection& detection, const ChangePointOptions& options);
// The same in a few words for a table cell or a line: "needs ≥ 14 runs"; empty when it can see.
std::string detection_short(const TrendDetection& detection);
// "2 change points in 5 metrics over 30 runs"; "1 change point and 1 outlier in ..." with outliers
std::string trend_summary(const TrendReport& trend);

// A finding's recent values: "12.10 → 12.00 → 12.30 → 13.40 ms" with the current run's value
// wrapped by `current_open` and `current_close` ("**" in Markdown); the unit is written once when
// every value has the same one.
std::string recent_values_text(const ReportMetricTrend& trend, const std::string& current_open = "",
                               const std::string& current_close = "");

}  // namespace perfgate
