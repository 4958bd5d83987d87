// Findings that agree (issue 72, item 8 / build item 5): rules that explain the GPUs' idle time
// claim the cause their advice answers (`claims:`, rules `advice: idle_causes`). After every rule
// has run, a fired finding whose host cause is opposed by another fired finding's cause that is
// not the host's (queued GPU work, one-offs), or the other way round, speaks only where its
// evidence is the stronger; otherwise it defers: its gain is withheld and its advice names the
// finding it defers to, with both causes' evidence.
#pragma once

#include <string>
#include <vector>

#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

// `claims`: per finding, the cause it claims ("" for none), as the rule and the recommendations
// entry it used declare it.
void defer_opposed_findings(std::vector<ReportFinding>& findings, const std::vector<std::string>& claims,
                            const std::vector<ClaimedCause>& causes, const ReportModel& report);

}  // namespace perfgate
