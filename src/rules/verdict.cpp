// The verdict: counts of the findings and the exit code under --fail-on and --warnings-exit-code.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "perfgate/errors.h"
#include "perfgate/gate.h"

namespace perfgate {

ReportVerdict verdict_of(const std::vector<ReportFinding>& findings, const GateOptions& options) {
  ReportVerdict v;
  v.fail_on = options.fail_on == FailOn::Error     ? "error"
              : options.fail_on == FailOn::Warning ? "warning"
                                                   : "never";
  std::size_t errors = 0, warnings = 0;
  for (const ReportFinding& f : findings) {
    switch (f.status) {
      case FindingStatus::Pass:
        ++v.passed;
        break;
      case FindingStatus::Warn:
        ++v.warnings;
        break;
      case FindingStatus::Fail:
        ++v.failures;
        break;
      case FindingStatus::NotApplicable:
        ++v.not_applicable;
        break;
      case FindingStatus::Skipped:
        ++v.skipped;
        break;
      case FindingStatus::Inconclusive:
        ++v.inconclusive;
        break;
    }
    errors += f.counts_as == "error";
    warnings += f.counts_as == "warning";
  }
  v.status = errors > 0 ? "fail" : warnings > 0 ? "warn" : "pass";
  bool gate_fails = (options.fail_on == FailOn::Error && errors > 0) ||
                    (options.fail_on == FailOn::Warning && errors + warnings > 0);
  v.exit_code = gate_fails ? kExitGateFailed : warnings + errors > 0 ? options.warnings_exit_code : kExitPass;
  return v;
}

void apply_gate(ReportModel& report, const RuleSet& rules, const Baseline* baseline,
                const GateOptions& options) {
  if (baseline) {
    report.baseline = baseline->info;
    report.baseline->metrics = metric_changes(report, *baseline);
    const std::string& theirs = baseline->info.tool_version;
    if (baseline->info.kind == "report" && !theirs.empty() && theirs != report.tool_version)
      report.warnings.push_back(
          fmt::format("the baseline report was written by perfgate {} (this is {}): "
                      "metrics whose definition changed between them differ by more "
                      "than the run",
                      theirs, report.tool_version));
    std::vector<std::string> ours = gpu_names(report);
    if (ours != baseline->info.gpu_names) {
      report.baseline->hardware_differs = true;
      report.warnings.push_back(fmt::format(
          "the baseline ran on other GPUs ({}) than this run ({}): compare with care",
          baseline->info.gpu_names.empty() ? "none"
                                           : fmt::format("{}", fmt::join(baseline->info.gpu_names, ", ")),
          ours.empty() ? "none" : fmt::format("{}", fmt::join(ours, ", "))));
    }
    for (ReportTable& t : delta_tables(report, *baseline)) report.tables.push_back(std::move(t));
  }
  report.findings = evaluate_rules(rules, report, baseline, options.no_baseline_reason);
  for (const Rule& r : rules.rules)
    report.rules.push_back({r.id, r.title, r.enabled, !r.metric.empty() ? r.metric : r.value,
                            rule_limits_text(r), r.applies_if, r.source});
  report.verdict = verdict_of(report.findings, options);
}

}  // namespace perfgate
