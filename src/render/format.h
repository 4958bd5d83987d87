// Helpers of the text renderers: values by unit (perfgate/units.h) and metric look-up.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "perfgate/report.h"
#include "perfgate/units.h"

namespace perfgate {

std::optional<double> metric_value(const std::vector<ReportMetric>& metrics, std::string_view name);

}  // namespace perfgate
