#include "render/trend_rows.h"

#include "common/units.h"
#include "render/trend_text.h"

namespace perfgate {
namespace {

const char* direction_class(const std::string& direction) {
  return direction == "regression" ? "status-fail" : direction == "improvement" ? "status-pass" : "text";
}

void set_direction(TemplateData& row, const std::string& direction, EscapeText escape) {
  if (!direction.empty()) row.set("direction", escape(direction));
  row.set("direction_class", direction_class(direction));
}

}  // namespace

std::string unescaped(std::string_view text) {
  return std::string(text);
}

TemplateData trend_change_rows(const MetricTrend& m, EscapeText escape) {
  TemplateData list = template_list();
  for (const TrendChangePoint& c : m.change_points) {
    TemplateData row;
    row.set("before", escape(run_label(c.before_commit, c.before_run_id)));
    row.set("before_full", escape(c.before_commit));
    row.set("after", escape(run_label(c.after_commit, c.after_run_id)));
    row.set("after_full", escape(c.after_commit));
    row.set("before_mean", escape(format_value(c.before_mean, m.unit)));
    row.set("after_mean", escape(format_value(c.after_mean, m.unit)));
    row.set("change", escape(change_text(c)));
    set_direction(row, c.direction, escape);
    row.set("p_value", p_value_text(c.p_value));
    row.set("runs_before", std::to_string(c.runs_before));
    row.set("runs_after", std::to_string(c.runs_after));
    row.set("confidence", escape(confidence_text(c)));
    list.push_back(row);
  }
  return list;
}

TemplateData trend_outlier_rows(const MetricTrend& m, EscapeText escape) {
  TemplateData list = template_list();
  for (const TrendOutlier& o : m.outliers) {
    TemplateData row;
    row.set("run", escape(run_label(o.commit, o.run_id)));
    row.set("run_full", escape(o.commit));
    row.set("value", escape(format_value(o.value, m.unit)));
    row.set("level", escape(format_value(o.level, m.unit)));
    row.set("change", escape(outlier_change_text(o)));
    set_direction(row, o.direction, escape);
    list.push_back(row);
  }
  return list;
}

TemplateData trend_point_rows(const MetricTrend& m, EscapeText escape) {
  TemplateData list = template_list();
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    const TrendPoint& p = m.points[i];
    TemplateData row;
    row.set("n", std::to_string(i + 1));
    row.set("commit", escape(point_label(p)));
    row.set("commit_full", escape(p.commit));
    row.set("branch", escape(p.branch));
    row.set("time", escape(p.time));
    row.set("value", escape(format_value(p.value, m.unit)));
    list.push_back(row);
  }
  return list;
}

}  // namespace perfgate
