#include "render/trend_text.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "common/units.h"
#include "render/cell_format.h"

namespace perfgate {
namespace {

bool is_hex_id(const std::string& s) {
  return s.size() > 12 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// The unit words of a formatted value ("12.10 ms" -> " ms"; "55.5%" -> "%"), or empty.
std::string unit_suffix(const std::string& text) {
  std::size_t end = text.find_last_of("0123456789");
  return end == std::string::npos ? "" : text.substr(end + 1);
}

// A percentage with one decimal, or two significant digits below 0.1 (0.0024%, not 0.0%).
std::string percent_digits(double pct) {
  return pct >= 0.1 ? fmt::format("{:.1f}", pct) : fmt::format("{:.2g}", pct);
}

}  // namespace

std::string run_label(const std::string& commit, std::int64_t run_id) {
  if (commit.empty()) return fmt::format("run {}", run_id);
  if (is_hex_id(commit)) return commit.substr(0, 10);
  return shorten(commit, 40);
}

std::string point_label(const TrendPoint& point) {
  return run_label(point.commit, point.run_id);
}

std::string change_text(const TrendChangePoint& change) {
  if (change.change_pts) return fmt::format("{:+.1f} pts", *change.change_pts);
  return change.change_pct ? fmt::format("{:+.1f}%", *change.change_pct) : "n/a";
}

std::string p_value_text(double p) {
  // Student's t reaches far below 0.001 (and 0 for two constant levels): those keep their digits.
  if (p > 0 && p < 0.001) return fmt::format("{:.1e}", p);
  return fmt::format("{:.3f}", p);
}

std::string change_runs_text(const TrendChangePoint& change) {
  return fmt::format("{} run{} before, {} after", change.runs_before, change.runs_before == 1 ? "" : "s",
                     change.runs_after);
}

std::string confidence_text(const TrendChangePoint& change) {
  if (change.confidence_pct >= 99.99) return "≥ 99.99%";
  return fmt::format("{:.2f}%", change.confidence_pct);
}

std::string outlier_change_text(const TrendOutlier& outlier) {
  if (outlier.change_pts) return fmt::format("{:+.1f} pts", *outlier.change_pts);
  return outlier.change_pct ? fmt::format("{:+.1f}%", *outlier.change_pct) : "n/a";
}

std::string outlier_text(const TrendOutlier& outlier, const std::string& unit) {
  return fmt::format("{} at {}, {} on the {} around it", run_label(outlier.commit, outlier.run_id),
                     format_value(outlier.value, unit), outlier_change_text(outlier),
                     format_value(outlier.level, unit));
}

std::string limit_size(const std::string& limit_text) {
  // The limit as the rule writes it has the bad direction's sign ("+3%", "-5 pts").
  std::string_view size = limit_text;
  if (size.starts_with('+') || size.starts_with('-')) size.remove_prefix(1);
  return std::string(size);
}

std::string band_text(const TrendBand& band, const std::string& unit) {
  std::string range = fmt::format("{} to {}", format_value(band.low, unit), format_value(band.high, unit));
  std::string runs = band.runs == 1 ? "the last run" : fmt::format("the last {} runs", band.runs);
  if (band.since_change)
    runs = fmt::format("the {} since the change (from {})",
                       band.runs == 1 ? "run" : fmt::format("{} runs", band.runs),
                       run_label(band.since_commit, band.since_run_id));
  if (band.kind == "gate-limit")
    return fmt::format("{}: median of {} ± {} ({})", range, runs, limit_size(band.limit), band.rule);
  return fmt::format("{}: quartiles of {}", range, runs);
}

std::string min_effect_text(const MetricTrend& m) {
  if (!m.min_effect) return "";
  return fmt::format("{} ({})", limit_size(m.min_effect->text), m.rule);
}

std::string detection_text(const TrendDetection& d, const ChangePointOptions& o) {
  std::string level = fmt::format("p ≤ {:g}", o.max_p_value);
  if (!d.detectable)
    return fmt::format("{} needs ≥ {} runs: {} run{} cannot be split into two parts of {}", level,
                       d.runs_needed, d.runs, d.runs == 1 ? "" : "s", d.runs_each_side);
  std::string text =
      fmt::format("a change shows at {} with ≥ {} runs on each side of it", level, d.runs_each_side);
  if (d.noise_pct && *d.noise_pct > 0 && d.detectable_shift_pct)  // no noise: any shift shows
    text += fmt::format("; at this run noise ({}%) a shift of {}% shows {} runs after it ({:g}% power)",
                        percent_digits(*d.noise_pct), percent_digits(*d.detectable_shift_pct),
                        kShiftAfterRuns, 100 * o.power);
  return text;
}

std::string detection_short(const TrendDetection& d) {
  if (d.detectable) return "";
  return fmt::format("needs ≥ {} runs", d.runs_needed);
}

std::string trend_summary(const TrendReport& trend) {
  std::size_t changes = 0, outliers = 0;
  for (const MetricTrend& m : trend.metrics) changes += m.change_points.size(), outliers += m.outliers.size();
  std::string outlier_count =
      outliers == 0 ? "" : fmt::format(" and {} outlier{}", outliers, outliers == 1 ? "" : "s");
  return fmt::format("{} change point{}{} in {} metric{} over {} run{}", changes, changes == 1 ? "" : "s",
                     outlier_count, trend.metrics.size(), trend.metrics.size() == 1 ? "" : "s", trend.runs,
                     trend.runs == 1 ? "" : "s");
}

std::string recent_values_text(const ReportMetricTrend& trend, const std::string& current_open,
                               const std::string& current_close) {
  std::vector<std::string> texts;
  for (const ReportTrendPoint& p : trend.points) texts.push_back(format_value(p.value, trend.unit));
  if (texts.empty()) return "";
  std::string suffix = unit_suffix(texts.back());
  bool one_unit = std::all_of(texts.begin(), texts.end(), [&](const std::string& t) {
    return unit_suffix(t) == suffix && t.size() > suffix.size();
  });
  std::string out;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    bool last = i + 1 == texts.size();
    std::string value = one_unit && !last ? texts[i].substr(0, texts[i].size() - suffix.size()) : texts[i];
    if (trend.points[i].is_current) value = current_open + value + current_close;
    out += (i ? " → " : "") + value;
  }
  return out;
}

}  // namespace perfgate
