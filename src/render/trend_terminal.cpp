// The trend on the terminal: a line per metric, and a line per change point under it.
#include <fmt/format.h>

#include "common/units.h"
#include "render/escape.h"
#include "render/trend_text.h"

namespace perfgate {

std::string render_trend_terminal(const TrendReport& t) {
  // The store's name, the branch, metric names and commits may hold anything: escaped.
  std::string out =
      fmt::format("{:<13}{}{} · {} runs\n", "History", terminal_escape(t.settings.source),
                  t.settings.branch.empty() ? "" : " · branch " + terminal_escape(t.settings.branch), t.runs);
  for (const MetricTrend& m : t.metrics) {
    std::string latest = m.points.empty() ? "n/a" : format_value(m.points.back().value, m.unit);
    out += fmt::format("  {:<30} {} runs · latest {}", terminal_escape(m.metric), m.points.size(), latest);
    if (m.band)
      out += " · band " + format_value(m.band->low, m.unit) + " to " + format_value(m.band->high, m.unit) +
             (m.band->since_change ? " since the change" : "");
    std::string blind = detection_short(m.detection);
    out += m.change_points.empty() ? " · no change point" + (blind.empty() ? "" : " (" + blind + ")")
                                   : fmt::format(" · {} change point{}", m.change_points.size(),
                                                 m.change_points.size() == 1 ? "" : "s");
    out += m.outliers.empty()
               ? "\n"
               : fmt::format(" · {} outlier{}\n", m.outliers.size(), m.outliers.size() == 1 ? "" : "s");
    for (const TrendChangePoint& c : m.change_points)
      out += fmt::format(
          "    change point {} ({} -> {}) between {} and {}: {}; p {}, confidence {}{}\n", change_text(c),
          format_value(c.before_mean, m.unit), format_value(c.after_mean, m.unit),
          terminal_escape(run_label(c.before_commit, c.before_run_id)),
          terminal_escape(run_label(c.after_commit, c.after_run_id)), change_runs_text(c),
          p_value_text(c.p_value), confidence_text(c), c.direction.empty() ? "" : ", " + c.direction);
    for (const TrendOutlier& o : m.outliers)
      out += fmt::format("    outlier      {}: one run, set aside, not a change point\n",
                         terminal_escape(outlier_text(o, m.unit)));
  }
  out += fmt::format("{:<13}{}\n", "Trend", trend_summary(t));
  out += fmt::format("{:<13}{} · changes below their rule's limit are not change points\n", "Detection",
                     detection_text(t.detection, t.settings.detection));
  return out;
}

}  // namespace perfgate
