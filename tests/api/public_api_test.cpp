// The public C++ API (include/perfgate/, docs/api.md): a request run as `perfgate analyze` runs it,
// its metrics by typed id on a hand-built trace with known answers, the same JSON report as the
// command line's, and errors with the command line's exit codes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "perfgate/engine.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

// Three steps of 100 us, each with a 50 us kernel: the median step 100 us, the GPU busy half of
// the window (300 us), so gpu.low-utilization (warn below 50%) passes at exactly 50%.
std::string half_busy_trace(const std::string& dir) {
  TraceBuilder t;
  for (int i = 0; i < 3; ++i) {
    t.step(i + 1, 100.0 * i, 100);
    t.launch("gemm_kernel", 100.0 * i + 10, 100.0 * i + 20, 50);
  }
  return t.write(dir + "/half_busy.pt.trace.json");
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const Finding& finding_named(const Report& report, std::string_view rule) {
  for (const Finding& f : report.findings())
    if (f.rule == rule) return f;
  throw std::runtime_error("no finding " + std::string(rule));
}

TEST(PublicApi, MetricsByTypedIdOnAKnownTrace) {
  AnalysisRequest request;
  request.profiles = {half_busy_trace(temp_dir())};
  Report report = analyze(request);
  ASSERT_TRUE(report.metric(Metric::StepsMedianUs));
  EXPECT_DOUBLE_EQ(*report.metric(Metric::StepsMedianUs), 100);
  EXPECT_DOUBLE_EQ(*report.metric(Metric::StepsCount), 3);
  EXPECT_NEAR(*report.metric(Metric::GpuUtilizationPct), 50, 1e-9);
  // A metric a GPU trace lacks (a Neuron device's) is empty, never 0.
  EXPECT_FALSE(report.metric(Metric::NeuronTotalTimeUs));
  const Finding& utilization = finding_named(report, "gpu.low-utilization");
  EXPECT_EQ(utilization.outcome, RuleOutcome::Pass);
  EXPECT_EQ(utilization.threshold, 50);
  EXPECT_FALSE(utilization.fired());
  EXPECT_EQ(metric_id("gpu.utilization_pct"), Metric::GpuUtilizationPct);
  EXPECT_EQ(metric_info(Metric::GpuUtilizationPct).unit, "%");
}

// A profile held in memory is read as its file is: the same metrics, named as given, with no file.
TEST(PublicApi, InMemoryProfileIsReadAsItsFile) {
  std::string path = half_busy_trace(temp_dir());
  AnalysisRequest request;
  request.in_memory_profiles = {{"held.pt.trace.json", file_text(path)}};
  Report report = analyze(request);
  EXPECT_DOUBLE_EQ(*report.metric(Metric::StepsMedianUs), 100);
  EXPECT_DOUBLE_EQ(*report.metric(Metric::StepsCount), 3);
  EXPECT_NEAR(*report.metric(Metric::GpuUtilizationPct), 50, 1e-9);
  EXPECT_NE(report.json().find("\"held.pt.trace.json\""), std::string::npos);
  // Two of one name are refused as the request's field, with the usage exit code.
  request.in_memory_profiles.push_back(request.in_memory_profiles[0]);
  try {
    analyze(request);
    FAIL() << "two profiles of one name, run";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "in_memory_profiles: two profiles given as bytes are named 'held.pt.trace.json'");
    EXPECT_EQ(e.exit_code(), 2);
  }
}

// The window by time, as --time-start gives it: the steps that lie wholly after 100 us are the last two.
TEST(PublicApi, WindowByTimeKeepsTheStepsInside) {
  AnalysisRequest request;
  request.profiles = {half_busy_trace(temp_dir())};
  request.time_start_us = 100;
  Report report = analyze(request);
  EXPECT_DOUBLE_EQ(*report.metric(Metric::StepsCount), 2);
  EXPECT_DOUBLE_EQ(*report.metric(Metric::StepsMedianUs), 100);
}

// The verdict follows the findings, and the exit code the command line gives follows the request's
// --fail-on: a setting that makes the utilization rule fire fails the gate with --fail-on warning.
TEST(PublicApi, VerdictAndExitCodeFollowFailOn) {
  AnalysisRequest request;
  request.profiles = {half_busy_trace(temp_dir())};
  request.settings = {"gpu.low-utilization.warn=60"};
  Report warned = analyze(request);
  EXPECT_EQ(finding_named(warned, "gpu.low-utilization").outcome, RuleOutcome::Warn);
  EXPECT_TRUE(finding_named(warned, "gpu.low-utilization").fired());
  EXPECT_EQ(warned.verdict(), Verdict::Warn);
  EXPECT_EQ(warned.exit_code(), 0);
  request.warnings_exit_code = 10;
  EXPECT_EQ(analyze(request).exit_code(), 10);
  // --fail-on warning fails the gate on the same findings: the verdict is still what they say.
  request.fail_on = "warning";
  Report failed = analyze(request);
  EXPECT_EQ(failed.verdict(), Verdict::Warn);
  EXPECT_EQ(failed.exit_code(), 1);
  request.disabled_rules = {"gpu.low-utilization"};
  EXPECT_THROW(finding_named(analyze(request), "gpu.low-utilization"), std::runtime_error);
}

