// The trend as JSON: "change_points" and "series" first, in the form the issue gives them
// (docs/trends.md), then the bands, the rules and the settings.
#include "render/json_writer.h"
#include "report_model/trend.h"

namespace perfgate {
namespace {

void write_change_points(JsonWriter& j, const TrendReport& t) {
  j.key("change_points").begin_array();
  for (const MetricTrend& m : t.metrics)
    for (const TrendChangePoint& c : m.change_points) {
      j.begin_object();
      j.key("metric").value(m.metric);
      j.key("before_commit").value(c.before_commit);
      j.key("after_commit").value(c.after_commit);
      j.key("change_pct").value(c.change_pct);
      j.key("p_value").value(c.p_value);
      j.key("index").value(static_cast<std::uint64_t>(c.index));
      j.key("before_run_id").value(c.before_run_id);
      j.key("after_run_id").value(c.after_run_id);
      j.key("before_mean").value(c.before_mean);
      j.key("after_mean").value(c.after_mean);
      j.key("q_hat").value(c.q_hat);
      j.key("direction").value(c.direction);
      j.key("change_pts").value(c.change_pts);
      j.key("before_index").value(static_cast<std::uint64_t>(c.before_index));
      j.key("runs_before").value(static_cast<std::uint64_t>(c.runs_before));
      j.key("runs_after").value(static_cast<std::uint64_t>(c.runs_after));
      j.key("confidence_pct").value(c.confidence_pct);
      j.end_object();
    }
  j.end_array();
}

void write_outliers(JsonWriter& j, const TrendReport& t) {
  j.key("outliers").begin_array();
  for (const MetricTrend& m : t.metrics)
    for (const TrendOutlier& o : m.outliers) {
      j.begin_object();
      j.key("metric").value(m.metric);
      j.key("index").value(static_cast<std::uint64_t>(o.index));
      j.key("run_id").value(o.run_id);
      j.key("commit").value(o.commit);
      j.key("value").value(o.value);
      j.key("level").value(o.level);
      j.key("change_pct").value(o.change_pct);
      j.key("change_pts").value(o.change_pts);
      j.key("direction").value(o.direction);
      j.end_object();
    }
  j.end_array();
}

void write_series(JsonWriter& j, const TrendReport& t) {
  j.key("series").begin_object();
  for (const MetricTrend& m : t.metrics) {
    j.key(m.metric).begin_array();
    for (const TrendPoint& p : m.points) {
      j.begin_object();
      j.key("commit").value(p.commit);
      j.key("value").value(p.value);
      j.key("run_id").value(p.run_id);
      j.key("branch").value(p.branch);
      j.key("time").value(p.time);
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
}

// What the test can see in the runs: as keys of the object being written.
void write_detection(JsonWriter& j, const TrendDetection& d) {
  j.key("detectable").value(d.detectable);
  j.key("min_runs_for_p").value(static_cast<std::uint64_t>(d.runs_needed));
  j.key("runs_each_side").value(static_cast<std::uint64_t>(d.runs_each_side));
  j.key("noise_pct").value(d.noise_pct);
  j.key("shift_after_runs").value(static_cast<std::uint64_t>(kShiftAfterRuns));
  j.key("detectable_shift_pct").value(d.detectable_shift_pct);
}

void write_min_effect(JsonWriter& j, const MetricTrend& m) {
  j.key("min_effect");
  if (!m.min_effect) {
    j.null();
    return;
  }
  j.begin_object();
  j.key("rule").value(m.rule);
  j.key("limit").value(m.min_effect->text);
  j.key("amount").value(m.min_effect->amount);
  j.key("relative").value(m.min_effect->relative);
  j.end_object();
}

void write_band(JsonWriter& j, const std::optional<TrendBand>& band) {
  j.key("band");
  if (!band) {
    j.null();
    return;
  }
  const TrendBand& b = *band;
  j.begin_object();
  j.key("kind").value(b.kind);
  j.key("center").value(b.center);
  j.key("low").value(b.low);
  j.key("high").value(b.high);
  j.key("runs").value(static_cast<std::uint64_t>(b.runs));
  j.key("rule").value(b.rule);
  j.key("limit").value(b.limit);
  j.key("since_change").value(b.since_change);
  j.key("since_index").value(static_cast<std::uint64_t>(b.since_index));
  j.key("since_run_id").value(b.since_run_id);
  j.key("since_commit").value(b.since_commit);
  j.end_object();
}

void write_metrics(JsonWriter& j, const TrendReport& t) {
  j.key("metrics").begin_object();
  for (const MetricTrend& m : t.metrics) {
    j.key(m.metric).begin_object();
    j.key("unit").value(m.unit);
    j.key("rule").value(m.rule);
    j.key("better").value(m.better);
    j.key("runs_without_value").value(static_cast<std::uint64_t>(m.runs_without_value));
    j.key("runs").value(static_cast<std::uint64_t>(m.detection.runs));
    write_band(j, m.band);
    write_detection(j, m.detection);
    write_min_effect(j, m);
    j.end_object();
  }
  j.end_object();
}

void write_settings(JsonWriter& j, const TrendSettings& s) {
  j.key("settings").begin_object();
  j.key("history").value(s.source);
  j.key("branch").value(s.branch);
  j.key("last").value(static_cast<std::uint64_t>(s.last));
  j.key("band_runs").value(static_cast<std::uint64_t>(s.band_runs));
  j.key("method").value(
      "outliers on their own set aside (median of 3 runs each side, 5 robust noise widths); e-divisive "
      "means, alpha 1; Student's t, Bonferroni over the splits searched");
  j.key("max_p_value").value(s.detection.max_p_value);
  j.key("min_segment").value(static_cast<std::uint64_t>(s.detection.min_segment));
  j.key("power").value(s.detection.power);
  j.end_object();
}

}  // namespace

std::string render_trend_json(const TrendReport& t) {
  JsonWriter j;
  j.begin_object();
  write_change_points(j, t);
  write_series(j, t);
  write_outliers(j, t);
  j.key("schema").value(t.schema);
  j.key("tool_version").value(t.tool_version);
  j.key("runs").value(static_cast<std::uint64_t>(t.runs));
  j.key("detection").begin_object();
  write_detection(j, t.detection);
  j.end_object();
  write_metrics(j, t);
  write_settings(j, t.settings);
  j.end_object();
  return j.str();
}

}  // namespace perfgate
