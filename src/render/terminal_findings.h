// The terminal's gate section: the baseline, the findings that fired, and the verdict.
#pragma once

#include <string>

#include "report_model/report.h"

namespace perfgate {

std::string terminal_findings(const ReportModel& report, bool color);

}  // namespace perfgate
