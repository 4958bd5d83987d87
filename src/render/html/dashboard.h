// The dashboard of the HTML report, as template data: verdict, summaries, the donut, bar and step
// charts, and the timeline of the median step.
#pragma once

#include "perfgate/report.h"
#include "render/templates.h"

namespace perfgate {

// Adds the dashboard's keys to `view`.
void add_dashboard(const ReportModel& report, TemplateData& view);

// Adds "timeline" (its SVG, legend and caption) when the report has one.
void add_timeline(const ReportModel& report, TemplateData& view);

}  // namespace perfgate
