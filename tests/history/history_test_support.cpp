#include "history/history_test_support.h"

#include <algorithm>

namespace perfgate::testing {

HistoryRun sample_run(const std::string& branch, const std::string& gpu, int gpus) {
  HistoryRun run;
  run.time = "2026-11-22T10:38:11Z";
  run.labels.branch = branch;
  run.labels.commit = "0123456789abcdef0123456789abcdef01234567";
  run.labels.labels = {
      {"ci", "github-actions"}, {"github.run_id", "4242"}, {"note", "it's a \"test\"? yes; µs"}};
  run.gpus = {{gpu, gpus}};
  Baseline& d = run.data;
  d.info.kind = "history";
  d.info.tool_version = "0.1.0";
  d.info.inputs = {{"/runs/a/worker0.pt.trace.json.gz", 123456789012, "kineto-json.gz", "worker0", {}},
                   {"/runs/a/report.nsys.sqlite", 42, "nsys-sqlite", "rank 1", {}}};
  d.info.gpu_names = {gpu};
  d.gpu_counts = {{gpu, gpus}};
  d.families.add(DeviceFamily::Gpu);
  d.metrics.set(Metric::GpuUtilizationPct, 0.1 + 0.2);
  d.metrics.set(Metric::MemoryPeakAllocatedBytes, 1.2345678901234567e15);
  d.metrics.set(Metric::StepsMedianUs, 9000.123456789012);
  d.metrics.set(Metric::ComputeTflopsAchieved, 1e-300);  // the rest: not applicable (NULL)
  d.step_durations_us = {9000.5, 9001.25, 8999.875, 1.0 / 3.0};
  d.info.steps = d.step_durations_us.size();
  std::string long_kernel =
      "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<" + std::string(5000, 'x') + ">>";
  d.ops = {{"aten::mm", 6000.5, 120.25, 8}, {"aten::add_ ? 'quoted'", 3000, 40.5, 16}};
  d.kernels = {{long_kernel, 6000.5, 0, 8}, {"elementwise_kernel<µ>", 3000.125, 0, 16}};
  return run;
}

void expect_same_run(const HistoryRun& got, const HistoryRun& want, bool with_tables) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.time, want.time);
  EXPECT_EQ(got.labels.branch, want.labels.branch);
  EXPECT_EQ(got.labels.commit, want.labels.commit);
  EXPECT_EQ(got.labels.labels, want.labels.labels);
  ASSERT_EQ(got.gpus.size(), want.gpus.size());
  for (std::size_t i = 0; i < got.gpus.size(); ++i) {
    EXPECT_EQ(got.gpus[i].name, want.gpus[i].name);
    EXPECT_EQ(got.gpus[i].count, want.gpus[i].count);
  }
  EXPECT_EQ(got.data.info.kind, "history");
  EXPECT_EQ(got.data.info.tool_version, want.data.info.tool_version);
  EXPECT_EQ(got.data.info.gpu_names, want.data.info.gpu_names);
  EXPECT_EQ(got.data.gpu_counts, want.data.gpu_counts);
  EXPECT_EQ(got.data.families, want.data.families);
  for (std::size_t i = 0; i < kMetricCount; ++i)  // exact: doubles round-trip
    EXPECT_EQ(got.data.metrics.at(i), want.data.metrics.at(i)) << metric_catalog()[i].name;
  if (!with_tables) {
    EXPECT_TRUE(got.data.step_durations_us.empty());
    EXPECT_TRUE(got.data.ops.empty());
    EXPECT_TRUE(got.data.kernels.empty());
    EXPECT_TRUE(got.data.info.inputs.empty());
    return;
  }
  EXPECT_EQ(got.data.step_durations_us, want.data.step_durations_us);
  EXPECT_EQ(got.data.info.steps, want.data.step_durations_us.size());
  ASSERT_EQ(got.data.info.inputs.size(), want.data.info.inputs.size());
  for (std::size_t i = 0; i < got.data.info.inputs.size(); ++i) {
    const ReportInput &g = got.data.info.inputs[i], &w = want.data.info.inputs[i];
    EXPECT_EQ(g.path, w.path);
    EXPECT_EQ(g.bytes, w.bytes);
    EXPECT_EQ(g.format, w.format);
    EXPECT_EQ(g.worker, w.worker);
  }
  auto same_rows = [](const std::vector<BaselineRow>& a, const std::vector<BaselineRow>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_EQ(a[i].gpu_us, b[i].gpu_us);
      EXPECT_EQ(a[i].cpu_us, b[i].cpu_us);
      EXPECT_EQ(a[i].calls, b[i].calls);
    }
  };
  same_rows(got.data.ops, want.data.ops);
  same_rows(got.data.kernels, want.data.kernels);
  ASSERT_EQ(got.data.path_profile.has_value(), want.data.path_profile.has_value());
  if (!want.data.path_profile) return;
  const PathProfile &g = *got.data.path_profile, &w = *want.data.path_profile;
  EXPECT_EQ(g.steps, w.steps);
  EXPECT_EQ(g.length_us_per_step, w.length_us_per_step);
  ASSERT_EQ(g.ops.size(), w.ops.size());
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    EXPECT_EQ(g.ops[i].name, w.ops[i].name);
    EXPECT_EQ(g.ops[i].bound, w.ops[i].bound);
    EXPECT_EQ(g.ops[i].us_per_step, w.ops[i].us_per_step);
  }
}

}  // namespace perfgate::testing
