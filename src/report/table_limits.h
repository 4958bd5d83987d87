// Row limits of the report's name-keyed tables (ops, kernels, regions, ...): a trace with 200,000
// distinct op names made a 299 MB JSON report. Beyond the limit a table keeps its rows with the
// most time and one "(N more)" row holding the totals of the rest, in every output.
#pragma once

#include <cstddef>
#include <string_view>

#include "perfgate/report.h"

namespace perfgate {

inline constexpr std::size_t kDefaultMaxTableRows = 5000;

// The limit for the reports built from now on (`--max-rows N`).
void set_max_table_rows(std::size_t rows);
std::size_t max_table_rows();

// Keeps the `max_rows` rows with the most time (the table's first time column of those it is
// ordered by) and replaces the others with one "(N more)" row: additive columns (times that are
// totals, counts, bytes, FLOPs) hold their sum, the others are empty.
void limit_table_rows(ReportTable& table, std::size_t max_rows);

// True for the label of a "(N more)" row: it is no op, kernel or region, and baselines skip it.
bool is_more_rows_label(std::string_view name);

}  // namespace perfgate
