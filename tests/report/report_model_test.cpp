// The report model names what the analysis computes without including it (report_model/report.h is
// plain data): the names both use are declared once below both, and the gate's results arrive only
// through the report stage.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>

#include "analyse/analysis.h"
#include "common/metrics.h"
#include "render/render.h"
#include "report/build_report.h"
#include "report_model/report.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// The parts of the step-time splits are declared once, below the analysis and the report model
// (common/step_time_split.h): each part's name is its metrics' in the catalog,
// <split>.<name>_us and <split>.<name>_pct.
void expect_catalog_metrics(std::string_view split, std::span<const std::string_view> names) {
  for (std::string_view name : names)
    for (std::string_view unit : {"_us", "_pct"})
      EXPECT_TRUE(metric_id(std::string(split) + "." + std::string(name) + std::string(unit)).has_value())
          << split << "." << name << unit;
}

TEST(ReportModel, EachBreakdownPartNamesItsCatalogMetrics) {
  expect_catalog_metrics("breakdown", kBreakdownPartNames);
  EXPECT_STREQ(breakdown_part_name(BreakdownPart::CpuExec), "cpu_exec");
}

TEST(ReportModel, EachResourcePartNamesItsCatalogMetrics) {
  expect_catalog_metrics("resources", kResourcePartNames);
  EXPECT_STREQ(resource_part_name(ResourcePart::TensorCoreKernels), "tc_kernels");
}

// The rules read the report and return their findings; the model they read is left as it was, and
// the report stage puts what they returned into it.
TEST(ReportModel, TheRulesReadTheReportAndTheReportStageTakesTheirFindings) {
  TraceBuilder t;
  t.step(1, 0, 10'000).launch("volta_sgemm_128x64_nn", 100, 1'000, 8'000);
  ReportModel report = report_of_json(t.json(), default_book(), {});
  std::string before = render_json(report);
  GateOutcome outcome = evaluate_gate(default_rules(), report, nullptr, {});
  EXPECT_EQ(render_json(report), before);  // nothing written back
  ASSERT_FALSE(outcome.findings.empty());
  ASSERT_TRUE(report.findings.empty());
  add_gate(report, outcome.findings, outcome.rules, outcome.verdict);
  ASSERT_EQ(report.findings.size(), outcome.findings.size());
  EXPECT_EQ(report.findings.front().id, outcome.findings.front().id);
  // Every rule but the 10 of the Neuron family (gate/rules_for_run.cpp): a GPU trace does not list them.
  EXPECT_EQ(report.rules.size(), default_rules().rules.size() - 10);
  ASSERT_TRUE(report.verdict.has_value());
  EXPECT_EQ(report.verdict->exit_code, outcome.verdict.exit_code);
}

}  // namespace
}  // namespace perfgate::testing
