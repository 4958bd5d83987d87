// A report table as the data of templates/table.html.mustache: formatted cells, sort keys, and
// the first rows only.
#pragma once

#include <cstdint>

#include "perfgate/report.h"
#include "render/templates.h"

namespace perfgate {

// `collapse_over`: a table with more rows starts collapsed (its title stays visible).
TemplateData table_view(const ReportTable& table, std::size_t max_rows, const std::string& id,
                        std::size_t collapse_over = SIZE_MAX);

}  // namespace perfgate