// The same bytes as `perfgate analyze --json` (and the same verdict), from the same file.
TEST(PublicApi, JsonReportIsTheCommandLines) {
  std::string dir = temp_dir();
  std::string trace = half_busy_trace(dir);
  CommandResult cli = run_perfgate("analyze -q --json " + dir + "/cli.json " + trace);
  ASSERT_EQ(cli.exit_code, 0) << cli.out;
  AnalysisRequest request;
  request.profiles = {trace};
  Report report = analyze(request);
  EXPECT_EQ(report.json(), file_text(dir + "/cli.json"));
  EXPECT_NE(report.summary().find("GPU utilization"), std::string::npos);
  EXPECT_NE(report.markdown().find("GPU utilization"), std::string::npos);
  EXPECT_FALSE(report.capture().empty());
}

TEST(PublicApi, ErrorsCarryTheCommandLinesExitCodes) {
  auto error_of = [](const AnalysisRequest& request) {
    try {
      analyze(request);
    } catch (const Error& e) {
      return std::pair<int, std::string>(e.exit_code(), e.what());
    }
    return std::pair<int, std::string>(-1, "");
  };
  std::string dir = temp_dir();
  AnalysisRequest missing;
  missing.profiles = {dir + "/no_such.pt.trace.json"};
  auto [code, message] = error_of(missing);
  EXPECT_EQ(code, 3);
  EXPECT_NE(message.find("no_such.pt.trace.json"), std::string::npos) << message;

  AnalysisRequest none;
  EXPECT_EQ(error_of(none).first, 2);

  AnalysisRequest bad_fail_on;
  bad_fail_on.profiles = {half_busy_trace(dir)};
  bad_fail_on.fail_on = "sometimes";
  auto [fail_on_code, fail_on_message] = error_of(bad_fail_on);
  EXPECT_EQ(fail_on_code, 2);
  EXPECT_NE(fail_on_message.find("sometimes"), std::string::npos) << fail_on_message;

  AnalysisRequest bad_workload = bad_fail_on;
  bad_workload.fail_on = "error";
  bad_workload.workload = "gaming";
  EXPECT_EQ(error_of(bad_workload).first, 2);

  AnalysisRequest bad_window = bad_workload;
  bad_window.workload = "";
  bad_window.iter_start = 3;
  bad_window.iter_stop = 2;
  EXPECT_EQ(error_of(bad_window).first, 2);

  AnalysisRequest bad_memory = bad_window;
  bad_memory.iter_start.reset();
  bad_memory.iter_stop.reset();
  bad_memory.device_memory = "lots";
  auto [memory_code, memory_message] = error_of(bad_memory);
  EXPECT_EQ(memory_code, 2);
  EXPECT_EQ(memory_message,
            "device_memory lots: not a size of device memory (e.g. 80G, 141G or a number of bytes)");

  AnalysisRequest no_runs = bad_memory;
  no_runs.device_memory = "";
  no_runs.baseline_runs = 0;
  EXPECT_EQ(error_of(no_runs),
            std::make_pair(2, std::string("baseline_runs 0: out of range (1 to 1000000)")));

  // Each value is checked as the command line's parser checks its flag, named as the request names it.
  AnalysisRequest bad_code = bad_memory;
  bad_code.device_memory = "";
  bad_code.warnings_exit_code = 300;
  EXPECT_EQ(error_of(bad_code),
            std::make_pair(2, std::string("warnings_exit_code 300: out of range (0 to 255)")));
  AnalysisRequest many_rules = bad_memory;
  many_rules.device_memory = "";
  many_rules.rule_files.assign(17, "default");
  EXPECT_EQ(error_of(many_rules), std::make_pair(2, std::string("rule_files: at most 16 (17 given)")));
  AnalysisRequest bad_time = bad_memory;
  bad_time.device_memory = "";
  bad_time.time_start_us = 1e300;
  EXPECT_EQ(error_of(bad_time),
            std::make_pair(
                2, std::string("time_start_us 1e+300: not a time of the trace's clock in microseconds")));

  AnalysisRequest bad_setting = bad_window;
  bad_setting.iter_start.reset();
  bad_setting.iter_stop.reset();
  bad_setting.settings = {"gpu.no-such-rule.warn=1"};
  EXPECT_EQ(error_of(bad_setting).first, 2);
}

}  // namespace
}  // namespace perfgate::testing
