// The HTML page's roofline chart of a worker (XProf's roofline tool): its roofline table's ops as
// points under the GPU's memory slope and compute ceilings, with what the ceilings are.
#pragma once

#include <string>

#include "report_model/report.h"

namespace perfgate {

// The chart and its caption as HTML, or "" when no op of the worker has a roofline (the caption
// alone then says why, from the worker's roofline note).
std::string roofline_figure(const ReportWorker& worker);

}  // namespace perfgate
