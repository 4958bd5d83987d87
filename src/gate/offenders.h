// The rows of a report table that a finding lists: filtered by an expression over the row's
// numeric and true/false cells, largest first, labelled by a column.
#pragma once

#include <vector>

#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

// Rows of every worker's table of that name (labels prefixed with the worker when there are
// several), or of the run's table.
std::vector<ReportOffender> find_offenders(const OffenderQuery& query, const ReportModel& report);

// The columns of a label: "op, input_shapes" -> {"op", "input_shapes"}.
std::vector<std::string> label_columns(std::string_view label);

// "aten::conv2d (12.3 ms), aten::mm (4.5 ms)", or "none".
std::string offenders_text(const std::vector<ReportOffender>& offenders);

}  // namespace perfgate
