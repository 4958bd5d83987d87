// JSON reports of schema version 1 (written before issue #30's item 6) stay readable as baselines and
// as history imports: read, they are the baseline of the version 2 report of the same run. The two
// reports in tests/data are of the bundled example (tests/data/README.md says how they were made).
// Version 2.1 adds the run's device families, which a report read back keeps; the older versions
// state none, and read as before.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <boost/json/parse.hpp>

#include "baseline/baseline.h"
#include "common/errors.h"
#include "gate/gate.h"
#include "history/history.h"
#include "neuron/neuron_fixture.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

std::string data_file(const std::string& name) {
  return std::string(PERFGATE_SOURCE_DIR) + "/tests/data/" + name;
}

const std::string kVersion1 = data_file("report_v1_small_training.json.gz");
const std::string kVersion2 = data_file("report_v2_small_training.json.gz");

std::string schema_of(const std::string& path) {
  return std::string(boost::json::parse(read_gzip(path)).at("schema").as_string());
}

void expect_same_rows(const std::vector<BaselineRow>& a, const std::vector<BaselineRow>& b,
                      const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name) << what << " " << i;
    EXPECT_EQ(a[i].gpu_us, b[i].gpu_us) << what << " " << a[i].name;
    EXPECT_EQ(a[i].cpu_us, b[i].cpu_us) << what << " " << a[i].name;
    EXPECT_EQ(a[i].calls, b[i].calls) << what << " " << a[i].name;
  }
}

void expect_same_baseline(const Baseline& v1, const Baseline& v2) {
  EXPECT_EQ(v1.info.tool_version, v2.info.tool_version);
  EXPECT_EQ(v1.info.gpu_names, v2.info.gpu_names);
  EXPECT_EQ(v1.gpu_counts, v2.gpu_counts);
  EXPECT_EQ(v1.info.steps, v2.info.steps);
  EXPECT_EQ(v1.step_durations_us, v2.step_durations_us);
  for (std::size_t i = 0; i < kMetricCount; ++i) EXPECT_EQ(v1.metrics.at(i), v2.metrics.at(i)) << i;
  ASSERT_EQ(v1.info.inputs.size(), v2.info.inputs.size());
  for (std::size_t i = 0; i < v1.info.inputs.size(); ++i) {
    EXPECT_EQ(v1.info.inputs[i].path, v2.info.inputs[i].path);
    EXPECT_EQ(v1.info.inputs[i].worker, v2.info.inputs[i].worker);
    EXPECT_EQ(v1.info.inputs[i].format, v2.info.inputs[i].format);
    EXPECT_EQ(v1.info.inputs[i].bytes, v2.info.inputs[i].bytes);
  }
  expect_same_rows(v1.ops, v2.ops, "ops");
  expect_same_rows(v1.regions, v2.regions, "regions");
  expect_same_rows(v1.kernels, v2.kernels, "kernels");
}

// The report of `report` written as JSON and read back as a baseline.
Baseline read_back(const ReportModel& report) {
  return read_baseline_report(write_text(temp_dir() + "/report.json", render_json(report)));
}

