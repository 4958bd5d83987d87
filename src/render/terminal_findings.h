// The terminal's gate section: the baseline, the findings that fired, and the verdict.
#pragma once

#include <string>

#include "perfgate/report.h"

namespace perfgate {

std::string terminal_findings(const ReportModel& report, bool color);

}  // namespace perfgate
