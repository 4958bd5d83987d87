// The report's tables by name, with their columns: what a rule's `see:` and `offenders:` may name.
// The report stage declares the tables (src/report/*_tables.cpp, table_schemas() in
// perfgate/build_report.h); a build step (tools/table_schemas.cpp) writes their names into this
// stage's sources, so that the gate checks rule files against them without including the report
// stage, which puts the gate's findings into the model after the gate has run.
#pragma once

#include <span>
#include <string_view>

namespace perfgate {

struct TableSchema {
  std::string_view name;
  std::span<const std::string_view> columns;
};

// Every table of the report, in the report stage's order.
std::span<const TableSchema> report_table_schemas();

}  // namespace perfgate
