// The trend page (templates/trend.html.mustache): one self-contained page with the report's style
// sheet inline, an SVG chart and a change-point table per metric, and no script at all.
#include <fmt/format.h>

#include "common/units.h"
#include "render/html/charts.h"
#include "render/templates.h"
#include "render/trend_rows.h"
#include "render/trend_text.h"
#include "report_model/trend.h"

namespace perfgate {
namespace {

constexpr const char* kRegressionColor = "#c8322d";
constexpr const char* kImprovementColor = "#1f8a4c";
constexpr const char* kChangeColor = "#6b5bd6";

const char* change_color(const TrendChangePoint& c) {
  return c.direction == "regression"    ? kRegressionColor
         : c.direction == "improvement" ? kImprovementColor
                                        : kChangeColor;
}

std::string point_tooltip(const TrendPoint& p, const std::string& unit) {
  return fmt::format("{}: {}\nrun {}{}{}", p.commit.empty() ? "no commit" : p.commit,
                     format_value(p.value, unit), p.run_id, p.branch.empty() ? "" : " on " + p.branch,
                     p.time.empty() ? "" : ", " + p.time);
}

// Between change points, the runs and their mean (each change point knows the mean on either side).
std::vector<TrendChartSegment> segments_of(const MetricTrend& m) {
  std::vector<TrendChartSegment> out;
  std::size_t begin = 0;
  for (const TrendChangePoint& c : m.change_points) {
    out.push_back({begin, c.index, c.before_mean});
    begin = c.index;
  }
  if (!m.change_points.empty()) out.push_back({begin, m.points.size(), m.change_points.back().after_mean});
  return out;
}

std::string chart_of(const MetricTrend& m) {
  TrendChart c;
  c.title = fmt::format("{} per run", m.metric);
  c.unit = m.unit;
  for (const TrendPoint& p : m.points)
    c.points.push_back({point_label(p), point_tooltip(p, m.unit), p.value});
  for (const TrendOutlier& o : m.outliers) {  // marked apart from the change points
    c.points[o.index].outlier = true;
    c.points[o.index].tooltip += "\noutlier: " + outlier_text(o, m.unit) + "; set aside, not a change point";
  }
  if (m.band) {
    c.band_low = m.band->low;
    c.band_high = m.band->high;
    c.band_center = m.band->center;
    c.band_from = m.points.size() - m.band->runs;
  }
  c.segments = segments_of(m);
  for (const TrendChangePoint& ch : m.change_points)
    c.markers.push_back({ch.index, change_text(ch), change_color(ch),
                         fmt::format("change point {} between {} and {}: {}; p {}, confidence {}",
                                     change_text(ch), ch.before_commit, ch.after_commit, change_runs_text(ch),
                                     p_value_text(ch.p_value), confidence_text(ch))});
  return trend_chart_svg(c);
}

std::string caption_of(const MetricTrend& m) {
  std::string text = "The value of each run, oldest first; a point's tooltip names its commit and time.";
  if (!m.change_points.empty()) text += " Horizontal lines are the means of the runs between change points.";
  if (!m.outliers.empty()) text += " A ringed point is an outlier, set aside: no change point.";
  if (m.band)
    text += m.band->since_change
                ? fmt::format(" The band is of the {} runs since the last change.", m.band->runs)
                : fmt::format(" The band is of the last {} runs.", m.band->runs);
  return text;
}

TemplateData metric_view(const MetricTrend& m, const ChangePointOptions& o) {
  TemplateData d;
  d.set("metric", m.metric);
  d.set("anchor", "metric-" + m.metric);
  if (!m.rule.empty()) d.set("rule", m.rule);
  d.set("run_count", std::to_string(m.points.size()));
  if (m.runs_without_value > 0) d.set("without_value", std::to_string(m.runs_without_value));
  d.set("latest", m.points.empty() ? "n/a" : format_value(m.points.back().value, m.unit));
  d.set("band", m.band ? band_text(*m.band, m.unit) : "–");
  if (m.band) d.set("band_legend", band_text(*m.band, m.unit));
  d.set("change_count", std::to_string(m.change_points.size()));
  if (std::string blind = detection_short(m.detection); !blind.empty()) d.set("blind", blind);
  d.set("detection", detection_text(m.detection, o));
  if (m.min_effect) d.set("min_effect", min_effect_text(m));
  d.set("has_changes", !m.change_points.empty());
  d.set("svg", chart_of(m));
  d.set("caption", caption_of(m));
  d.set("changes", trend_change_rows(m, unescaped));
  d.set("has_outliers", !m.outliers.empty());
  d.set("outliers", trend_outlier_rows(m, unescaped));
  d.set("points", trend_point_rows(m, unescaped));
  return d;
}

}  // namespace

std::string render_trend_html(const TrendReport& t) {
  TemplateData view;
  view.set("version", t.tool_version);
  view.set("css", std::string(template_text("report.css")));
  // The report's script: it lays the charts out for the width they get and sorts the tables.
  view.set("js", std::string(template_text("report.js")));
  view.set("source", t.settings.source);
  if (!t.settings.branch.empty()) view.set("branch", t.settings.branch);
  view.set("runs", std::to_string(t.runs));
  view.set("max_p", fmt::format("{:g}", t.settings.detection.max_p_value));
  view.set("min_segment", std::to_string(t.settings.detection.min_segment));
  view.set("summary", trend_summary(t));
  view.set("detection", detection_text(t.detection, t.settings.detection));
  view.set("too_few_runs", !t.detection.detectable);
  TemplateData metrics = template_list();
  for (const MetricTrend& m : t.metrics) metrics.push_back(metric_view(m, t.settings.detection));
  view.set("metrics", metrics);
  return render_template("trend.html.mustache", view);
}

}  // namespace perfgate
