// The trend as GitHub-flavoured Markdown (templates/trend.md.mustache): a summary table, and per
// metric its change points and, collapsed, its series. Every value is escaped here.
#include <fmt/format.h>

#include "common/units.h"
#include "render/escape.h"
#include "render/templates.h"
#include "render/trend_text.h"

namespace perfgate {
namespace {

std::string esc(std::string_view s) {
  return markdown_escape(s);
}

TemplateData change_rows(const MetricTrend& m) {
  TemplateData list = template_list();
  for (const TrendChangePoint& c : m.change_points) {
    TemplateData row;
    row.set("before", esc(run_label(c.before_commit, c.before_run_id)));
    row.set("after", esc(run_label(c.after_commit, c.after_run_id)));
    row.set("before_mean", esc(format_value(c.before_mean, m.unit)));
    row.set("after_mean", esc(format_value(c.after_mean, m.unit)));
    row.set("change", esc(change_text(c)));
    if (!c.direction.empty()) row.set("direction", c.direction);
    row.set("p_value", p_value_text(c.p_value));
    row.set("runs_before", std::to_string(c.runs_before));
    row.set("runs_after", std::to_string(c.runs_after));
    row.set("confidence", esc(confidence_text(c)));
    list.push_back(row);
  }
  return list;
}

TemplateData outlier_rows(const MetricTrend& m) {
  TemplateData list = template_list();
  for (const TrendOutlier& o : m.outliers) {
    TemplateData row;
    row.set("run", esc(run_label(o.commit, o.run_id)));
    row.set("value", esc(format_value(o.value, m.unit)));
    row.set("level", esc(format_value(o.level, m.unit)));
    row.set("change", esc(outlier_change_text(o)));
    if (!o.direction.empty()) row.set("direction", o.direction);
    list.push_back(row);
  }
  return list;
}

TemplateData point_rows(const MetricTrend& m) {
  TemplateData list = template_list();
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    const TrendPoint& p = m.points[i];
    TemplateData row;
    row.set("n", std::to_string(i + 1));
    row.set("commit", esc(point_label(p)));
    row.set("branch", esc(p.branch));
    row.set("time", esc(p.time));
    row.set("value", esc(format_value(p.value, m.unit)));
    list.push_back(row);
  }
  return list;
}

TemplateData metric_view(const MetricTrend& m, const ChangePointOptions& o) {
  TemplateData d;
  d.set("metric", esc(m.metric));
  d.set("runs", std::to_string(m.points.size()));
  d.set("latest", m.points.empty() ? "n/a" : esc(format_value(m.points.back().value, m.unit)));
  d.set("band", m.band ? esc(band_text(*m.band, m.unit)) : "–");
  d.set("change_count", std::to_string(m.change_points.size()));
  if (std::string blind = detection_short(m.detection); !blind.empty()) d.set("blind", esc(blind));
  d.set("detection", esc(detection_text(m.detection, o)));
  if (m.min_effect) d.set("min_effect", esc(min_effect_text(m)));
  d.set("has_changes", !m.change_points.empty());
  d.set("changes", change_rows(m));
  d.set("has_outliers", !m.outliers.empty());
  d.set("outliers", outlier_rows(m));
  d.set("points", point_rows(m));
  return d;
}

}  // namespace

std::string render_trend_markdown(const TrendReport& t) {
  TemplateData view;
  view.set("summary", esc(trend_summary(t)));
  view.set("source", esc(t.settings.source));
  if (!t.settings.branch.empty()) view.set("branch", esc(t.settings.branch));
  view.set("max_p", fmt::format("{:g}", t.settings.detection.max_p_value));
  view.set("runs", std::to_string(t.runs));
  view.set("detection", esc(detection_text(t.detection, t.settings.detection)));
  view.set("too_few_runs", !t.detection.detectable);
  TemplateData metrics = template_list();
  for (const MetricTrend& m : t.metrics) metrics.push_back(metric_view(m, t.settings.detection));
  view.set("metrics", metrics);
  return render_template("trend.md.mustache", view, false);
}

}  // namespace perfgate
