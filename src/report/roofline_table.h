// The roofline table (analyse/gpu/roofline.h's rows): each op by input dims and types against the GPU's
// ceilings, with the remedy that would bring it nearer.
#pragma once

#include <vector>

#include "analyse/gpu/gpu_results.h"
#include "perfgate/report.h"

namespace perfgate {

ReportTable roofline_table(const char* name, const char* title, const char* description,
                           const std::vector<RooflineRow>& rows);

}  // namespace perfgate
