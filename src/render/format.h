// Human formatting shared by the text renderers: durations, percentages, bytes, "n/a".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/report.h"

namespace perfgate {

std::string format_duration_us(std::optional<double> us);  // "177.59 ms", "n/a"
std::string format_pct(std::optional<double> pct);         // "55.5%", "n/a"
std::string format_bytes(std::uint64_t bytes);             // "1.1 MB"
std::string format_number(std::optional<double> v, int decimals = 2);
std::optional<double> metric_value(const std::vector<ReportMetric>& metrics, std::string_view name);

}  // namespace perfgate
