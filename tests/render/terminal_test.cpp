#include <gtest/gtest.h>

#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string summary_of(const std::string& trace_json) {
  std::string path = write_text(temp_dir() + "/t.json", trace_json);
  LoadedRun run = load_run({path});
  RuleBook rules = load_rule_book({});
  RunAnalysis analysis = analyse_run(run, rules.knowledge, {});
  return render_terminal(build_report(report_inputs(run.inputs), analysis, rules.rules.sources, {}));
}

TEST(Terminal, SaysNotApplicableForACpuOnlyProfile) {
  std::string s = summary_of(TraceBuilder().step(1, 0, 100).op("aten::add", 10, 20).json());
  EXPECT_NE(s.find("no GPU activity: GPU metrics are not applicable"), std::string::npos) << s;
  EXPECT_NE(s.find("Tensor Core share of kernel time n/a"), std::string::npos) << s;
  EXPECT_EQ(s.find("0.0% · GPU busy"), std::string::npos) << s;
  EXPECT_NE(s.find("CPU exec 20.0%"), std::string::npos) << s;
}

TEST(Terminal, ShowsWindowStepsGpuAndDroppedSteps) {
  TraceBuilder t;
  t.step(1, 0, 1000).step(2, 1000, 1000).launch("k", 10, 20, 500);
  std::string s = summary_of(t.json());
  EXPECT_NE(s.find("1 steps (ProfilerStep#1 to ProfilerStep#1), 1.00 ms wall"), std::string::npos) << s;
  EXPECT_NE(s.find("GPU utilization 50.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("ProfilerStep#2: trailing step that launched no GPU work"), std::string::npos) << s;
}

ReportFinding finding(std::string id, FindingStatus status, std::string problem) {
  ReportFinding f;
  f.id = std::move(id);
  f.title = "T";
  f.status = status;
  f.problem = std::move(problem);
  return f;
}

// An inconclusive finding says so in a word. Its status column is as wide as the longest word shown
// ("INCONCLUSIVE", 12 letters), so ids and the lines under them stay aligned: 2 + 12 + 2 = 16 spaces.
TEST(Terminal, InconclusiveFindingsSayItInAWordAlignedWithTheOthers) {
  ReportModel r;
  r.findings = {finding("a.rule", FindingStatus::Warn, "warned"),
                finding("regression.step-time", FindingStatus::Inconclusive, "unsure")};
  std::string s = render_terminal(r);
  EXPECT_EQ(s.find("????"), std::string::npos) << s;
  EXPECT_NE(s.find("\n  WARN          a.rule: T\n                warned\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\n  INCONCLUSIVE  regression.step-time: T\n                unsure\n"), std::string::npos)
      << s;
  // Without an inconclusive finding the column keeps the width of FAIL and WARN.
  r.findings.pop_back();
  EXPECT_NE(render_terminal(r).find("\n  WARN  a.rule: T\n        warned\n"), std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
