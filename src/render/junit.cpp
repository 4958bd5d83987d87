// JUnit XML: one test case per rule. A failing rule (or an inconclusive one counted as an error)
// is a <failure>; n/a and skipped rules are <skipped> with the reason; warnings pass, with the
// message in <system-out> (and fail with --fail-on warning, as the gate does).
#include <fmt/format.h>

#include "common/units.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/render.h"
#include "render/see_also.h"

namespace perfgate {
namespace {

bool counts_as_failure(const ReportFinding& f, bool warnings_fail) {
  return f.counts_as == "error" || (warnings_fail && f.counts_as == "warning");
}

std::string message_of(const ReportFinding& f) {
  std::string m = f.title;
  if (f.value) m += ": " + format_value(f.value, f.unit);
  if (f.threshold) m += " (limit " + f.threshold_text + ")";
  return m;
}

std::string details_of(const ReportModel& r, const ReportFinding& f) {
  std::string d;
  const std::string see = see_elsewhere_text(r, f);
  for (const std::string* s : {&f.problem, &f.reason, &f.recommendation, &see})
    if (!s->empty()) d += (d.empty() ? "" : "\n") + *s;
  if (!f.docs.empty()) d += "\n" + f.docs;
  return d;
}

std::string suite_name(const ReportModel& r) {
  std::string names;
  for (std::size_t i = 0; i < r.inputs.size() && i < 3; ++i) names += (i ? ", " : "") + r.inputs[i].worker;
  if (r.inputs.size() > 3) names += fmt::format(" and {} more", r.inputs.size() - 3);
  return "perfgate: " + names;
}

}  // namespace

std::string render_junit(const ReportModel& r, bool warnings_fail) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  std::size_t failures = 0, skipped = 0;
  std::string cases;
  for (const ReportFinding& f : r.findings) {
    std::string group = f.id.substr(0, f.id.find('.'));
    cases += fmt::format(R"(    <testcase classname="perfgate.{}" name="{}" time="0">)", xml_escape(group),
                         xml_escape(f.id));
    if (counts_as_failure(f, warnings_fail)) {
      ++failures;
      cases += fmt::format("\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    ",
                           xml_escape(message_of(f)), f.counts_as, xml_escape(details_of(r, f)));
    } else if (f.status == FindingStatus::NotApplicable || f.status == FindingStatus::Skipped) {
      ++skipped;
      cases += fmt::format("\n      <skipped message=\"{}\"/>\n    ", xml_escape(f.reason));
    } else if (f.counts_as == "warning") {
      cases += fmt::format("\n      <system-out>warning: {}\n{}</system-out>\n    ",
                           xml_escape(message_of(f)), xml_escape(details_of(r, f)));
    }
    cases += "</testcase>\n";
  }
  std::string suite = xml_escape(suite_name(r));
  // Inputs that are not one capture, and a baseline that is not comparable as it stands, are said
  // where CI systems show a suite's output.
  std::string notes;
  for (const Note& w : r.run_warnings) notes += note_words(w) + "\n";
  if (std::string mismatch = baseline_mismatch_text(r); !mismatch.empty()) notes += mismatch + "\n";
  // Numbers withheld because a report invariant broke: after the findings, never one of them.
  for (const std::string& line : data_quality_lines(r)) notes += "Data quality: " + line + "\n";
  if (!notes.empty()) {
    notes.pop_back();
    cases += fmt::format("    <system-out>{}</system-out>\n", xml_escape(notes));
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"perfgate\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"{2}\">\n"
      "  <testsuite name=\"{3}\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"{2}\" time=\"0\">\n{4}"
      "  </testsuite>\n</testsuites>\n",
      r.findings.size(), failures, skipped, suite, cases);
}

}  // namespace perfgate
