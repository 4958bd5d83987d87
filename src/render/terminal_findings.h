// The terminal's gate section: the baseline, the findings that fired, and the verdict.
#pragma once

#include <string>

#include "report_model/report.h"

namespace perfgate {

std::string terminal_findings(const ReportModel& report, bool color);
// The summary's: the baseline in a line, the verdict, and the headlines of the first `shown` findings
// (failed and inconclusive first, then what the change did, then what the baseline had too), each
// line cut to `columns`; the others counted.
std::string terminal_findings_summary(const ReportModel& report, bool color, std::size_t shown,
                                      std::size_t columns);

}  // namespace perfgate
