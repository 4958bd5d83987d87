// The baseline's changes, the gate's results and a history's warnings and trends put into the
// report: the gate reads the first and returns the second; no stage but this one writes the model.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/build_report.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

std::string names_text(const std::vector<std::string>& names) {
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

// A baseline written by another perfgate: a JSON report, or runs of a history (each run's version,
// pooled or not: a history used to pool them without a word, issue 74).
void add_version_notes(ReportModel& report, const Baseline& baseline) {
  const std::string& theirs = baseline.info.tool_version;
  const std::string ours = report.tool_version;
  if (baseline.info.kind == "report") {
    if (!theirs.empty() && theirs != ours)
      report.warnings.push_back(
          {"", note<NoteId::baseline_other_version>(arg<"theirs">(theirs), arg<"ours">(ours))});
    return;
  }
  std::vector<std::pair<std::string, std::string>> runs = baseline.run_tool_versions;
  if (runs.empty()) runs.emplace_back(baseline.info.path, theirs);
  std::map<std::string, std::vector<std::string>> by_version;  // another version -> its runs
  for (const auto& [path, version] : runs)
    if (!version.empty() && version != ours) by_version[version].push_back(path);
  for (const auto& [version, paths] : by_version)
    report.warnings.push_back(
        {"", note<NoteId::baseline_runs_other_version>(arg<"count">(paths.size()),
                                                       arg<"runs">(fmt::format("{}", fmt::join(paths, ", "))),
                                                       arg<"theirs">(version), arg<"ours">(ours))});
}

}  // namespace

void add_baseline(ReportModel& report, const Baseline& baseline, double min_flops_coverage_pct) {
  report.baseline = baseline.info;
  report.baseline->metrics = metric_changes(report, baseline);
  add_version_notes(report, baseline);
  if (!baseline.rows_past_limit.empty()) {
    std::size_t past = 0;
    std::vector<std::string> tables;
    for (const auto& [table, rows] : baseline.rows_past_limit) {
      past += rows;
      if (std::find(tables.begin(), tables.end(), table) == tables.end()) tables.push_back(table);
    }
    report.warnings.push_back(
        {"", note<NoteId::baseline_rows_past_limit>(
                 arg<"path">(baseline.info.path), arg<"count">(past), arg<"max">(max_table_rows()),
                 arg<"tables">(names_text(tables)), arg<"tables_count">(tables.size()))});
  }
  std::vector<std::string> ours = gpu_names(report);
  if (ours != baseline.info.gpu_names) {
    report.baseline->hardware_differs = true;
    report.warnings.push_back(
        {"", note<NoteId::baseline_other_gpus>(arg<"theirs">(names_text(baseline.info.gpu_names)),
                                               arg<"ours">(names_text(ours)))});
  }
  Baseline now = baseline_from_report(report, "", "");
  report.baseline->different_work = windows_hold_different_work(now, baseline);
  report.baseline->comparability = comparability(now, baseline);
  report.baseline->inferred_iterations = baseline.inferred_iterations;
  ChangeCounting counting = change_counting(now, baseline);
  report.baseline->changes_basis = counting.basis;
  report.baseline->changes_by_call = counting.by_call;
  report.baseline->step_work = step_work(now, baseline, min_flops_coverage_pct);
  if (const auto& work = report.baseline->step_work)
    if (auto factor = step_work_factor(*work, min_flops_coverage_pct))
      report.baseline->comparability.push_back(std::move(*factor));
  // A FLOP count that covers little of the matrix work (resnet50's 0.1%) is no measure of the work.
  auto per_tflop = [&](const MetricValues& m) -> std::optional<double> {
    auto kernel_us = m.get(Metric::KernelsTotalUs), flops = m.get(Metric::ComputeFlops);
    auto coverage = m.get(Metric::ComputeFlopsCoveragePct);
    if (!kernel_us || !flops || *flops <= 0 || (coverage && *coverage < min_flops_coverage_pct))
      return std::nullopt;
    return *kernel_us / *flops * 1e12;
  };
  if (auto before = per_tflop(baseline.metrics), after = per_tflop(report.metrics); before && after)
    report.baseline->kernel_us_per_tflop =
        ReportMetricChange{Metric::KernelsTotalUs, after, before, *after - *before,
                           *before > 0 ? std::optional<double>(*after / *before) : std::nullopt};
  for (ReportTable& t : delta_tables(report, baseline)) report.tables.push_back(std::move(t));
}

void add_gate(ReportModel& report, std::vector<ReportFinding> findings, std::vector<ReportRule> rules,
              ReportVerdict verdict, std::vector<ReportTable> tables, CaptureTerms terms) {
  report.terms = std::move(terms);
  // The tables' titles and descriptions are the catalog's words: in the capture's (issue 89).
  auto relabel = [&](std::vector<ReportTable>& list) {
    for (ReportTable& t : list) {
      t.title = in_capture_terms(t.title, report.terms);
      t.description = in_capture_terms(t.description, report.terms);
      // The timelines' lanes name the device in the catalog's word too.
      if (t.name != table_name(Table::Timeline) && t.name != table_name(Table::CriticalPathTimeline))
        continue;
      std::size_t lane = 0;
      while (lane < t.columns.size() &&
             t.columns[lane].name != shared_column(Table::Timeline, Table::CriticalPathTimeline, "lane"))
        ++lane;
      for (std::vector<ReportCell>& row : t.rows)
        if (auto* s = lane < row.size() ? std::get_if<std::string>(&row[lane]) : nullptr)
          *s = in_capture_terms(*s, report.terms);
    }
  };
  if (!report.terms.empty()) {
    relabel(report.tables);
    for (ReportWorker& w : report.workers) relabel(w.tables);
  }
  for (ReportTable& t : tables) report.tables.push_back(std::move(t));
  report.findings = std::move(findings);
  report.rules = std::move(rules);
  report.verdict = std::move(verdict);
}

void add_warnings(ReportModel& report, std::vector<Note> warnings) {
  for (Note& w : warnings) report.warnings.push_back({"", std::move(w)});
}

void override_capture(ReportModel& report, const CaptureOverride& given) {
  CaptureProfile& c = report.capture;
  auto overridden = [&](const char* field) {
    if (std::find(c.overridden.begin(), c.overridden.end(), field) == c.overridden.end())
      c.overridden.emplace_back(field);
  };
  if (given.devices) {
    c.devices = *given.devices;
    overridden("devices");
  }
  if (given.frameworks) {
    c.frameworks = *given.frameworks;
    overridden("frameworks");
  }
  if (given.workload) {
    c.workload = *given.workload;
    c.workload_evidence = given.workload_evidence;
    overridden("workload");
  }
  if (given.phases) {
    c.phases = *given.phases;
    overridden("phases");
  }
  report.capture_line = capture_line(c);
}

void add_recent_trends(ReportModel& report, std::vector<ReportMetricTrend> trends) {
  if (report.baseline) report.baseline->trends = std::move(trends);
}

}  // namespace perfgate
