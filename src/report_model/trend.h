// Trends of a run history: each gated metric's value per run, the band the next run is gated
// against, and the change points where the metric moved (E-divisive means; docs/trends.md).
// Plain data: the history builds it (history/history.h), the renderers read it (render/render.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report_model/report.h"  // ChangeLimit

namespace perfgate {

inline constexpr const char* kTrendSchema = "perfgate-trend/2.1";

// How change points are found (src/history/change_points.h, docs/trends.md). With the correction
// for the splits searched the level bounds the chance that a series of one level shows a false
// change point: 0.01 finds +10% after 6 of 12 runs at 2% noise (Otava's 0.001 missed it in 1 of 7),
// and a page of five metrics of pure noise shows one at most one time in twenty (0.05, MongoDB's:
// one in five).
struct ChangePointOptions {
  double max_p_value = 0.01;    // a candidate is a change point when its corrected p-value is at most this
  std::size_t min_segment = 3;  // the fewest runs between two change points, and at either end
  double power = 0.8;           // of the detectable shift a trend states
};

// What a trend reads and how it looks for changes.
struct TrendSettings {
  std::string source;                // the history, as HistoryStore::describe() says it
  std::string branch;                // empty: every branch
  std::vector<std::string> metrics;  // empty: the metrics the rules' baseline comparisons read
  std::size_t last = 100;            // the most recent runs; 0: all
  std::size_t band_runs = 10;        // the band is of at most this many runs since the last change
  ChangePointOptions detection;
};

// One run's value of a metric (runs where the metric is not applicable are left out).
struct TrendPoint {
  std::int64_t run_id = 0;
  std::string commit;  // empty when the run was recorded without one
  std::string branch;
  std::string time;
  double value = 0;
};

// The band of the recent runs: with a baseline rule reading the metric ("gate-limit"), the median of
// the last runs ± that rule's warning limit (its failure limit when it has no warning), which is
// where the next run passes the gate; without one ("interquartile"), their quartiles.
// The band is of the runs since the last change point (at most `band_runs` of them): the level the
// metric is at now, not a window across a change.
struct TrendBand {
  std::string kind;   // "gate-limit" or "interquartile"
  double center = 0;  // the median
  double low = 0;
  double high = 0;
  std::size_t runs = 0;  // the most recent points it is of
  std::string rule;      // gate-limit: the rule, and its limit as written ("+5%")
  std::string limit;
  bool since_change = false;    // its first run is the first after the last change point
  std::size_t since_index = 0;  // its first point, and that run's id and commit
  std::int64_t since_run_id = 0;
  std::string since_commit;
};

struct TrendChangePoint {
  std::size_t index = 0;         // of the first point after the change
  std::size_t before_index = 0;  // of the last point before it that is no outlier
  std::string before_commit;     // that run, and the first after the change
  std::string after_commit;
  std::int64_t before_run_id = 0;
  std::int64_t after_run_id = 0;
  double before_mean = 0;  // of the segments on either side (outliers left out)
  double after_mean = 0;
  std::size_t runs_before = 0;  // the runs those means are of
  std::size_t runs_after = 0;
  std::optional<double> change_pct;  // empty when the mean before is 0
  std::optional<double> change_pts;  // after - before, for a share ("%" metric): its change is in points
  double p_value = 1;
  double confidence_pct = 0;  // 100 (1 - p_value): how sure the test is that the level changed
  double q_hat = 0;
  std::string direction;  // "regression" or "improvement" by the rule's `better`; empty without one
};

// A run that is an outlier on its own (docs/trends.md, "Outliers"): far from the runs on both sides
// of it, and set aside from the change-point search, the segments' means and the noise.
struct TrendOutlier {
  std::size_t index = 0;  // in the metric's series
  std::int64_t run_id = 0;
  std::string commit;
  double value = 0;
  double level = 0;                  // the median of the runs before it (after it, for the first run)
  std::optional<double> change_pct;  // 100 (value - level) / |level|; empty when the level is 0
  std::optional<double> change_pts;  // value - level, for a share ("%" metric)
  std::string direction;             // "regression" or "improvement" by the rule's `better`
};

// What the change-point test can see in a series of `runs` runs at the trend's level
// (docs/trends.md, "What a series can show"): a change needs `min_segment` runs on each side, and
// how large it must be depends on the runs' noise.
inline constexpr std::size_t kShiftAfterRuns = 5;  // the detectable shift is of a change this many runs ago
struct TrendDetection {
  std::size_t runs = 0;
  std::size_t runs_needed = 0;     // two segments of min_segment
  bool detectable = false;         // runs >= runs_needed
  std::size_t runs_each_side = 0;  // the fewest runs a change needs on each side of it
  // Per metric: the runs' noise (pooled within the segments between change points), and the
  // smallest shift that kShiftAfterRuns more runs would show with the test's power, both in % of
  // the latest segment's mean; empty without the runs to estimate them (or with a mean of 0).
  std::optional<double> noise_pct;
  std::optional<double> detectable_shift_pct;
};

struct MetricTrend {
  std::string metric;
  std::string unit;    // catalog unit
  std::string rule;    // the baseline rule that reads it; empty for a metric asked for by name
  std::string better;  // "lower", "higher", or empty
  std::size_t runs_without_value = 0;
  std::vector<TrendPoint> points;  // oldest first
  std::optional<TrendBand> band;   // empty without points
  std::vector<TrendChangePoint> change_points;
  std::vector<TrendOutlier> outliers;
  TrendDetection detection;
  // The smallest change a change point must show: the rule's warning limit (its failure limit
  // without one), the gate's own idea of a change worth a finding; empty without a rule.
  std::optional<ChangeLimit> min_effect;
};

struct TrendReport {
  std::string schema = kTrendSchema;
  std::string tool_version;
  TrendSettings settings;
  std::size_t runs = 0;      // runs read from the history
  TrendDetection detection;  // of a series with a value in every run read
  std::vector<MetricTrend> metrics;
};

}  // namespace perfgate
