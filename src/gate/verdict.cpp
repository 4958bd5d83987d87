// The verdict: counts of the findings and the exit code under --fail-on and --warnings-exit-code.
#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "gate/capture_words.h"
#include "gate/gate.h"
#include "gate/headline.h"
#include "gate/path_difference.h"
#include "gate/rules_for_run.h"

namespace perfgate {

ReportVerdict verdict_of(const std::vector<ReportFinding>& findings, const GateOptions& options) {
  ReportVerdict v;
  v.fail_on = options.fail_on == FailOn::Error          ? "error"
              : options.fail_on == FailOn::Warning      ? "warning"
              : options.fail_on == FailOn::Inconclusive ? "inconclusive"
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
                    (options.fail_on == FailOn::Warning && errors + warnings > 0) ||
                    (options.fail_on == FailOn::Inconclusive && errors + v.inconclusive > 0);
  v.exit_code = gate_fails ? kExitGateFailed : warnings + errors > 0 ? options.warnings_exit_code : kExitPass;
  return v;
}

std::vector<ReportRule> rules_in_effect(const RuleSet& rules) {
  std::vector<ReportRule> out;
  out.reserve(rules.rules.size());
  for (const Rule& r : rules.rules)
    out.push_back({r.id, r.title, r.enabled, !r.metric.empty() ? r.metric : r.value, rule_limits_text(r),
                   r.applies_if, r.source});
  return out;
}

GateOutcome evaluate_gate(const RuleSet& rules, const ReportModel& report, const Baseline* baseline,
                          const GateOptions& options) {
  GateOutcome outcome;
  // Rules of another device family are left out of the findings, the rules and the counts.
  RuleSet applicable = rules_for_run(rules, report);
  // The capture's words, once: the rules' text and the titles read them (issue 89).
  CaptureWording wording = capture_wording(applicable.words, report);
  outcome.findings = evaluate_rules(applicable, report, baseline, options.no_baseline_reason, wording);
  outcome.rules = rules_in_effect(applicable);
  outcome.verdict = verdict_of(outcome.findings, options);
  // Titles in the capture's words: "TPU utilization is low", "Matrix Cores are not used" (issue 89).
  outcome.terms = std::move(wording.terms);
  bool has_steps =
      std::any_of(report.steps.begin(), report.steps.end(), [](const ReportStep& s) { return s.in_window; });
  for (ReportFinding& f : outcome.findings) {
    f.title = in_capture_terms(f.title, outcome.terms);
    set_headline(f, outcome.terms, has_steps);
  }
  for (ReportRule& r : outcome.rules) r.title = in_capture_terms(r.title, outcome.terms);
  if (baseline)
    if (std::optional<PathDifference> d = path_difference(baseline->metrics, report.metrics)) {
      // The headline's statistic where both runs have it (regression.step-time: steps.median_us).
      std::optional<double> before = baseline->metric(Metric::StepsMedianUs),
                            after = report.metric(Metric::StepsMedianUs);
      std::optional<MedianSteps> medians;
      if (before && after) medians = MedianSteps{*before, *after};
      outcome.tables.push_back(critical_path_changes(*d, medians));
    }
  return outcome;
}

}  // namespace perfgate
