// A report table as the data of templates/table.html.mustache: formatted cells, sort keys, and
// the first rows only.
#pragma once

#include "perfgate/report.h"
#include "render/templates.h"

namespace perfgate {

TemplateData table_view(const ReportTable& table, std::size_t max_rows, const std::string& id);

}  // namespace perfgate
