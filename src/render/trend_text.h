// Texts shared by the trend renderers (HTML, Markdown, terminal) and the recent values shown next
// to a report's findings: one wording everywhere.
#pragma once

#include <string>

#include "perfgate/report.h"
#include "perfgate/trend.h"

namespace perfgate {

// A run on an axis or in a table: its commit (a long hexadecimal id cut to 10 characters, like a
// short git hash), or "run ID" when it was recorded without one.
std::string run_label(const std::string& commit, std::int64_t run_id);
std::string point_label(const TrendPoint& point);

// "+10.0%", or "n/a" when the mean before was 0.
std::string change_text(const TrendChangePoint& change);
// "0.005"
std::string p_value_text(double p);
// "11.90 ms to 12.54 ms: median of the last 10 runs ± 3% (regression.step-time)"
std::string band_text(const TrendBand& band, const std::string& unit);
// "2 change points in 5 metrics over 30 runs"
std::string trend_summary(const TrendReport& trend);

// A finding's recent values: "12.10 → 12.00 → 12.30 → 13.40 ms" with the current run's value
// wrapped by `current_open` and `current_close` ("**" in Markdown); the unit is written once when
// every value has the same one.
std::string recent_values_text(const ReportMetricTrend& trend, const std::string& current_open = "",
                               const std::string& current_close = "");

}  // namespace perfgate
