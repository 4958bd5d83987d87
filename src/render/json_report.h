// The JSON report as the HTML page embeds it (render/render.h writes the file).
#pragma once

#include <string>

#include "report_model/report.h"

namespace perfgate {

// The JSON report with each worker's "metrics" left empty ({}): the HTML page's summary of the run
// carries the workers' names and windows, and the page never reads their metrics.
std::string render_json_without_worker_metrics(const ReportModel& report);

}  // namespace perfgate
