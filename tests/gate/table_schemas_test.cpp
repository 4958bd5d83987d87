// The gate checks a rule's `see:` and `offenders:` against the report's tables without including
// the report stage: a build step copies their names (src/gate/table_schemas.h). The copy must be
// the report stage's tables, every one, in order, with every column.
#include <gtest/gtest.h>

#include <span>

#include "gate/table_schemas.h"
#include "perfgate/build_report.h"

namespace perfgate::testing {
namespace {

TEST(TableSchemas, TheGateKnowsEveryTableAndColumnOfTheReport) {
  const std::vector<ReportTable>& report = table_schemas();
  std::span<const TableSchema> gate = report_table_schemas();
  ASSERT_EQ(gate.size(), report.size());
  for (std::size_t t = 0; t < report.size(); ++t) {
    EXPECT_EQ(gate[t].name, report[t].name) << t;
    ASSERT_EQ(gate[t].columns.size(), report[t].columns.size()) << report[t].name;
    for (std::size_t c = 0; c < report[t].columns.size(); ++c)
      EXPECT_EQ(gate[t].columns[c], report[t].columns[c].name) << report[t].name << " column " << c;
  }
  // Not two empty lists: the report has some forty tables.
  EXPECT_GT(report.size(), 30u);
}

}  // namespace
}  // namespace perfgate::testing
