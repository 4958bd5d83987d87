// Compiled as a renderer's source is (perfgate_render's include paths), reading a column that the
// table "ops" does not declare: it must not compile (TableCatalog.AnUndeclaredColumnFailsToCompile).
#include "report_model/report.h"

namespace perfgate {

const ReportCell* table_probe_misspelt_column(const ReportTable& ops) {
  return find_cell(ops, 0, table_column(Table::Ops, "device_slef_us"));
}

}  // namespace perfgate
