// The page's plots of its tables (issue 76): what a reader would rather see drawn than read in rows
// (the top kernels and ops, the critical path per step, GPU gaps by cause, per-rank communication
// and stragglers, memory live at the peak by category, what the step time grew by). Each is drawn
// from the report model's table as it is, its first rows only: bounded for a run of any size.
#pragma once

#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// Sets `plots` (a list of title, svg, legend, caption) for the dashboard: one per table the run has
// rows in.
void add_plots(const ReportModel& r, TemplateData& view);

// What the step time grew by against the baseline, as `step_growth_chart` (title, svg, caption);
// nothing without a baseline's rows. Where the gate worked out the critical path's changes, also
// `path_waterfall_chart`: the step along the critical path as a waterfall.
void add_step_growth_chart(const ReportModel& r, TemplateData& view);

}  // namespace perfgate
