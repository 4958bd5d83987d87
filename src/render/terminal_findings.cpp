#include "render/terminal_findings.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "render/cell_format.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/render.h"
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
  if (f.in_baseline) head += " [also in the baseline]";
  std::string out = head + "\n";
  std::string indent(width + 4, ' ');
  if (!f.problem.empty()) out += indent + terminal_escape(f.problem) + "\n";
  if (!f.reason.empty()) out += indent + terminal_escape(f.reason) + "\n";
  if (const ReportMetricTrend* t = find_trend(r, f.metric); t && !t->points.empty())
    out += indent + "recent: " + terminal_escape(recent_values_text(*t)) +
           (t->points.back().is_current ? " (this run)" : "") + "\n";
  if (!f.recommendation.empty()) out += indent + "-> " + terminal_escape(f.recommendation) + "\n";
  if (std::string see = see_elsewhere_text(r, f); !see.empty()) out += indent + terminal_escape(see) + "\n";
  if (!f.gain_withheld.empty()) out += indent + "estimated gain: " + terminal_escape(f.gain_withheld) + "\n";
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

// Absent where the run has no such row (new in the run, or gone from it).
std::string calls_text(std::optional<double> calls) {
  return calls ? format_value(calls, "count") : "–";
}

// "aten::mm +1.00 ms (10 → 12 calls) · ..." for the first three rows of the table "changes" of one
// item (op, region, kernel) in one direction (it lists each direction largest first).
// `per_calls`: each row's change of the time a call at this run's calls, and its change a call in
// per cent (the windows hold different work).
std::string change_rows(const ReportTable& t, std::string_view item, std::string_view direction,
                        bool per_calls) {
  std::vector<std::size_t> rows;
  std::vector<std::string> names;
  for (std::size_t r = 0; r < t.rows.size() && rows.size() < 3; ++r)
    if (text_at(t, r, table_column(Table::Changes, "item")) == item &&
        text_at(t, r, table_column(Table::Changes, "direction")) == direction) {
      rows.push_back(r);
      names.push_back(text_at(t, r, table_column(Table::Changes, "name")));
    }
  std::vector<std::string> labels = distinct_short_labels(names, 60);
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::optional<double> delta =
        per_calls ? optional_number_at(t, rows[i], table_column(Table::Changes, "delta_us_by_call"))
                  : optional_number_at(t, rows[i], table_column(Table::Changes, "delta_us_per_step"));
    std::string calls = item == "region" ? "ranges" : "calls";
    std::optional<double> per_call =
        optional_number_at(t, rows[i], table_column(Table::Changes, "delta_per_call_pct"));
    out += fmt::format(
        "{}{} {}{} ({} → {} {}{})", i ? " · " : "", terminal_escape(labels[i]),
        delta.value_or(0) < 0 ? "-" : "+", format_duration_us(std::abs(delta.value_or(0))),
        calls_text(optional_number_at(t, rows[i], table_column(Table::Changes, "baseline_calls_per_step"))),
        calls_text(optional_number_at(t, rows[i], table_column(Table::Changes, "calls_per_step"))), calls,
        per_call && per_calls ? fmt::format(", {:+.1f}% a call", *per_call) : "");
  }
  return out;
}

// What got slower and what got faster against the baseline (per step, or over each run's whole
// window where a run has no steps): the largest of the ops, regions and kernels, both ways.
std::string changes_lines(const ReportModel& r) {
  const ReportTable* t = find_table(r.tables, Table::Changes);
  if (!t) return "";
  std::string lines;
  for (const auto& [item, label] :
       {std::pair{"op", "ops"}, std::pair{"region", "regions"}, std::pair{"kernel", "kernels"}}) {
    bool first = true;
    for (const char* direction : {"slower", "faster"})
      if (std::string rows = change_rows(*t, item, direction, r.baseline && r.baseline->changes_by_call);
          !rows.empty()) {
        lines += fmt::format("  {:<11}{:<8}{}\n", first ? label : "", direction, rows);
        first = false;
      }
  }
  if (lines.empty()) return "";
  return fmt::format("{:<13}{} against the baseline, {}\n", "Changes", changes_basis(r), changes_order(r)) +
         lines;
}

// The order the summary names findings in: failed, inconclusive, then warnings; in each, what the
// change did before what the baseline had too.
int summary_rank(const ReportFinding& f) {
  int status = f.status == FindingStatus::Fail ? 0 : f.status == FindingStatus::Inconclusive ? 1 : 2;
  return status * 2 + (f.in_baseline ? 1 : 0);
}

}  // namespace

