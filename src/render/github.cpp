// GitHub Actions workflow commands: an ::error, ::warning or ::notice line per finding that fired,
// at most ten per level (the rest counted in one line), and a notice with the verdict.
#include <map>

#include <fmt/format.h>

#include "common/units.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/render.h"
#include "render/see_also.h"

namespace perfgate {
namespace {

constexpr std::size_t kPerLevel = 10;

const char* level_of(const ReportFinding& f) {
  if (f.counts_as == "error") return "error";
  if (f.counts_as == "warning") return "warning";
  return f.status == FindingStatus::Inconclusive ? "notice" : nullptr;
}

}  // namespace

std::string render_github_annotations(const ReportModel& r) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  std::string out;
  // What the run's inputs are comes before what was found in them.
  for (const Note& w : r.run_warnings)
    out += fmt::format("::warning title={}::{}\n", github_property_escape("perfgate inputs"),
                       github_data_escape(terminal_escape(note_words(w))));
  std::map<std::string, std::size_t> count;
  for (const ReportFinding& f : r.findings) {
    const char* level = level_of(f);
    if (!level) continue;
    if (++count[level] > kPerLevel) continue;
    // Control characters from traces and rule files shown escaped; the line breaks added here are
    // encoded by github_data_escape.
    std::string message = terminal_escape(f.title);
    if (f.value) message += ": " + format_value(f.value, f.unit);
    if (f.threshold) message += " (limit " + terminal_escape(f.threshold_text) + ")";
    if (!f.problem.empty()) message += "\n" + terminal_escape(f.problem);
    if (f.step_test && !f.reason.empty()) message += "\n" + terminal_escape(f.reason);  // its confidence
    if (!f.recommendation.empty()) message += "\n" + terminal_escape(f.recommendation);
    if (std::string see = see_elsewhere_text(r, f); !see.empty()) message += "\n" + terminal_escape(see);
    out +=
        fmt::format("::{} title={}::{}\n", level, github_property_escape("perfgate " + terminal_escape(f.id)),
                    github_data_escape(message));
  }
  for (const auto& [level, n] : count)
    if (n > kPerLevel)
      out += fmt::format("::{} title={}::{}\n", level, github_property_escape("perfgate"),
                         github_data_escape(fmt::format("{} more {} findings: see the report", n - kPerLevel,
                                                        level == "error" ? "failing" : level)));
  if (std::string mismatch = baseline_mismatch_text(r); !mismatch.empty())
    out += fmt::format("::warning title={}::{}\n", github_property_escape("perfgate baseline mismatch"),
                       github_data_escape(terminal_escape(mismatch)));
  // A number withheld is a notice after the findings: it never takes a finding's place.
  for (const std::string& line : data_quality_lines(r))
    out += fmt::format("::notice title={}::{}\n", github_property_escape("perfgate data quality"),
                       github_data_escape(terminal_escape(line)));
  if (r.verdict)
    out += fmt::format(
        "::notice title={}::{}\n", github_property_escape("perfgate verdict"),
        github_data_escape(fmt::format("{}: {} failed, {} warnings, {} inconclusive, {} passed",
                                       r.verdict->status, r.verdict->failures, r.verdict->warnings,
                                       r.verdict->inconclusive, r.verdict->passed)));
  return out;
}

}  // namespace perfgate
