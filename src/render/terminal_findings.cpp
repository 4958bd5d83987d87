#include "render/terminal_findings.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "render/cell_format.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/see_also.h"
#include "render/short_labels.h"
#include "render/trend_text.h"

namespace perfgate {
namespace {

struct Style {
  bool color;
  std::string wrap(std::string_view text, const char* code) const {
    return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
};

const char* status_label(FindingStatus s) {
  switch (s) {
    case FindingStatus::Fail:
      return "FAIL";
    case FindingStatus::Warn:
      return "WARN";
    case FindingStatus::Inconclusive:
      return "INCONCLUSIVE";
    default:
      return "ok";
  }
}

const char* status_color(FindingStatus s) {
  return s == FindingStatus::Fail ? "1;31" : s == FindingStatus::Warn ? "1;33" : "1;35";
}

bool shown(const ReportFinding& f) {
  return f.status == FindingStatus::Warn || f.status == FindingStatus::Fail ||
         f.status == FindingStatus::Inconclusive;
}

// `width`: of the status column, the longest status word shown, so that ids and the lines under
// them line up.
std::string finding_block(const ReportModel& r, const ReportFinding& f, const Style& style,
                          std::size_t width) {
  std::string_view label = status_label(f.status);
  std::string head =
      fmt::format("  {}{}  {}: {}", style.wrap(label, status_color(f.status)),
                  std::string(width - label.size(), ' '), terminal_escape(f.id), terminal_escape(f.title));
  if (f.value)
    head += fmt::format(" ({}{})", format_value(f.value, f.unit),
                        f.threshold ? ", limit " + terminal_escape(f.threshold_text) : "");
  std::string out = head + "\n";
  std::string indent(width + 4, ' ');
  if (!f.problem.empty()) out += indent + terminal_escape(f.problem) + "\n";
  if (!f.reason.empty()) out += indent + terminal_escape(f.reason) + "\n";
  if (const ReportMetricTrend* t = find_trend(r, f.metric); t && !t->points.empty())
    out += indent + "recent: " + terminal_escape(recent_values_text(*t)) +
           (t->points.back().is_current ? " (this run)" : "") + "\n";
  if (!f.recommendation.empty()) out += indent + "-> " + terminal_escape(f.recommendation) + "\n";
  if (std::string see = see_elsewhere_text(r, f); !see.empty()) out += indent + terminal_escape(see) + "\n";
  if (f.gain_pct) {
    std::string path = gain_path_note(f);
    out += fmt::format("{}estimated gain: up to {} of {}{}\n", indent, format_pct(f.gain_pct),
                       gain_share_of(r), path.empty() ? "" : " (" + path + ")");
  }
  return out;
}

std::string ids_with(const std::vector<ReportFinding>& findings, FindingStatus status) {
  std::string out;
  for (const auto& f : findings)
    if (f.status == status) out += (out.empty() ? "" : ", ") + terminal_escape(f.id);
  return out;
}

// Why the rules were skipped: the reason they share when it says more than "no baseline" (an
// empty run history, one with runs on other GPUs only).
std::string skipped_reason(const std::vector<ReportFinding>& findings) {
  std::string reason;
  for (const auto& f : findings) {
    if (f.status != FindingStatus::Skipped) continue;
    if (!reason.empty() && f.reason != reason) return "no baseline";
    reason = f.reason;
  }
  return reason.empty() || reason.starts_with("no baseline to compare with") ? "no baseline" : reason;
}

std::string verdict_line(const ReportVerdict& v, const Style& style) {
  std::string word = v.status == "fail"   ? style.wrap("FAIL", "1;31")
                     : v.status == "warn" ? style.wrap("PASS with warnings", "1;33")
                                          : style.wrap("PASS", "1;32");
  return fmt::format(
      "{:<13}{} (exit {}; {} failed, {} warnings, {} inconclusive, {} passed, {} n/a, {} skipped)\n",
      "Verdict", word, v.exit_code, v.failures, v.warnings, v.inconclusive, v.passed, v.not_applicable,
      v.skipped);
}

// The change of a delta table's row in us (per step, or over the whole window): the sum of its
// delta_..._us_per_step columns.
double time_change(const ReportTable& t, std::size_t row) {
  double sum = 0;
  for (std::size_t c = 0; c < t.columns.size() && c < t.rows[row].size(); ++c)
    if (t.columns[c].unit == "us" && t.columns[c].name.starts_with("delta_"))
      sum += cell_number(t.rows[row][c]).value_or(0);
  return sum;
}

// "aten::mm +1.00 ms · ..." for the first rows of a delta table that got slower beyond its noise
// floor (it is sorted so).
std::string slower_rows(const ReportTable& t) {
  std::vector<std::string> names;
  std::vector<double> changes;
  for (std::size_t r = 0; r < t.rows.size() && names.size() < 3; ++r) {
    const auto* name = find_cell(t, r, "name");
    const auto* kind = find_cell(t, r, "change");  // below 1 us or 1% per step is "unchanged"
    bool slower = kind && std::holds_alternative<std::string>(*kind) &&
                  (std::get<std::string>(*kind) == "regression" || std::get<std::string>(*kind) == "new");
    double change = time_change(t, r);
    if (!name || !std::holds_alternative<std::string>(*name) || !slower || change <= 0) break;
    names.push_back(std::get<std::string>(*name));
    changes.push_back(change);
  }
  std::vector<std::string> labels = distinct_short_labels(names, 80);
  std::string out;
  for (std::size_t i = 0; i < labels.size(); ++i)
    out +=
        fmt::format("{}{} +{}", i ? " · " : "", terminal_escape(labels[i]), format_duration_us(changes[i]));
  return out;
}

// What got slower against the baseline (per step, or over each run's whole window where a run has
// no steps): the first rows of the op, region and kernel deltas.
std::string changes_lines(const ReportModel& r) {
  std::string lines;
  for (const auto& [table, label] : {std::pair{"op_deltas", "ops"}, std::pair{"region_deltas", "regions"},
                                     std::pair{"kernel_deltas", "kernels"}})
    if (const ReportTable* t = find_table(r.tables, table))
      if (std::string rows = slower_rows(*t); !rows.empty())
        lines += fmt::format("  {:<11}{}\n", label, rows);
  if (lines.empty()) return "";
  return fmt::format("{:<13}{} against the baseline, largest first\n", "Changes", changes_basis(r)) + lines;
}

}  // namespace

std::string terminal_findings(const ReportModel& r, bool color) {
  Style style{color};
  std::string out;
  if (r.baseline) {
    const ReportBaseline& b = *r.baseline;
    out += fmt::format("{:<13}{} ({}, {} steps{})\n", "Baseline", terminal_escape(b.path), b.kind, b.steps,
                       b.hardware_differs ? ", other GPUs" : "");
    if (std::string mismatch = baseline_mismatch_text(r); !mismatch.empty())
      out += fmt::format("{:<13}{}\n", "", style.wrap(terminal_escape(mismatch), "1;33"));
    out += changes_lines(r);
  }
  std::size_t width = 0;
  for (const auto& f : r.findings)
    if (shown(f)) width = std::max(width, std::string_view(status_label(f.status)).size());
  if (width > 0) out += "Findings\n";
  for (const auto& f : r.findings)
    if (shown(f)) out += finding_block(r, f, style, width);
  if (std::string na = ids_with(r.findings, FindingStatus::NotApplicable); !na.empty())
    out += fmt::format("{:<13}{}\n", "Not applied", na);
  if (std::string skipped = ids_with(r.findings, FindingStatus::Skipped); !skipped.empty())
    out += fmt::format("{:<13}{} ({})\n", "Skipped", skipped, skipped_reason(r.findings));
  if (r.verdict) out += verdict_line(*r.verdict, style);
  return out;
}

}  // namespace perfgate
