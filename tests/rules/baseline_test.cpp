// Baselines: a JSON report read back equals the model it was written from; detection of reports;
// the warning when the baseline ran on other GPUs.
#include <gtest/gtest.h>

#include "perfgate/baseline.h"
#include "perfgate/errors.h"
#include "perfgate/gate.h"
#include "perfgate/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

ReportModel healthy_report() {
  TrainingRun run;
  run.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  run.memory_peak_pct = 60;
  return report_of_json(training_trace(run), default_rules());
}

TEST(Baseline, AJsonReportReadsBackAsTheModel) {
  ReportModel report = healthy_report();
  std::string path = write_text(temp_dir() + "/report.json", render_json(report));
  ASSERT_TRUE(is_report_file(path));
  Baseline read = read_baseline_report(path);
  Baseline direct = baseline_from_report(report, path, "report");
  EXPECT_EQ(read.info.kind, "report");
  EXPECT_EQ(read.info.gpu_names, direct.info.gpu_names);
  EXPECT_EQ(read.info.gpu_names, std::vector<std::string>{"NVIDIA A100-SXM4-40GB"});
  EXPECT_EQ(read.info.steps, 8u);
  EXPECT_EQ(read.info.inputs.size(), 1u);
  EXPECT_EQ(read.info.inputs[0].format, InputFormat::KinetoJson);
  ASSERT_EQ(read.step_durations_us.size(), direct.step_durations_us.size());
  for (std::size_t i = 0; i < read.step_durations_us.size(); ++i)
    EXPECT_NEAR(read.step_durations_us[i], direct.step_durations_us[i], 1e-3);
  ASSERT_EQ(read.metrics.size(), direct.metrics.size());
  for (std::size_t i = 0; i < read.metrics.size(); ++i) {
    EXPECT_EQ(read.metrics[i].first, direct.metrics[i].first);
    EXPECT_EQ(read.metrics[i].second.has_value(), direct.metrics[i].second.has_value())
        << read.metrics[i].first;
    if (read.metrics[i].second) {
      double expected = *direct.metrics[i].second;
      EXPECT_NEAR(*read.metrics[i].second, expected, 1e-6 * std::max(1.0, std::abs(expected)))
          << read.metrics[i].first;
    }
  }
  ASSERT_EQ(read.ops.size(), direct.ops.size());
  for (std::size_t i = 0; i < read.ops.size(); ++i) {
    EXPECT_EQ(read.ops[i].name, direct.ops[i].name);
    EXPECT_NEAR(read.ops[i].gpu_us, direct.ops[i].gpu_us, 1e-3);
    EXPECT_EQ(read.ops[i].calls, direct.ops[i].calls);
  }
  EXPECT_EQ(read.kernels.size(), direct.kernels.size());
}

TEST(Baseline, GzipReportsAndTracesAreToldApart) {
  ReportModel report = healthy_report();
  std::string gz = write_gzip(temp_dir() + "/report.json.gz", render_json(report));
  EXPECT_TRUE(is_report_file(gz));
  EXPECT_EQ(read_baseline_report(gz).info.steps, 8u);
  std::string trace = write_text(temp_dir() + "/t.json", training_trace(TrainingRun{}));
  EXPECT_FALSE(is_report_file(trace));
  EXPECT_FALSE(is_report_file(temp_dir()));
}

TEST(Baseline, WrongFieldsNameTheFileAndTheField) {
  auto error = [](const std::string& text) {
    std::string path = write_text(temp_dir() + "/bad.json", text);
    try {
      read_baseline_report(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("[1, 2]").find("bad.json: not a usable perfgate report: the top level must be an object"),
            std::string::npos);
  EXPECT_NE(error(R"({"schema": "x"})").find("no 'schema'"), std::string::npos);
  std::string steps =
      R"({"schema": "perfgate-report/1", "inputs": [], "gpus": [], "metrics": {}, "steps": [{}]})";
  EXPECT_NE(error(steps).find("a step needs a numeric 'duration_us'"), std::string::npos);
  std::string metric = R"({"schema": "perfgate-report/1", "inputs": [], "gpus": [], "metrics": {"a": "b"}})";
  EXPECT_NE(error(metric).find("metric 'a' must be a number or null"), std::string::npos);
}

TEST(Baseline, OtherHardwareIsNoted) {
  ReportModel report = healthy_report();
  Baseline base = baseline_from_report(report, "b.json", "report");
  base.info.gpu_names = {"Tesla V100-SXM2-16GB"};
  apply_gate(report, default_rules(), &base, {});
  ASSERT_TRUE(report.baseline);
  EXPECT_TRUE(report.baseline->hardware_differs);
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_NE(report.warnings.back().find("the baseline ran on other GPUs (Tesla V100-SXM2-16GB) than this run "
                                        "(NVIDIA A100-SXM4-40GB)"),
            std::string::npos)
      << report.warnings.back();
}

}  // namespace
}  // namespace perfgate::testing
