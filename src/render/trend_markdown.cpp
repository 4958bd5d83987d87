// The trend as GitHub-flavoured Markdown (templates/trend.md.mustache): a summary table, and per
// metric its change points and, collapsed, its series. Every value is escaped here.
#include <fmt/format.h>

#include "common/units.h"
#include "render/escape.h"
#include "render/templates.h"
#include "render/trend_rows.h"
#include "render/trend_text.h"

namespace perfgate {
namespace {

std::string esc(std::string_view s) {
  return markdown_escape(s);
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
  d.set("changes", trend_change_rows(m, esc));
  d.set("has_outliers", !m.outliers.empty());
  d.set("outliers", trend_outlier_rows(m, esc));
  d.set("points", trend_point_rows(m, esc));
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
