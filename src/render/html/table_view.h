// A report table as the data of templates/table.html.mustache: formatted cells, sort keys, and
// the first rows only.
#pragma once

#include <cstdint>
#include <optional>

#include "perfgate/report.h"
#include "render/templates.h"

namespace perfgate {

// `collapse_over`: a table with more rows starts collapsed (its title stays visible).
// `window_start_us`: the worker's window start, from which trace-clock columns are shown.
TemplateData table_view(const ReportTable& table, std::size_t max_rows, const std::string& id,
                        std::size_t collapse_over = SIZE_MAX, std::optional<double> window_start_us = {});

}  // namespace perfgate
