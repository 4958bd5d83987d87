// The workbook's native charts beside their tables (issue 76): the roofline (each op's achieved
// TFLOP/s against its arithmetic intensity, log-log), the step breakdown (mean time a step per part)
// and the critical path (each step's path by what bounds it). A chart reads its table's cells on
// the sheet, so it draws what the sheet holds and a reader can change the cells it plots.
#pragma once

#include <cstddef>

#include "render/xlsx/workbook.h"

namespace perfgate {

// A table as a sheet holds it: `rows` of its rows from sheet row 1 (the first worker's, where the
// sheet holds several), its columns from `first_column` (1 after a worker column).
struct SheetTable {
  const ReportTable* table = nullptr;
  lxw_worksheet* ws = nullptr;
  std::size_t rows = 0;
  std::size_t first_column = 0;
};

// Adds the chart of the table, to the right of it, where the table is one of those above and has
// a row to draw; nothing otherwise.
void add_table_chart(Workbook& wb, const SheetTable& t);

}  // namespace perfgate
