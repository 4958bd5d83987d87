// The gate: every enabled rule evaluated on the report model (and the baseline), the findings,
// and the verdict with its exit code.
#pragma once

#include <string>
#include <string_view>

#include "perfgate/baseline.h"
#include "perfgate/report.h"
#include "perfgate/rules.h"

namespace perfgate {

enum class FailOn { Error, Warning, Never };

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

// Evaluates the rules and puts the findings, the verdict, the baseline's description and the
// delta tables into the report.
void apply_gate(ReportModel& report, const RuleSet& rules, const Baseline* baseline,
                const GateOptions& options);

}  // namespace perfgate
