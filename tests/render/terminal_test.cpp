#include <gtest/gtest.h>

#include "perfgate/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string summary_of(const std::string& trace_json) {
  std::string path = write_text(temp_dir() + "/t.json", trace_json);
  LoadedRun run = load_run({path});
  RuleSet rules = load_rules({});
  RunAnalysis analysis = analyse_run(run, rules.classification, {});
  return render_terminal(build_report(run.inputs, analysis, rules, {}));
}

TEST(Terminal, SaysNotApplicableForACpuOnlyProfile) {
  std::string s = summary_of(TraceBuilder().step(1, 0, 100).op("aten::add", 10, 20).json());
  EXPECT_NE(s.find("no GPU activity: GPU metrics are not applicable"), std::string::npos) << s;
  EXPECT_NE(s.find("TC kernel time n/a"), std::string::npos) << s;
  EXPECT_EQ(s.find("0.0% · busy"), std::string::npos) << s;
  EXPECT_NE(s.find("cpu_exec 20.0%"), std::string::npos) << s;
}

TEST(Terminal, ShowsWindowStepsGpuAndDroppedSteps) {
  TraceBuilder t;
  t.step(1, 0, 1000).step(2, 1000, 1000).launch("k", 10, 20, 500);
  std::string s = summary_of(t.json());
  EXPECT_NE(s.find("1 steps (ProfilerStep#1 to ProfilerStep#1), 1.00 ms wall"), std::string::npos) << s;
  EXPECT_NE(s.find("utilization 50.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("ProfilerStep#2: trailing step that launched no GPU work"), std::string::npos) << s;
}

}  // namespace
}  // namespace perfgate::testing
