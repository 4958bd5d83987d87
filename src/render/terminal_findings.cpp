#include "render/terminal_findings.h"

#include <fmt/format.h>

#include "render/format.h"
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
      return "????";
    default:
      return "ok";
  }
}

const char* status_color(FindingStatus s) {
  return s == FindingStatus::Fail ? "1;31" : s == FindingStatus::Warn ? "1;33" : "1;35";
}

std::string finding_block(const ReportModel& r, const ReportFinding& f, const Style& style) {
  std::string head =
      fmt::format("  {}  {}: {}", style.wrap(status_label(f.status), status_color(f.status)), f.id, f.title);
  if (f.value)
    head += fmt::format(" ({}{})", format_value(f.value, f.unit),
                        f.threshold ? ", limit " + f.threshold_text : "");
  std::string out = head + "\n";
  if (!f.problem.empty()) out += "        " + f.problem + "\n";
  if (!f.reason.empty()) out += "        " + f.reason + "\n";
  if (const ReportMetricTrend* t = find_trend(r, f.metric); t && !t->points.empty())
    out += "        recent: " + recent_values_text(*t) + (t->points.back().is_current ? " (this run)" : "") +
           "\n";
  if (!f.recommendation.empty()) out += "        -> " + f.recommendation + "\n";
  if (f.gain_pct)
    out += fmt::format("        estimated gain: up to {} of the step time\n", format_pct(f.gain_pct));
  return out;
}

std::string ids_with(const std::vector<ReportFinding>& findings, FindingStatus status) {
  std::string out;
  for (const auto& f : findings)
    if (f.status == status) out += (out.empty() ? "" : ", ") + f.id;
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

}  // namespace

std::string terminal_findings(const ReportModel& r, bool color) {
  Style style{color};
  std::string out;
  if (r.baseline) {
    const ReportBaseline& b = *r.baseline;
    out += fmt::format("{:<13}{} ({}, {} steps{})\n", "Baseline", b.path, b.kind, b.steps,
                       b.hardware_differs ? ", other GPUs" : "");
  }
  bool any = false;
  for (const auto& f : r.findings) {
    if (f.status != FindingStatus::Warn && f.status != FindingStatus::Fail &&
        f.status != FindingStatus::Inconclusive)
      continue;
    if (!any) out += "Findings\n";
    any = true;
    out += finding_block(r, f, style);
  }
  if (std::string na = ids_with(r.findings, FindingStatus::NotApplicable); !na.empty())
    out += fmt::format("{:<13}{}\n", "Not applied", na);
  if (std::string skipped = ids_with(r.findings, FindingStatus::Skipped); !skipped.empty())
    out += fmt::format("{:<13}{} ({})\n", "Skipped", skipped, skipped_reason(r.findings));
  if (r.verdict) out += verdict_line(*r.verdict, style);
  return out;
}

}  // namespace perfgate
