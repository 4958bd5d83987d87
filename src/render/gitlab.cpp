// GitLab: a Code Quality report (the findings that fired) and an OpenMetrics metrics report.
#include <cstdint>

#include <fmt/format.h>

#include "common/units.h"
#include "render/format.h"
#include "render/json_writer.h"
#include "render/render.h"

namespace perfgate {
namespace {

// FNV-1a: a stable fingerprint, so that GitLab matches a finding across pipelines.
std::string fingerprint(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

const char* severity_of(const ReportFinding& f) {
  if (f.counts_as == "error") return "major";
  if (f.counts_as == "warning") return "minor";
  return "info";
}

// OpenMetrics names: [a-zA-Z_:][a-zA-Z0-9_:]*.
std::string openmetrics_name(std::string_view name) {
  std::string out = "perfgate_";
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// One Code Quality entry, on line 1 of `path`: every entry has the same shape, only its words differ.
void write_entry(JsonWriter& j, const std::string& description, const std::string& check_name,
                 const std::string& fingerprint_key, const char* severity, const std::string& path) {
  j.begin_object();
  j.key("description").value(description);
  j.key("check_name").value(check_name);
  j.key("fingerprint").value(fingerprint(fingerprint_key));
  j.key("severity").value(severity);
  j.key("location").begin_object().key("path").value(path);
  j.key("lines").begin_object().key("begin").value(1).end_object().end_object();
  j.end_object();
}

}  // namespace

std::string render_gitlab_code_quality(const ReportModel& r, std::string_view location) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  std::string path = !location.empty()  ? std::string(location)
                     : r.inputs.empty() ? "perfgate"
                                        : r.inputs.front().path;
  JsonWriter j;
  j.begin_array();
  // The run's inputs are not one whole capture: said before the findings made of them.
  for (const std::string& w : note_texts(r.run_warnings))
    write_entry(j, w, "perfgate.inputs", "perfgate|inputs|" + w + "|" + path, "minor", path);
  for (const ReportFinding& f : r.findings) {
    if (f.status != FindingStatus::Fail && f.status != FindingStatus::Warn &&
        f.status != FindingStatus::Inconclusive)
      continue;
    std::string description = f.title;
    if (f.value) description += ": " + format_value(f.value, f.unit);
    if (f.threshold) description += " (limit " + f.threshold_text + ")";
    if (!f.problem.empty()) description += ". " + f.problem;
    if (f.step_test && !f.reason.empty()) description += " " + f.reason;  // the step test's confidence
    write_entry(j, description, "perfgate." + f.id, "perfgate|" + f.id + "|" + path, severity_of(f), path);
  }
  // A number withheld (a report invariant broke): after the findings, at GitLab's lowest severity.
  for (const std::string& line : data_quality_lines(r))
    write_entry(j, "Data quality: " + line, "perfgate.data-quality",
                "perfgate|data-quality|" + line + "|" + path, "info", path);
  j.end_array();
  return j.str() + "\n";
}

std::string render_openmetrics(const ReportModel& r) {
  std::string out;
  for (std::size_t i = 0; i < r.metrics.size(); ++i) {
    std::optional<double> value = r.metrics.at(i);
    if (!value) continue;  // not applicable: OpenMetrics has no null
    std::string name = openmetrics_name(kMetricNames[i]);
    out += fmt::format("# TYPE {} gauge\n{} {}\n", name, name, *value);  // shortest exact form
  }
  if (r.verdict) {
    out +=
        fmt::format("# TYPE perfgate_gate_failures gauge\nperfgate_gate_failures {}\n", r.verdict->failures);
    out +=
        fmt::format("# TYPE perfgate_gate_warnings gauge\nperfgate_gate_warnings {}\n", r.verdict->warnings);
  }
  return out + "# EOF\n";
}

}  // namespace perfgate
