// The dashboard of the HTML report, as template data: verdict, summaries, the donut, bar and step
// charts (the timeline of the median step: timeline_view.h).
#pragma once

#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// Adds the dashboard's keys to `view`.
void add_dashboard(const ReportModel& report, TemplateData& view);

}  // namespace perfgate