TEST(ReportVersions, AReportReadBackKeepsItsDeviceFamilies) {
  TraceBuilder gpu, host;
  gpu.step(1, 0, 10'000).launch("volta_sgemm_128x64_nn", 100, 1'000, 8'000);
  host.step(1, 0, 10'000).op("aten::add", 100, 1'000);
  ReportModel neuron = report_of_json(neuron_full_json(), default_book());
  ASSERT_TRUE(neuron.families.only(DeviceFamily::Neuron));
  EXPECT_TRUE(read_back(neuron).families.only(DeviceFamily::Neuron));
  EXPECT_TRUE(read_back(report_of_json(gpu.json(), default_book())).families.only(DeviceFamily::Gpu));
  EXPECT_TRUE(read_back(report_of_json(host.json(), default_book())).families.only(DeviceFamily::CpuOnly));
  ReportModel mixed;
  mixed.tool_version = "9.9";
  mixed.families.add(DeviceFamily::Neuron);
  mixed.families.add(DeviceFamily::CpuOnly);
  EXPECT_EQ(read_back(mixed).families, mixed.families);
  // A history import of the file keeps them too.
  std::string path = write_text(temp_dir() + "/neuron.json", render_json(neuron));
  EXPECT_TRUE(history_run_of_report_file(path, {}).data.families.only(DeviceFamily::Neuron));
  // The Neuron run's own baseline is told apart without its neuron.* values.
  for (std::size_t i = 0; i < kMetricCount; ++i) neuron.metrics.set_at(i, std::nullopt);
  EXPECT_TRUE(read_back(neuron).families.only(DeviceFamily::Neuron));
}

// Versions 1 and 2 state no families: read, they are not known (and nothing else changes, above).
TEST(ReportVersions, OlderVersionsStateNoFamilies) {
  EXPECT_TRUE(read_baseline_report(kVersion1).families.empty());
  EXPECT_TRUE(read_baseline_report(kVersion2).families.empty());
  EXPECT_TRUE(history_run_of_report_file(kVersion2, {}).data.families.empty());
}

std::string read_error(const std::string& text) {
  try {
    read_baseline_report(write_text(temp_dir() + "/r.json", text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "read";
}

// A minor version adds fields: 2.1 and a later perfgate's 2.N read; other majors and forms are refused.
// A family name this perfgate does not know (a later one's) is not kept; a malformed list is refused.
TEST(ReportVersions, MinorVersionsOfTwoReadAndFamiliesAreChecked) {
  auto report = [](const std::string& schema, const std::string& families) {
    return fmt::format(R"({{"schema": "{}", "tool": {{"name": "perfgate", "version": "9.9"}}, "inputs": [],
                            {} "gpus": [], "metrics": {{}}, "steps": [], "workers": []}})",
                       schema, families.empty() ? "" : "\"families\": " + families + ",");
  };
  for (const char* schema : {"perfgate-report/2.1", "perfgate-report/2.17", "perfgate-report/2"})
    EXPECT_EQ(read_error(report(schema, "[]")), "read") << schema;
  for (const char* schema : {"perfgate-report/3", "perfgate-report/2.", "perfgate-report/2.x",
                             "perfgate-report/21", "perfgate-report/1.1", "perfgate-report/2.1.0"})
    EXPECT_TRUE(read_error(report(schema, ""))
                    .find(fmt::format("schema '{}' is not one this perfgate reads", schema)) !=
                std::string::npos)
        << schema;
  std::string path =
      write_text(temp_dir() + "/later.json", report("perfgate-report/2.4", R"(["tpu", "neuron"])"));
  EXPECT_TRUE(read_baseline_report(path).families.only(DeviceFamily::Neuron));
  for (const char* bad : {R"("gpu")", R"([1])", R"(["gpu", null])", R"({"gpu": true})", "null"})
    EXPECT_TRUE(read_error(report("perfgate-report/2.1", bad))
                    .find("'families' must be an array of device family "
                          "names") != std::string::npos)
        << bad;
}

TEST(ReportVersions, AVersionOneReportIsTheBaselineOfItsVersionTwoReport) {
  ASSERT_EQ(schema_of(kVersion1), "perfgate-report/1");
  ASSERT_EQ(schema_of(kVersion2), "perfgate-report/2");
  ASSERT_TRUE(is_report_file(kVersion1));
  Baseline v1 = read_baseline_report(kVersion1);
  Baseline v2 = read_baseline_report(kVersion2);
  // What the example is (the trace's own numbers): one A100, 8 window steps, ops, kernels.
  EXPECT_EQ(v1.info.gpu_names, std::vector<std::string>{"NVIDIA A100-SXM4-40GB"});
  EXPECT_EQ(v1.gpu_counts, (std::vector<std::pair<std::string, int>>{{"NVIDIA A100-SXM4-40GB", 1}}));
  EXPECT_EQ(v1.info.steps, 8u);
  EXPECT_FALSE(v1.ops.empty());
  EXPECT_FALSE(v1.kernels.empty());
  expect_same_baseline(v1, v2);
}

// A run gated against either report: the same findings, the same verdict.
TEST(ReportVersions, BothVersionsGateARunAlike) {
  Baseline v1 = read_baseline_report(kVersion1);
  Baseline v2 = read_baseline_report(kVersion2);
  TrainingRun run;
  run.dataloader_us = 2000;
  ReportModel against_v1 = report_of_json(training_trace(run), default_book());
  ReportModel against_v2 = against_v1;
  apply_gate(against_v1, default_rules(), &v1, {});
  apply_gate(against_v2, default_rules(), &v2, {});
  ASSERT_TRUE(against_v1.verdict && against_v2.verdict);
  EXPECT_EQ(against_v1.verdict->status, against_v2.verdict->status);
  EXPECT_EQ(against_v1.verdict->exit_code, against_v2.verdict->exit_code);
  ASSERT_EQ(against_v1.findings.size(), against_v2.findings.size());
  std::size_t compared = 0;
  for (std::size_t i = 0; i < against_v1.findings.size(); ++i) {
    const ReportFinding &a = against_v1.findings[i], &b = against_v2.findings[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.status, b.status) << a.id;
    EXPECT_EQ(a.value, b.value) << a.id;
    EXPECT_EQ(a.baseline, b.baseline) << a.id;
    EXPECT_EQ(a.problem, b.problem) << a.id;
    if (a.id.starts_with("regression.") && a.status != FindingStatus::Skipped) ++compared;
  }
  EXPECT_GT(compared, 3u) << "the baseline rules compared the run with the reports";
  EXPECT_EQ(against_v1.warnings, against_v2.warnings);
}

// history import reads a report as --baseline does: a version 1 file is the same run.
TEST(ReportVersions, HistoryImportsBothVersionsAlike) {
  HistoryRun v1 = history_run_of_report_file(kVersion1, {});
  HistoryRun v2 = history_run_of_report_file(kVersion2, {});
  ASSERT_EQ(v1.gpus.size(), 1u);
  EXPECT_EQ(v1.gpus[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(v1.gpus[0].count, 1);
  ASSERT_EQ(v2.gpus.size(), 1u);
  EXPECT_EQ(v2.gpus[0].name, v1.gpus[0].name);
  EXPECT_EQ(v2.gpus[0].count, v1.gpus[0].count);
  expect_same_baseline(v1.data, v2.data);
}

}  // namespace
}  // namespace perfgate::testing
