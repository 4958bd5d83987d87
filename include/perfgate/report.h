// A gated run's report, read by a C++ program (public API; docs/api.md): the verdict and its exit
// code, the capture in one line, each metric by its typed id, the rules' findings, and the reports
// that `perfgate analyze` writes (JSON, Markdown, the terminal summary), the same bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/metrics.h"

namespace perfgate {

struct ReportModel;  // the program's own report model, private

// What the findings say (the JSON report's verdict.status): a rule failed, rules warned, or neither.
// Whether the gate fails under the request's fail_on is its exit code (Report::exit_code).
enum class Verdict { Pass, Warn, Fail };

// What one rule made of the run (docs/rules.md): it passed or fired (as a warning or a failure),
// did not apply (a metric the capture lacks), was skipped, or could not conclude.
enum class RuleOutcome { Pass, Warn, Fail, NotApplicable, Skipped, Inconclusive };

struct Finding {
  std::string rule;   // the rule's id: "gpu.low-utilization"
  std::string title;  // in the capture's words
  RuleOutcome outcome = RuleOutcome::Pass;
  std::string severity;             // what the rule is when it fires: "warning" or "error"
  std::string metric;               // what the value is: a metric name or the rule's expression
  std::string unit;                 // the value's unit
  std::optional<double> value;      // the run's value; empty where it has none
  std::optional<double> threshold;  // the threshold crossed (or, when passing, the nearest)
  std::optional<double> baseline;   // the baseline's value, for a baseline rule
  std::string problem;              // when it fires or cannot conclude
  std::string recommendation;       // when it fires
  std::string reason;               // why not applicable, skipped or inconclusive
  std::optional<double> gain_pct;   // the share of step time its fix may save, where bounded
  bool fired() const { return outcome == RuleOutcome::Warn || outcome == RuleOutcome::Fail; }
};

class Report {
 public:
  Verdict verdict() const;
  // The exit code `perfgate analyze` would end with for this run: 1 where the gate fails under the
  // request's fail_on, else the request's warnings_exit_code where rules warned, else 0.
  int exit_code() const;
  // "NVIDIA A100-SXM4-80GB · PyTorch · training · steady state 96% of the window": the devices,
  // framework, workload and phase the analysis found (a part it cannot tell is left out).
  std::string capture() const;
  // The run's value of `metric`; empty where it does not apply to the capture (never 0 in its place)
  // or where an invariant withheld it (warnings() says which and why).
  std::optional<double> metric(Metric metric) const;
  // One per enabled rule, in the rule files' order.
  const std::vector<Finding>& findings() const { return findings_; }
  // What the run left out or cannot vouch for, one line each: files skipped, ranks missing,
  // numbers withheld with the assumption in doubt.
  std::vector<std::string> warnings() const;
  // The reports as `perfgate analyze` writes them: --json (schema in docs/report-schema.json),
  // --markdown, and the terminal summary without colour.
  std::string json() const;
  std::string markdown() const;
  std::string summary() const;

  explicit Report(std::shared_ptr<const ReportModel> model);

 private:
  std::shared_ptr<const ReportModel> model_;
  std::vector<Finding> findings_;
};

}  // namespace perfgate
