// Issue 14, item 5: the GPUs' idle time split by what the host threads that launch GPU work were
// doing meanwhile (HTA-style, per gap), and the idle rule's advice following the main cause.
#include <gtest/gtest.h>

#include <filesystem>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TimeNs cause(const std::array<TimeNs, kIdleCauses>& by, IdleCause c) {
  return by[static_cast<std::size_t>(c)];
}

// One step [0, 4020] us on thread 1; GPU activities A [100,200], B [2600,2700], C [3000,3100],
// D [3900,4000], E [4010,4020]. The idle stretches and what the thread did in each; work queued
// (a launch call returned, its kernel not started: A [51,100], C [2960,3000], D [3860,3900],
// E [3880,4010]) counts first (issue 53):
//   [0,100]      100: launch [50,51] 1, queued [51,100] 49, nothing [0,50] 50
//   [200,2600]  2400: DataLoader [300,2300] 2000, aten::to [2300,2500] 200, launch [2500,2600] 100,
//                     nothing [200,300] 100
//   [2700,3000]  300: launch [2950,2960] 10, queued [2960,3000] 40, nothing 250
//   [3100,3900]  800: cudaStreamSynchronize [3200,3800] 600, queued [3860,3900] 40, launch
//                     [3850,3860] 10 (the launch [3870,3880] is inside the queued time), nothing 150
//   [4000,4010]   10: under 30 us, a short gap
// Totals: queued 129, dataloader 2000, sync 600, launch 121, cpu op 200, nothing 550, short 10;
// 3610 in all.
std::string idle_causes_trace() {
  TraceBuilder t;
  t.step(1, 0, 4020);
  t.launch("A", 50, 100, 100);
  t.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 300, 2000);
  t.op("aten::to", 2300, 200);
  t.runtime("cudaLaunchKernel", 2500, 100, 2).kernel("B", 2600, 100, 2);
  t.runtime("cudaLaunchKernel", 2950, 10, 3).kernel("C", 3000, 100, 3);
  t.runtime("cudaStreamSynchronize", 3200, 600, 4);
  t.runtime("cudaLaunchKernel", 3850, 10, 5).kernel("D", 3900, 100, 5);
  t.runtime("cudaLaunchKernel", 3870, 10, 6).kernel("E", 4010, 10, 6);
  return t.json();
}

