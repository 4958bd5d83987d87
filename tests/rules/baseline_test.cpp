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

// Two steps of 5 ms, each starting with the DataLoader as a user_annotation (PyTorch 2.x: not an op,
// so not in the op table) of `loader_us`, then a 100 us kernel.
std::string loader_trace(double loader_us) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  for (int i = 0; i < 2; ++i) {
    double s = 5000.0 * i;
    t.step(i + 1, s, 5000);
    t.annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s + 10, loader_us);
    t.launch("k", s + loader_us + 20, s + loader_us + 30, 100);
  }
  return t.json();
}

const std::vector<ReportCell>* row_named(const ReportTable& t, std::string_view name) {
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    if (const auto* n = find_cell(t, r, "name"); n && std::get<std::string>(*n) == name) return &t.rows[r];
  return nullptr;
}

// The DataLoader grew from 1000 to 3000 us per step (2 steps each: 2000 and 6000 us in all). Read
// back from the baseline's JSON report, the region_deltas table has it: +2000 us per step.
TEST(Baseline, RegionsAreComparedPerStep) {
  ReportModel before = report_of_json(loader_trace(1000), default_rules());
  std::string path = write_text(temp_dir() + "/before.json", render_json(before));
  Baseline base = read_baseline_report(path);
  ASSERT_EQ(base.regions.size(), 1u);
  EXPECT_NEAR(base.regions[0].cpu_us, 2000, 1e-6);
  ReportModel after = report_of_json(loader_trace(3000), default_rules());
  apply_gate(after, default_rules(), &base, {});
  const ReportTable* regions = find_table(after.tables, "region_deltas");
  ASSERT_TRUE(regions);
  const auto* loader = row_named(*regions, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  ASSERT_TRUE(loader);
  auto cell = [&](std::string_view column) {
    for (std::size_t c = 0; c < regions->columns.size(); ++c)
      if (regions->columns[c].name == column) return (*loader)[c];
    return ReportCell{};
  };
  EXPECT_EQ(std::get<std::string>(cell("change")), "regression");
  EXPECT_NEAR(std::get<double>(cell("baseline_cpu_us_per_step")), 1000, 1e-6);
  EXPECT_NEAR(std::get<double>(cell("cpu_us_per_step")), 3000, 1e-6);
  EXPECT_NEAR(std::get<double>(cell("delta_cpu_us_per_step")), 2000, 1e-6);
  EXPECT_NEAR(std::get<double>(cell("calls_per_step")), 1, 1e-9);
  // Every measure of every delta table says it is per step, in its name and its description.
  for (const char* name : {"op_deltas", "region_deltas", "kernel_deltas"}) {
    const ReportTable* t = find_table(after.tables, name);
    ASSERT_TRUE(t) << name;
    for (const ReportColumn& c : t->columns) {
      if (c.name == "name" || c.name == "change") continue;
      EXPECT_TRUE(c.name.ends_with("_per_step")) << name << ": " << c.name;
      EXPECT_NE(c.description.find("per step"), std::string::npos) << name << ": " << c.description;
    }
  }
}

}  // namespace
}  // namespace perfgate::testing
