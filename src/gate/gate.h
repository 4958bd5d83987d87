// The gate: every enabled rule evaluated on the report model (and the baseline), the findings,
// and the verdict with its exit code. The rules only read the report; the report stage puts what
// they return into it (report/build_report.h, apply_gate).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "baseline/baseline.h"
#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

// What fails the gate (exit 1): an error; a warning too; nothing; or an error or an inconclusive
// finding (a CI job that must not pass on a comparison it could not make: no steps to compare).
enum class FailOn { Error, Warning, Never, Inconclusive };

struct GateOptions {
  FailOn fail_on = FailOn::Error;
  int warnings_exit_code = 0;  // the exit code when the gate passes with warnings
  // Why there is no baseline, for the skipped rules (an empty history, other hardware); empty:
  // none was given.
  std::string no_baseline_reason;
};

std::vector<ReportFinding> evaluate_rules(const RuleSet& rules, const ReportModel& report,
                                          const Baseline* baseline, std::string_view no_baseline_reason = {});
ReportVerdict verdict_of(const std::vector<ReportFinding>& findings, const GateOptions& options);

// Every rule as it is in effect, enabled or not (the workbook's Rules sheet).
std::vector<ReportRule> rules_in_effect(const RuleSet& rules);

// What the gate returns to the report: a finding per enabled rule, the rules, the verdict, and the
// tables it worked out: "critical_path_changes" (the step against the baseline's as a waterfall of
// the critical path's bounds, gate/path_difference.h) where both runs have a critical path.
struct GateOutcome {
  std::vector<ReportFinding> findings;
  std::vector<ReportRule> rules;
  ReportVerdict verdict;
  std::vector<ReportTable> tables;
  // The capture's words for the outputs' fixed terms (report.h, CaptureTerms); the findings' and
  // rules' titles already read them.
  CaptureTerms terms;
};
GateOutcome evaluate_gate(const RuleSet& rules, const ReportModel& report, const Baseline* baseline,
                          const GateOptions& options);

}  // namespace perfgate