TEST(IdleCauses, EachGapIsSplitByWhatTheLaunchingThreadDid) {
  WorkerAnalysis w = analyse_json(idle_causes_trace());
  const auto& by = w.idle.by_cause;
  EXPECT_EQ(cause(by, IdleCause::DataLoader), 2000'000);
  EXPECT_EQ(cause(by, IdleCause::Sync), 600'000);
  EXPECT_EQ(cause(by, IdleCause::Launch), 121'000);
  EXPECT_EQ(cause(by, IdleCause::CpuOp), 200'000);
  EXPECT_EQ(cause(by, IdleCause::Unrecorded), 550'000);
  EXPECT_EQ(cause(by, IdleCause::Queued), 129'000);
  EXPECT_EQ(cause(by, IdleCause::ShortGap), 10'000);
  EXPECT_NEAR(*w.metrics.get(Metric::GpuIdleDataloaderPct), 100.0 * 2000 / 3610, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::GpuIdleShortGapsPct), 100.0 * 10 / 3610, 1e-9);
  // The gaps table: the two gaps of 500 us or more, longest first, each with its split.
  ASSERT_EQ(w.tables.gpu_gaps.size(), 2u);
  const GapRow& first = w.tables.gpu_gaps[0];
  EXPECT_EQ(first.duration, 2400'000);
  EXPECT_EQ(first.main_cause, IdleCause::DataLoader);
  EXPECT_EQ(cause(first.by_cause, IdleCause::CpuOp), 200'000);
  EXPECT_EQ(cause(first.by_cause, IdleCause::Unrecorded), 100'000);
  const GapRow& second = w.tables.gpu_gaps[1];
  EXPECT_EQ(second.duration, 800'000);
  EXPECT_EQ(second.main_cause, IdleCause::Sync);
  EXPECT_EQ(cause(second.by_cause, IdleCause::Launch), 10'000);
  EXPECT_EQ(cause(second.by_cause, IdleCause::Queued), 40'000);
}

// Issue 29, item 4: a run of several workers split its idle time by cause too (the run's sums
// dropped the split, so every cause read n/a and the advice fell back to "nothing recorded").
// Two copies of the trace above: the same shares, twice the time.
TEST(IdleCauses, ARunOfSeveralWorkersSumsTheirSplits) {
  std::string dir = temp_dir() + "/idle-causes-run";
  std::filesystem::create_directories(dir);
  write_text(dir + "/rank-0.json", idle_causes_trace());
  write_text(dir + "/rank-1.json", idle_causes_trace());
  RunAnalysis r = analyse_run(load_run({dir}), default_classification(), {});
  ASSERT_EQ(r.workers.size(), 2u);
  EXPECT_NEAR(*r.metrics.get(Metric::GpuIdleDataloaderPct), 100.0 * 2000 / 3610, 1e-9);
  EXPECT_NEAR(*r.metrics.get(Metric::GpuIdleSyncPct), 100.0 * 600 / 3610, 1e-9);
  EXPECT_NEAR(*r.metrics.get(Metric::GpuIdleUnrecordedPct), 100.0 * 550 / 3610, 1e-9);
}

TEST(IdleCauses, TheIdleRuleAdvisesOnTheMainCause) {
  ReportModel report = report_of_json(idle_causes_trace(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* idle = find_finding(report, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  ASSERT_EQ(idle->status, FindingStatus::Warn);
  EXPECT_NE(idle->recommendation.find("DataLoader num_workers"), std::string::npos) << idle->recommendation;
  EXPECT_NE(idle->problem.find("in the data loader 55.4%"), std::string::npos) << idle->problem;
  // The gaps table carries the split in every output.
  const ReportTable* gaps = find_table(report.workers.at(0).tables, "gpu_gaps");
  ASSERT_NE(gaps, nullptr);
  EXPECT_EQ(std::get<std::string>(*find_cell(*gaps, 0, "cause")), "dataloader");
  EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*gaps, 0, "dataloader_us")), 2000);
  // Launch-bound does not apply (5 kernels; launching explains 131 of the 3610 us).
  const ReportFinding* launch = find_finding(report, "kernels.launch-bound");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->status, FindingStatus::NotApplicable);
}

// Launch-bound: many back-to-back short kernels with 20 us gaps, each launched just before it runs.
TEST(IdleCauses, LaunchBoundFiresWhenLaunchingExplainsTheIdleTime) {
  TraceBuilder t;
  t.step(1, 0, 5000);
  for (int i = 0; i < 150; ++i) t.launch("tiny_kernel", 10 + 25.0 * i, 20 + 25.0 * i, 5);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* launch = find_finding(report, "kernels.launch-bound");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->status, FindingStatus::Warn) << launch->reason;
  const ReportFinding* idle = find_finding(report, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  // A device the trace does not name: its graphs in neutral words (CUDA graphs on NVIDIA, HIP on AMD).
  EXPECT_NE(idle->recommendation.find("capture the step with device graphs"), std::string::npos)
      << idle->recommendation;
}

// The same 150 short kernels, but a DataLoader op holds the thread in a 5 ms gap after them: the
// idle time is the DataLoader's, and the launch-bound rule stays silent.
TEST(IdleCauses, LaunchBoundIsSilentWhenTheIdleTimeIsSomethingElse) {
  TraceBuilder t;
  t.step(1, 0, 10000);
  for (int i = 0; i < 150; ++i) t.launch("tiny_kernel", 10 + 25.0 * i, 20 + 25.0 * i, 5);
  t.op("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 3800, 5000);
  t.launch("after_loading", 8810, 8820, 5);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* launch = find_finding(report, "kernels.launch-bound");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->status, FindingStatus::NotApplicable);
  const ReportFinding* idle = find_finding(report, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->recommendation.find("num_workers"), std::string::npos) << idle->recommendation;
}

}  // namespace
}  // namespace perfgate::testing
