// The roofline table (analyse/gpu/roofline.h's rows): each op by input dims and types against the GPU's
// ceilings, with the remedy that would bring it nearer.
#pragma once

#include <vector>

#include "analyse/gpu/gpu_results.h"
#include "report_model/report.h"

namespace perfgate {

// `table`: the worker's (Table::Roofline) or the run's (Table::RunRoofline), which have the same columns.
ReportTable roofline_table(Table table, const std::vector<RooflineRow>& rows);

}  // namespace perfgate
