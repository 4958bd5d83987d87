// The trend of a run history: each metric's series, its band and its change points.
#include <algorithm>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/metrics.h"
#include "common/suggest.h"
#include "common/version.h"
#include "history/change_points.h"
#include "history/history.h"
#include "report_model/trend.h"

namespace perfgate {
namespace {

const GatedMetric* gated_metric(const std::vector<GatedMetric>& gated, std::string_view metric) {
  for (const GatedMetric& g : gated)
    if (g.metric == metric) return &g;
  return nullptr;
}

// A metric only a Neuron device profile has: n/a in every other run.
bool is_neuron_metric(std::string_view metric) {
  return metric.starts_with("neuron.");
}

// A run whose families were not recorded (by a history before its schema 3, or imported from a
// report before perfgate-report/2.1) is a Neuron profile's when it has a neuron.* value: the rule
// the trend used for every run before the families were recorded.
bool recorded_neuron_values(const HistoryRun& run) {
  for (std::size_t i = 0; i < kMetricCount; ++i)
    if (is_neuron_metric(kMetricNames[i]) && run.data.metrics.at(i)) return true;
  return false;
}

void check_metric_names(const std::vector<std::string>& names) {
  std::vector<std::string_view> known;
  for (const MetricInfo& m : metric_catalog()) known.push_back(m.name);
  for (const std::string& name : names)
    if (!metric_id(name))
      throw ConfigError(fmt::format("--metric: unknown metric '{}'{}; 'perfgate metrics' lists them", name,
                                    did_you_mean(name, known)));
}

// The quantile q of sorted values, interpolating between neighbours (Hyndman & Fan's type 7, the
// default of R and NumPy).
double quantile(const std::vector<double>& sorted, double q) {
  double position = q * static_cast<double>(sorted.size() - 1);
  auto below = static_cast<std::size_t>(std::floor(position));
  std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

// The limit a baseline rule gates the metric at: its warning, else its failure.
std::optional<ChangeLimit> gate_limit(const GatedMetric* rule) {
  if (!rule) return std::nullopt;
  return rule->limit;
}

// Of the last `band_runs` runs since the last change point: the level the metric is at now.
TrendBand band_of(const MetricTrend& t, std::size_t band_runs, const GatedMetric* rule) {
  const std::vector<TrendPoint>& points = t.points;
  std::size_t since_change = t.change_points.empty() ? 0 : t.change_points.back().index;
  std::size_t n = std::min(std::max<std::size_t>(band_runs, 1), points.size() - since_change);
  std::vector<double> recent;
  for (std::size_t i = points.size() - n; i < points.size(); ++i) recent.push_back(points[i].value);
  std::sort(recent.begin(), recent.end());
  TrendBand band;
  band.runs = n;
  band.since_index = points.size() - n;
  band.since_change = !t.change_points.empty() && band.since_index == since_change;
  band.since_run_id = points[band.since_index].run_id;
  band.since_commit = points[band.since_index].commit;
  band.center = quantile(recent, 0.5);
  std::optional<ChangeLimit> limit = gate_limit(rule);
  if (limit) {
    double width = limit->relative ? std::fabs(band.center) * limit->amount : limit->amount;  // +3% is 0.03
    band.kind = "gate-limit";
    band.low = band.center - width;
    band.high = band.center + width;
    band.rule = rule->rule;
    band.limit = limit->text;
  } else {
    band.kind = "interquartile";
    band.low = quantile(recent, 0.25);
    band.high = quantile(recent, 0.75);
  }
  // Durations, shares, bytes and counts are never negative: nor is the band of such a series.
  if (band.low < 0 && recent.front() >= 0) band.low = 0;
  return band;
}

std::string direction_of(double from, double to, std::optional<Improves> better) {
  if (!better || from == to) return "";
  return (to > from) == (*better == Improves::Lower) ? "regression" : "improvement";
}

// The metric's change points and outliers (find_changes); what the noise is estimated from.
SeriesChanges add_changes(MetricTrend& m, std::optional<Improves> better, const TrendSettings& s) {
  const std::vector<TrendPoint>& points = m.points;
  std::vector<double> values;
  for (const TrendPoint& p : points) values.push_back(p.value);
  MinEffect min_effect;
  if (m.min_effect) min_effect = {m.min_effect->amount, m.min_effect->relative};
  SeriesChanges found = find_changes(values, s.detection, min_effect);
  for (const ChangePoint& c : found.change_points) {
    TrendChangePoint t;
    t.index = c.index;
    t.before_index = c.before_index;
    t.before_commit = points[c.before_index].commit;
    t.after_commit = points[c.index].commit;
    t.before_run_id = points[c.before_index].run_id;
    t.after_run_id = points[c.index].run_id;
    t.before_mean = c.before_mean;
    t.after_mean = c.after_mean;
    t.runs_before = c.runs_before;
    t.runs_after = c.runs_after;
    t.change_pct = c.change_pct;
    if (m.unit == "%") t.change_pts = c.after_mean - c.before_mean;  // a share moves in points
    t.p_value = c.p_value;
    t.confidence_pct = 100 * (1 - c.p_value);
    t.q_hat = c.q_hat;
    t.direction = direction_of(c.before_mean, c.after_mean, better);
    m.change_points.push_back(std::move(t));
  }
  for (const Outlier& o : found.outliers) {
    TrendOutlier t;
    t.index = o.index;
    t.run_id = points[o.index].run_id;
    t.commit = points[o.index].commit;
    t.value = o.value;
    t.level = o.level;
    t.change_pct = o.change_pct;
    if (m.unit == "%") t.change_pts = o.value - o.level;
    t.direction = direction_of(o.level, o.value, better);
    m.outliers.push_back(std::move(t));
  }
  return found;
}

TrendDetection detection_of(std::size_t runs, const ChangePointOptions& o) {
  TrendDetection d;
  d.runs = runs;
  d.runs_each_side = std::max<std::size_t>(o.min_segment, 1);
  d.runs_needed = 2 * d.runs_each_side;
  d.detectable = runs >= d.runs_needed;
  return d;
}

// A metric's noise and the shift kShiftAfterRuns more runs would show, relative to the level it is at
// now (the runs since its last change point), of the runs the search weighs (outliers left out).
void add_detectable_shift(TrendDetection& d, const SeriesChanges& found, const ChangePointOptions& o) {
  const std::vector<double>& values = found.kept;
  const std::vector<std::size_t>& changes = found.kept_changes;
  std::optional<double> noise = run_noise(values, changes);
  std::size_t since = changes.empty() ? 0 : changes.back();
  std::span<const double> latest = std::span<const double>(values).subspan(since);
  double level = 0;
  for (double v : latest) level += v;
  level = latest.empty() ? 0 : std::fabs(level / static_cast<double>(latest.size()));
  if (!noise || !(level > 0)) return;
  d.noise_pct = 100 * *noise / level;
  if (auto shift = detectable_shift(latest.size(), kShiftAfterRuns, *noise, o))
    d.detectable_shift_pct = 100 * *shift / level;
}

MetricTrend metric_trend(const std::vector<HistoryRun>& runs, const std::vector<GatedMetric>& gated,
                         const std::string& metric, const TrendSettings& s) {
  MetricTrend t;
  t.metric = metric;
  std::optional<Metric> id = metric_id(metric);  // resolved once: check_metric_names and the rules checked it
  if (id) t.unit = std::string(metric_info(*id).unit);
  const GatedMetric* rule = gated_metric(gated, metric);
  if (rule) t.rule = rule->rule;
  if (rule && rule->better) t.better = *rule->better == Improves::Lower ? "lower" : "higher";
  for (const HistoryRun& run : runs) {
    std::optional<double> value = id ? run.data.metric(*id) : std::nullopt;
    if (!value || !std::isfinite(*value)) {
      ++t.runs_without_value;
      continue;
    }
    t.points.push_back(TrendPoint{run.id, run.labels.commit, run.labels.branch, run.time, *value});
  }
  t.min_effect = gate_limit(rule);
  SeriesChanges found = add_changes(t, rule ? rule->better : std::nullopt, s);
  if (!t.points.empty()) t.band = band_of(t, s.band_runs, rule);
  t.detection = detection_of(t.points.size(), s.detection);
  add_detectable_shift(t.detection, found, s.detection);
  return t;
}

}  // namespace

std::vector<std::string> gated_metrics(const std::vector<GatedMetric>& gated,
                                       const std::vector<HistoryRun>& runs) {
  // Which kinds of profile the history holds, as each run recorded them.
  bool neuron_runs = false, other_runs = runs.empty();
  for (const HistoryRun& run : runs) {
    const DeviceFamilies& f = run.data.families;
    if (f.empty()) {
      (recorded_neuron_values(run) ? neuron_runs : other_runs) = true;
      continue;
    }
    neuron_runs = neuron_runs || f.has(DeviceFamily::Neuron);
    other_runs = other_runs || f.has(DeviceFamily::Gpu) || f.has(DeviceFamily::CpuOnly);
  }
  std::vector<std::string> out;
  for (const GatedMetric& g : gated)
    if (metric_id(g.metric) && (is_neuron_metric(g.metric) ? neuron_runs : other_runs) &&
        std::find(out.begin(), out.end(), g.metric) == out.end())
      out.push_back(g.metric);
  return out;
}

TrendReport build_trend(const std::vector<HistoryRun>& runs, const std::vector<GatedMetric>& gated,
                        TrendSettings settings) {
  check_metric_names(settings.metrics);
  TrendReport report;
  report.tool_version = kVersion;
  report.runs = runs.size();
  report.detection = detection_of(runs.size(), settings.detection);
  std::vector<std::string> metrics = settings.metrics.empty() ? gated_metrics(gated, runs) : settings.metrics;
  for (const std::string& metric : metrics)
    report.metrics.push_back(metric_trend(runs, gated, metric, settings));
  report.settings = std::move(settings);
  return report;
}

}  // namespace perfgate
