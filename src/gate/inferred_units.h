// The inferred units the step-time test compares one to one (issue 74, item 4): where neither run
// marks steps, and where this run's window steps are its inferred units (--step-pattern inferred),
// matched with the baseline's by the block they repeat and paired.
#pragma once

#include <optional>
#include <string>

#include "baseline/baseline.h"
#include "report_model/report.h"

namespace perfgate {

// What was matched, for the finding's reason: "10 of 16 units in the baseline and 14 in this run
// matched by name, 'A' to 'B'; the units without a match are set aside on both sides".
std::string matched_units_text(const MatchedUnits& m);

// Where this run's window steps are its inferred units (--step-pattern inferred) and the baseline
// names units of the same family and kind (a profile or JSON report analysed either way, a
// history): this run's units of its window steps, each by its identity (the step "X (inferred #6)"
// is the unit X, a second step of that name the unit "X (2)"), so that the gate matches them with
// the baseline's by name and pairs them as where neither run marks steps. None otherwise (a
// baseline that names no units: the steps compare as steps, unmatched).
std::optional<ReportInferredIterations> units_of_inferred_steps(const ReportModel& run,
                                                                const Baseline& baseline);

}  // namespace perfgate
