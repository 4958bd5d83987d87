#include "render/terminal_findings.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "render/format.h"

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
std::string finding_block(const ReportFinding& f, const Style& style, std::size_t width) {
  std::string_view label = status_label(f.status);
  std::string head = fmt::format("  {}{}  {}: {}", style.wrap(label, status_color(f.status)),
                                 std::string(width - label.size(), ' '), f.id, f.title);
  if (f.value)
    head += fmt::format(" ({}{})", format_value(f.value, f.unit),
                        f.threshold ? ", limit " + f.threshold_text : "");
  std::string out = head + "\n";
  std::string indent(width + 4, ' ');
  if (!f.problem.empty()) out += indent + f.problem + "\n";
  if (!f.reason.empty()) out += indent + f.reason + "\n";
  if (!f.recommendation.empty()) out += indent + "-> " + f.recommendation + "\n";
  if (f.gain_pct)
    out += fmt::format("{}estimated gain: up to {} of the step time\n", indent, format_pct(f.gain_pct));
  return out;
}

std::string ids_with(const std::vector<ReportFinding>& findings, FindingStatus status) {
  std::string out;
  for (const auto& f : findings)
    if (f.status == status) out += (out.empty() ? "" : ", ") + f.id;
  return out;
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
  std::size_t width = 0;
  for (const auto& f : r.findings)
    if (shown(f)) width = std::max(width, std::string_view(status_label(f.status)).size());
  if (width > 0) out += "Findings\n";
  for (const auto& f : r.findings)
    if (shown(f)) out += finding_block(f, style, width);
  if (std::string na = ids_with(r.findings, FindingStatus::NotApplicable); !na.empty())
    out += fmt::format("{:<13}{}\n", "Not applied", na);
  if (std::string skipped = ids_with(r.findings, FindingStatus::Skipped); !skipped.empty())
    out += fmt::format("{:<13}{} (no baseline)\n", "Skipped", skipped);
  if (r.verdict) out += verdict_line(*r.verdict, style);
  return out;
}

}  // namespace perfgate
