// The gate from the command line: exit codes 0/1/2/3, --fail-on, --warnings-exit-code, --set,
// --disable, --baseline, `perfgate rules`, and the report written before the exit.
#include <gtest/gtest.h>

#include <filesystem>

#include <boost/json/parse.hpp>

#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string trace_file(const TrainingRun& run) {
  return write_text(temp_dir() + "/run.pt.trace.json", training_trace(run));
}

TrainingRun healthy() {
  TrainingRun run;
  run.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  return run;
}

TrainingRun with_dataloader() {
  TrainingRun run = healthy();
  run.dataloader_us = 1000;  // dataloader.bottleneck warns
  return run;
}

TEST(GateCli, WarningsPassUnlessAskedOtherwise) {
  std::string trace = trace_file(with_dataloader());
  CommandResult plain = run_perfgate("analyze " + trace + " --no-color");
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_TRUE(contains(plain.out, "WARN  dataloader.bottleneck")) << plain.out;
  EXPECT_TRUE(contains(plain.out, "Verdict      PASS with warnings (exit 0")) << plain.out;
  EXPECT_EQ(run_perfgate("analyze " + trace + " -q --warnings-exit-code 78").exit_code, 78);
  EXPECT_EQ(run_perfgate("analyze " + trace + " -q --fail-on warning").exit_code, 1);
  EXPECT_EQ(
      run_perfgate("analyze " + trace + " -q --fail-on warning --disable dataloader.bottleneck").exit_code,
      0);
  EXPECT_EQ(run_perfgate("analyze " + trace + " -q --set dataloader.bottleneck.fail=8").exit_code, 1);
  EXPECT_EQ(
      run_perfgate("analyze " + trace + " -q --set dataloader.bottleneck.fail=8 --fail-on never").exit_code,
      0);
  EXPECT_EQ(run_perfgate("analyze " + trace_file(healthy()) + " -q --warnings-exit-code 78").exit_code, 0);
}

TEST(GateCli, AFailingGateStillWritesItsReport) {
  std::string trace = trace_file(with_dataloader());
  std::string json = temp_dir() + "/report.json";
  CommandResult r =
      run_perfgate("analyze " + trace + " -q --set dataloader.bottleneck.fail=8 --json " + json);
  EXPECT_EQ(r.exit_code, 1);
  boost::json::value report = boost::json::parse(read_text(json));
  const auto& verdict = report.at("verdict").as_object();
  EXPECT_EQ(verdict.at("status").as_string(), "fail");
  EXPECT_EQ(verdict.at("exit_code").as_int64(), 1);
  bool found = false;
  for (const auto& f : report.at("findings").as_array()) {
    if (f.at("id").as_string() != "dataloader.bottleneck") continue;
    found = true;
    EXPECT_EQ(f.at("status").as_string(), "fail");
    EXPECT_EQ(f.at("threshold").to_number<double>(), 8);
    EXPECT_GT(f.at("value").to_number<double>(), 8);
    EXPECT_TRUE(contains(std::string(f.at("problem").as_string()), "in the data loader"));
  }
  EXPECT_TRUE(found);
}

TEST(GateCli, BaselineReportOrProfile) {
  std::string base = trace_file(healthy());
  std::string base_json = temp_dir() + "/base.json";
  ASSERT_EQ(run_perfgate("analyze " + base + " -q --json " + base_json).exit_code, 0);
  CommandResult same = run_perfgate("analyze " + base + " --no-color --baseline " + base_json);
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_TRUE(contains(same.out, "Baseline     " + base_json + " (report, 8 steps)")) << same.out;
  EXPECT_TRUE(contains(same.out, "Verdict      PASS (exit 0")) << same.out;

  TrainingRun slow = healthy();
  for (double& e : slow.extra_us) e += 2000;
  std::string slower = trace_file(slow);
  CommandResult regressed = run_perfgate("analyze " + slower + " --no-color --baseline " + base_json);
  EXPECT_EQ(regressed.exit_code, 1) << regressed.out;
  EXPECT_TRUE(contains(regressed.out, "FAIL  regression.step-time")) << regressed.out;
  // A profile as the baseline is analysed the same way.
  EXPECT_EQ(run_perfgate("analyze " + slower + " -q --baseline " + base).exit_code, 1);
}

// Issue 76, item 9: a baseline passed through a temporary file (the Python API's in-memory Report)
// is named as the caller says in every report, not by a path that is gone after the run.
TEST(GateCli, BaselineNameNamesTheBaselineInTheReports) {
  std::string base = trace_file(healthy());
  std::string base_json = temp_dir() + "/named_base.json";
  ASSERT_EQ(run_perfgate("analyze " + base + " -q --json " + base_json).exit_code, 0);
  std::string md = temp_dir() + "/named.md", json = temp_dir() + "/named.json";
  CommandResult named = run_perfgate("analyze " + base + " --no-color --baseline " + base_json +
                                     " --baseline-name 'the main run' --md " + md + " --json " + json);
  EXPECT_EQ(named.exit_code, 0) << named.out;
  EXPECT_TRUE(contains(named.out, "Baseline     the main run (report, 8 steps)")) << named.out;
  EXPECT_FALSE(contains(named.out, base_json)) << named.out;
  EXPECT_TRUE(contains(read_text(md), "compared with `the main run`")) << read_text(md);
  boost::json::value report = boost::json::parse(read_text(json));
  EXPECT_EQ(report.at("baseline").at("path").as_string(), "the main run");
}

