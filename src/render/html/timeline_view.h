// The HTML report's timeline of one step: a lane per launching thread and GPU stream, the
// critical path along it, and a strip of the whole window above.
#pragma once

#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// Adds "timeline" (its SVG, legend and caption) when the report has one.
void add_timeline(const ReportModel& report, TemplateData& view);

}  // namespace perfgate
