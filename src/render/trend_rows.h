// The rows of a metric's trend tables (change points, outliers, the series), one builder for the
// HTML page and the Markdown: each text goes through `escape` (Markdown's; the identity where the
// template escapes it, as the HTML one does). A row also holds the whole commit (`…_full`, for a
// tooltip) and its direction's status class; a row without a direction has no `direction` key.
#pragma once

#include <string>
#include <string_view>

#include "render/templates.h"
#include "report_model/trend.h"

namespace perfgate {

using EscapeText = std::string (*)(std::string_view);
std::string unescaped(std::string_view text);

TemplateData trend_change_rows(const MetricTrend& metric, EscapeText escape);
TemplateData trend_outlier_rows(const MetricTrend& metric, EscapeText escape);
TemplateData trend_point_rows(const MetricTrend& metric, EscapeText escape);

}  // namespace perfgate
