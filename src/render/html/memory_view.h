// The HTML page's memory section (the plugin's memory view): where the GPU allocator peaked and
// with which op, and the allocated and reserved totals over the window.
#pragma once

#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// Sets "memory" in the page's view when a worker has [memory] events.
void add_memory(const ReportModel& r, TemplateData& view);

// Sets "timeline_svg" and the live-at-peak side panel in `d` when worker `w` has a memory
// snapshot's memory_timeline table (memory_timeline_view.cpp).
void add_memory_timeline(const ReportWorker& w, TemplateData& d);

}  // namespace perfgate
