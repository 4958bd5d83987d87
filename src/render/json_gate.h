// The gate's part of the JSON report: verdict, findings, baseline.
#pragma once

#include "perfgate/report.h"
#include "render/json_writer.h"

namespace perfgate {

void write_gate(JsonWriter& j, const ReportModel& report);

}  // namespace perfgate
