// The report model names what the analysis computes without including it (perfgate/report.h is
// plain data): its names must be the analysis' own, and the gate's results arrive only through the
// report stage.
#include <gtest/gtest.h>

#include "perfgate/analysis.h"
#include "perfgate/build_report.h"
#include "perfgate/render.h"
#include "perfgate/report.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TEST(ReportModel, NamesTheBreakdownPartsAsTheAnalysisDoes) {
  ASSERT_EQ(kReportBreakdownParts, kBreakdownParts);
  for (std::size_t i = 0; i < kBreakdownParts; ++i)
    EXPECT_EQ(kReportBreakdownNames[i], breakdown_part_name(static_cast<BreakdownPart>(i))) << i;
}

TEST(ReportModel, NamesTheResourcePartsAsTheAnalysisDoes) {
  ASSERT_EQ(kReportResourceParts, kResourceParts);
  for (std::size_t i = 0; i < kResourceParts; ++i)
    EXPECT_EQ(kReportResourceNames[i], resource_part_name(static_cast<ResourcePart>(i))) << i;
}

// The rules read the report and return their findings; the model they read is left as it was, and
// the report stage puts what they returned into it.
TEST(ReportModel, TheRulesReadTheReportAndTheReportStageTakesTheirFindings) {
  TraceBuilder t;
  t.step(1, 0, 10'000).launch("volta_sgemm_128x64_nn", 100, 1'000, 8'000);
  ReportModel report = report_of_json(t.json(), default_rules(), {});
  std::string before = render_json(report);
  GateOutcome outcome = evaluate_gate(default_rules(), report, nullptr, {});
  EXPECT_EQ(render_json(report), before);  // nothing written back
  ASSERT_FALSE(outcome.findings.empty());
  ASSERT_TRUE(report.findings.empty());
  add_gate(report, outcome.findings, outcome.rules, outcome.verdict);
  ASSERT_EQ(report.findings.size(), outcome.findings.size());
  EXPECT_EQ(report.findings.front().id, outcome.findings.front().id);
  // Every rule but the 10 of the Neuron family (device_family.cpp): a GPU trace does not list them.
  EXPECT_EQ(report.rules.size(), default_rules().rules.size() - 10);
  ASSERT_TRUE(report.verdict.has_value());
  EXPECT_EQ(report.verdict->exit_code, outcome.verdict.exit_code);
}

}  // namespace
}  // namespace perfgate::testing