TEST(GateCli, BadBaselinesExitThree) {
  std::string trace = trace_file(healthy());
  CommandResult missing = run_perfgate("analyze " + trace + " --baseline /no/such/report.json");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(contains(missing.out, "baseline: /no/such/report.json")) << missing.out;
  std::string truncated =
      write_text(temp_dir() + "/cut.json", R"({"schema": "perfgate-report/1", "metrics": {)");
  CommandResult cut = run_perfgate("analyze " + trace + " --baseline " + truncated);
  EXPECT_EQ(cut.exit_code, 3);
  EXPECT_TRUE(contains(cut.out, "invalid JSON at byte 44")) << cut.out;
  std::string future = write_text(temp_dir() + "/v9.json", R"({"schema": "perfgate-report/9"})");
  CommandResult other = run_perfgate("analyze " + trace + " --baseline " + future);
  EXPECT_EQ(other.exit_code, 3);
  EXPECT_TRUE(contains(other.out, "schema 'perfgate-report/9' is not one this perfgate reads")) << other.out;
}

TEST(GateCli, RuleOverridesAndRuleCommands) {
  std::string trace = trace_file(healthy());
  CommandResult bad_set = run_perfgate("analyze " + trace + " --set gpu.idle.warn=abc");
  EXPECT_EQ(bad_set.exit_code, 2);
  EXPECT_TRUE(contains(bad_set.out, "'warn' must be a finite number")) << bad_set.out;
  CommandResult bare = run_perfgate("analyze " + trace + " --set regression.step-time.fail=10");
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_TRUE(contains(bare.out,
                       "--set regression.step-time.fail=10: error: rule 'regression.step-time': "
                       "'fail: 10': a change against the baseline needs a unit: '+10%' (relative "
                       "to the baseline) or '+10 ms' (also ns, us, s)"))
      << bare.out;
  EXPECT_EQ(run_perfgate("analyze " + trace + " --disable no.such.rule").exit_code, 2);
  EXPECT_EQ(run_perfgate("analyze " + trace + " --fail-on sometimes").exit_code, 2);

  CommandResult effective = run_perfgate("analyze --print-effective-rules --set gpu.idle.warn=25");
  EXPECT_EQ(effective.exit_code, 0);
  EXPECT_TRUE(contains(effective.out, "extends: none")) << effective.out;
  std::string saved = write_text(temp_dir() + "/effective.yaml", effective.out);
  CommandResult check = run_perfgate("rules check " + saved);
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_TRUE(contains(check.out, "ok (59 rules, 59 enabled")) << check.out;  // rules/default.yaml's ids

  std::string broken = write_text(temp_dir() + "/broken.yaml", "rules:\n  - id: x\n    titel: t\n");
  CommandResult bad = run_perfgate("rules check " + saved + " " + broken);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(
      contains(bad.out, "broken.yaml:3:5: error: unknown key 'titel' in 'rule', did you mean 'title'?"))
      << bad.out;
  CommandResult list = run_perfgate("rules list --disable steps.outliers");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_TRUE(contains(list.out, "regression.step-time")) << list.out;
  EXPECT_TRUE(contains(list.out, "disabled")) << list.out;
}

// docs/rules.md ends with the generated list of default rules (ci/update-docs.sh writes it).
TEST(GateCli, TheRulesDocumentationIsCurrent) {
  CommandResult list = run_perfgate("rules list --format markdown");
  ASSERT_EQ(list.exit_code, 0);
  std::string doc = read_text(std::string(PERFGATE_SOURCE_DIR) + "/docs/rules.md");
  EXPECT_TRUE(doc.ends_with(list.out)) << "run ci/update-docs.sh";
}

// A rule whose advice depends on the evidence lists every piece of it with its condition, and the
// plain recommendation as what applies otherwise (the documentation showed only the last).
TEST(GateCli, TheRulesDocumentationListsConditionalAdvice) {
  CommandResult list = run_perfgate("rules list --format markdown");
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_TRUE(contains(list.out, "- **Recommendation** when `tensor_core.non_tc_layout_pct >= max("))
      << list.out;
  EXPECT_TRUE(contains(list.out, "`: The convolution library transposes NCHW tensors")) << list.out;
  // Advice worded for some captures names them; a plain recommendation is what the others get.
  EXPECT_TRUE(contains(
      list.out, "- **Recommendation** when `1` (frameworks: pytorch): Profile with record_shapes=True"))
      << list.out;
  EXPECT_TRUE(contains(list.out, "- **Recommendation** otherwise: Record these ops' input types"))
      << list.out;
  EXPECT_TRUE(
      contains(list.out,
               "- **Recommendation** when `1` (frameworks: pytorch; workloads: training, offline-inference): "
               "Set num_workers on the DataLoader"))
      << list.out;
}

}  // namespace
}  // namespace perfgate::testing