std::string terminal_findings_summary(const ReportModel& r, bool color, std::size_t shown_at_most,
                                      std::size_t columns) {
  Style style{color};
  std::string out;
  auto line = [&](const std::string& text) { out += cut_to_columns(text, columns) + "\n"; };
  if (r.baseline)
    line(fmt::format("{:<13}{} ({}, {} steps)", "Baseline", terminal_escape(shown_baseline(*r.baseline)),
                     r.baseline->kind, r.baseline->steps));
  if (const std::optional<ReportVerdict>& v = r.verdict) {
    std::string word(verdict_word(v->status));
    out += fmt::format("{:<13}{} (exit {}: {} failed, {} warnings, {} inconclusive)\n", "Verdict",
                       style.wrap(word, v->status == "fail"   ? "1;31"
                                        : v->status == "warn" ? "1;33"
                                                              : "1;32"),
                       v->exit_code, v->failures, v->warnings, v->inconclusive);
  }
  // Why the baseline rules did not run, where a baseline was asked for (an empty history): a CI
  // user's first run must say so on the first screen.
  std::size_t skipped = 0;
  for (const auto& f : r.findings) skipped += f.status == FindingStatus::Skipped;
  if (std::string reason = skipped_reason(r.findings); skipped > 0 && reason != "no baseline")
    line(fmt::format("{:<13}{} baseline rules: {}", "Skipped", skipped, terminal_escape(reason)));
  std::vector<const ReportFinding*> fired;
  for (const auto& f : r.findings)
    if (shown(f)) fired.push_back(&f);
  std::stable_sort(fired.begin(), fired.end(), [](const ReportFinding* a, const ReportFinding* b) {
    return summary_rank(*a) < summary_rank(*b);
  });
  std::size_t width = 0;
  for (const ReportFinding* f : fired)
    width = std::max(width, std::string_view(status_label(f->status)).size());
  for (std::size_t i = 0; i < fired.size() && i < shown_at_most; ++i) {
    const ReportFinding& f = *fired[i];
    std::string_view label = status_label(f.status);
    std::string head = fmt::format("  {}{}  {}: {}", label, std::string(width - label.size(), ' '),
                                   terminal_escape(f.id), terminal_escape(f.title));
    if (f.value && f.baseline)  // a change: both sides
      head +=
          fmt::format(" ({}, baseline {})", format_value(f.value, f.unit), format_value(f.baseline, f.unit));
    else if (f.value)
      head += fmt::format(" ({})", format_value(f.value, f.unit));
    if (f.gain_pct) head += fmt::format(", gain up to {}", format_pct(f.gain_pct));
    std::string cut = cut_to_columns(head, columns);
    if (color) cut.replace(2, label.size(), style.wrap(label, status_color(f.status)));
    out += cut + "\n";
  }
  if (fired.size() > shown_at_most) {
    std::string rest;
    for (std::size_t i = shown_at_most; i < fired.size(); ++i)
      rest += (rest.empty() ? "" : ", ") + terminal_escape(fired[i]->id);
    line(fmt::format("  and {} more: {}", fired.size() - shown_at_most, rest));
  }
  return out;
}

std::string terminal_findings(const ReportModel& r, bool color) {
  Style style{color};
  std::string out;
  if (r.baseline) {
    const ReportBaseline& b = *r.baseline;
    out += fmt::format("{:<13}{} ({}, {} steps{})\n", "Baseline", terminal_escape(b.path), b.kind, b.steps,
                       b.hardware_differs ? words(", other GPUs") : "");
    if (std::string mismatch = baseline_mismatch_text(r); !mismatch.empty())
      out += fmt::format("{:<13}{}\n", "", style.wrap(terminal_escape(mismatch), "1;33"));
    out += fmt::format("{:<13}{}\n", "Work", terminal_escape(window_work_text(r)));
    if (std::string note = different_work_text(r); !note.empty())
      out += fmt::format("{:<13}{}\n", "", style.wrap(terminal_escape(note), "1;33"));
    for (std::size_t i = 0; i < b.comparability.size(); ++i) {
      const ReportComparability& c = b.comparability[i];
      std::string line = terminal_escape(comparability_line(c));
      out += fmt::format("{:<13}{}\n", i == 0 ? "Comparable" : "", c.holds ? line : style.wrap(line, "1;33"));
    }
    out += changes_lines(r);
  }
  std::size_t width = 0;
  for (const auto& f : r.findings)
    if (shown(f)) width = std::max(width, std::string_view(status_label(f.status)).size());
  if (width > 0) out += "Findings\n";
  // What the change did first: findings the baseline had too (the same rule fires on its metrics) after.
  for (bool before : {false, true})
    for (const auto& f : r.findings)
      if (shown(f) && f.in_baseline == before) out += finding_block(r, f, style, width);
  if (std::string na = ids_with(r.findings, FindingStatus::NotApplicable); !na.empty())
    out += fmt::format("{:<13}{}\n", "Not applied", na);
  if (std::string skipped = ids_with(r.findings, FindingStatus::Skipped); !skipped.empty())
    out += fmt::format("{:<13}{} ({})\n", "Skipped", skipped, skipped_reason(r.findings));
  if (r.verdict) out += verdict_line(*r.verdict, style);
  return out;
}

}  // namespace perfgate
