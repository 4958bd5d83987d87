// The public report (include/perfgate/report.h): a view of the engine's report model, its reports
// written by the same renderers as the command line's.
#include <utility>

#include "common/errors.h"
#include "common/notes.h"
#include "common/report_invariants.h"
#include "perfgate/report.h"
#include "render/render.h"
#include "report_model/report.h"

namespace perfgate {
namespace {

RuleOutcome outcome_of(FindingStatus status) {
  switch (status) {
    case FindingStatus::Pass:
      return RuleOutcome::Pass;
    case FindingStatus::Warn:
      return RuleOutcome::Warn;
    case FindingStatus::Fail:
      return RuleOutcome::Fail;
    case FindingStatus::NotApplicable:
      return RuleOutcome::NotApplicable;
    case FindingStatus::Skipped:
      return RuleOutcome::Skipped;
    case FindingStatus::Inconclusive:
      return RuleOutcome::Inconclusive;
  }
  return RuleOutcome::Inconclusive;
}

Finding finding_of(const ReportFinding& f) {
  return Finding{.rule = f.id,
                 .title = f.title,
                 .outcome = outcome_of(f.status),
                 .severity = f.severity,
                 .metric = f.metric,
                 .unit = f.unit,
                 .value = f.value,
                 .threshold = f.threshold,
                 .baseline = f.baseline,
                 .problem = f.problem,
                 .recommendation = f.recommendation,
                 .reason = f.reason,
                 .gain_pct = f.gain_pct};
}

}  // namespace

Report::Report(std::shared_ptr<const ReportModel> model) : model_(std::move(model)) {
  findings_.reserve(model_->findings.size());
  for (const ReportFinding& f : model_->findings) findings_.push_back(finding_of(f));
}

Verdict Report::verdict() const {
  if (!model_->verdict || model_->verdict->status == "pass") return Verdict::Pass;
  return model_->verdict->status == "fail" ? Verdict::Fail : Verdict::Warn;
}

int Report::exit_code() const {
  return model_->verdict ? model_->verdict->exit_code : kExitPass;
}

std::string Report::capture() const {
  return model_->capture_line;
}

std::optional<double> Report::metric(Metric metric) const {
  return model_->metric(metric);
}

std::vector<std::string> Report::warnings() const {
  std::vector<std::string> lines = note_texts(model_->run_warnings);
  for (const InvariantViolation& v : model_->invariants) lines.push_back(note_text(invariant_warning(v)));
  return lines;
}

std::string Report::json() const {
  return render_json(*model_);
}

std::string Report::markdown() const {
  return render_markdown(*model_);
}

std::string Report::summary() const {
  return render_terminal(*model_, TerminalOptions{false});
}

}  // namespace perfgate
