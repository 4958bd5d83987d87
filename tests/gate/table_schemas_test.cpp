// The gate checks a rule's `see:` and `offenders:` against the report's tables as they are declared
// (common/table_catalog.def), without including the report stage: every declared table and every
// one of its columns is accepted, and nothing else.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/tables.h"
#include "gate/rules.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// A rule that points at `table` and sorts, labels and shows its rows by `sort`, `label` and `show`.
std::string rule_on(const std::string& id, std::string_view table, std::string_view sort,
                    std::string_view label, std::string_view show) {
  return fmt::format(
      "  - id: {}\n    title: t\n    metric: gpu.idle_pct\n    better: lower\n    warn: 3\n    see: [{}]\n"
      "    offenders: {{table: {}, sort: {}, label: \"{}\", show: {}}}\n",
      id, table, table, sort, label, show);
}

std::string load_error(const std::string& rules) {
  std::string path = write_text(temp_dir() + "/rules.yaml", "rules:\n" + rules);
  try {
    (void)load_rule_book({path});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TableSchemas, TheGateKnowsEveryDeclaredTableAndColumn) {
  std::string rules;
  for (const TableInfo& t : table_catalog())
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      rules += rule_on(fmt::format("t.t{}-{}", table_position(t.id), c), t.name, t.columns[c].name,
                       t.columns[c].name, t.columns[c].name);
  EXPECT_EQ(load_error(rules), "");
  // Not an empty list: the report has some fifty tables and five hundred columns.
  EXPECT_GT(table_catalog().size(), 50u);
  // `ranks` is a run's workers or its Neuron profiles: the columns of both.
  EXPECT_EQ(load_error(rule_on("r.gpu", "ranks", "mean_step_us", "worker", "gpu_utilization_pct") +
                       rule_on("r.neuron", "ranks", "total_time_us", "worker", "mfu_pct")),
            "");
}

TEST(TableSchemas, TheGateNamesTheNearestTableOrColumn) {
  std::string e = load_error(rule_on("a.rule", "ops", "device_slef_us", "name", "calls") +
                             rule_on("b.rule", "gpu_gap", "duration_us", "device", "duration_us"));
  EXPECT_NE(e.find("rule 'a.rule': table 'ops' has no column 'device_slef_us' ('sort'), did you mean "
                   "'device_self_us'?"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("rule 'b.rule': unknown table 'gpu_gap' in 'see', did you mean 'gpu_gaps'?"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("rule 'b.rule': unknown table 'gpu_gap' in 'offenders', did you mean 'gpu_gaps'?"),
            std::string::npos)
      << e;
  // A column of another table is none of this one's.
  EXPECT_NE(load_error(rule_on("c.rule", "kernels", "device_self_us", "name", "calls"))
                .find("table 'kernels' has no column 'device_self_us' ('sort')"),
            std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
