// The first screen's diagnosis: the fired findings that matter most, each in one line (what is
// wrong, the limit, the first thing to do, the estimated gain), linked to the whole finding.
#pragma once

#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// Sets "diagnosis" in the page's view when a rule fired.
void add_diagnosis(const ReportModel& r, TemplateData& view);

// Failures, then inconclusive results, then warnings; within each, the largest estimated gain
// first and findings without one last (stable otherwise).
std::vector<const ReportFinding*> findings_by_importance(const ReportModel& r);

}  // namespace perfgate
