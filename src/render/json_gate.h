// The gate's part of the JSON report: verdict, findings, baseline.
#pragma once

#include "render/json_writer.h"
#include "report_model/report.h"

namespace perfgate {

void write_gate(JsonWriter& j, const ReportModel& report);

}  // namespace perfgate
