// Issue 53, item 1: a host/GPU clock offset (or a queue that never drains) read as what it is: the
// least launch-to-start delay over the trace's GPU activities, idle over each GPU's span, and no
// idle finding that blames the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// One step [0, 200] us on the host. Three launch calls of 5 us at 0, 10, 20 (ending at 5, 15, 25);
// their kernels run at [150010, 150030], [150030, 150050], [150080, 150100]. Delays (kernel start
// minus call end): 150005, 150015, 150055 us -> least 150,005 us, median 150,015 us, far above the
// 1 ms bound. The step ends with its last kernel: window [0, 150100].
// GPU span in the window: [150010, 150100] = 90 us, busy 20 + 20 + 20 = 60 us, idle 30 us:
// 33.33% of the span (over the window: 1 - 60/150100 = 99.96%).
TraceBuilder offset_trace() {
  TraceBuilder t;
  t.step(1, 0, 200);
  t.runtime("cudaLaunchKernel", 0, 5, 1).kernel("k1", 150010, 20, 1);
  t.runtime("cudaLaunchKernel", 10, 5, 2).kernel("k2", 150030, 20, 2);
  t.runtime("cudaLaunchKernel", 20, 5, 3).kernel("k3", 150080, 20, 3);
  return t;
}

TEST(ClockOffset, TheLeastLaunchDelayOverTheBoundMeasuresIdleOverTheGpuSpan) {
  WorkerAnalysis w = analyse_json(offset_trace().json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuLaunchDelayMinUs), 150005);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuLaunchDelayMedianUs), 150015);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuClockOffset), 1);
  EXPECT_NEAR(*w.metrics.get(Metric::GpuIdlePct), 100.0 * 30 / 90, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::GpuUtilizationPct), 100.0 * 60 / 90, 1e-9);
  // No split by what the host did: its timeline does not line up with the GPU's.
  EXPECT_FALSE(w.metrics.get(Metric::GpuIdleUnrecordedPct));
  EXPECT_FALSE(w.metrics.get(Metric::GpuIdleHostWaitPct));
  EXPECT_FALSE(w.metrics.get(Metric::HostSyncIdlePct));
  // No blocking call waited for GPU work: the trace cannot tell which of the two it is.
  EXPECT_TRUE(has_line(w.warnings, "at least 150.005 ms after its launch call returned (median 150.015 ms)"));
  EXPECT_TRUE(has_line(w.warnings, "cannot tell clocks that disagree from a queue that never drained"));
}

TEST(ClockOffset, NoIdleFindingBlamesTheHost) {
  ReportModel report = report_of_json(offset_trace().json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* idle = find_finding(report, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->status, FindingStatus::NotApplicable);
  const ReportFinding* offset = find_finding(report, "gpu.idle-clock-offset");
  ASSERT_NE(offset, nullptr);
  EXPECT_EQ(offset->status, FindingStatus::Warn) << offset->reason;
  EXPECT_NE(offset->problem.find("idle 33.3% of their span"), std::string::npos) << offset->problem;
  EXPECT_EQ(offset->recommendation.find("DataLoader"), std::string::npos);
  EXPECT_EQ(offset->recommendation.find("garbage collection"), std::string::npos);
  for (const char* id : {"kernels.launch-bound", "host.sync-calls"}) {
    const ReportFinding* f = find_finding(report, id);
    ASSERT_NE(f, nullptr) << id;
    EXPECT_EQ(f->status, FindingStatus::NotApplicable) << id;
  }
}

// The same trace with a device synchronize [30, 150106]: it returns 6 us after the last kernel
// ended (150100), as it must where the clocks agree: the host ran ahead and the queue never drained.
TEST(ClockOffset, ADeviceSyncReturningAfterTheWorkSaysTheClocksAgree) {
  TraceBuilder t = offset_trace();
  t.runtime("cudaDeviceSynchronize", 30, 150076, 4);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuClockOffset), 1);
  EXPECT_TRUE(has_line(w.warnings,
                       "a blocking call returned 0.006 ms after the GPU work it waited for: the "
                       "clocks agree and the GPU's queue never drained"));
}

// A device synchronize [30, 230] that returns 149,870 us before the work launched before it ended
// (150100 - 230): it cannot have waited for it, so the two clocks disagree.
TEST(ClockOffset, ADeviceSyncReturningBeforeTheWorkSaysTheClocksDisagree) {
  TraceBuilder t = offset_trace();
  t.runtime("cudaDeviceSynchronize", 30, 200, 4);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_TRUE(has_line(w.warnings,
                       "a blocking call returned 149.870 ms before the GPU work it waited for "
                       "ended: the host's and the GPU's clocks disagree"));
}

// A normal trace: the kernels start 19 us after their calls return (launch at 0 for 1 us, kernel at
// 20). No offset: idle over the window as before, the host split kept, gpu.idle judged.
TEST(ClockOffset, ANormalTraceKeepsTheWindowAndTheHostSplit) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.launch("k", 0, 20, 100);
  t.launch("k", 500, 520, 100);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_DOUBLE_EQ(*report.metric(Metric::GpuLaunchDelayMinUs), 19);
  EXPECT_DOUBLE_EQ(*report.metric(Metric::GpuClockOffset), 0);
  EXPECT_NEAR(*report.metric(Metric::GpuIdlePct), 100.0 * (1000 - 200) / 1000, 1e-9);
  EXPECT_TRUE(report.metric(Metric::GpuIdleUnrecordedPct));
  const ReportFinding* idle = find_finding(report, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->status, FindingStatus::Warn);
  const ReportFinding* offset = find_finding(report, "gpu.idle-clock-offset");
  ASSERT_NE(offset, nullptr);
  EXPECT_EQ(offset->status, FindingStatus::NotApplicable);
}

// MBU and the breakdown under an offset are over the GPUs' span, not the window the offset stretches.
// A decode step [0, 200] us on an H100 SXM (3,350 GB/s): aten::add [100, 130] of two [4096, 4096]
// BF16 tensors launches a kernel (call [110, 111]) that runs [150011, 150111]; a second kernel
// launched from the step (call [150, 151]) runs [150131, 150151]. Least delay 149,900 us: an offset.
// Window [0, 150151] on the host's clock; GPU span [150011, 150151] = 140 us, busy 120, a 20-us gap:
// the step on the GPUs' clock, so the window's wall time is 140 us (issue 72).
// The add moves 3 x 4096^2 x 2 = 100,663,296 B = 30.0487 us at the bandwidth; the model covers
// 100 of the 120 us of kernel time (83%, over MBU's 50% bound). MBU = 30.0487 / 140 = 21.46% (over
// the window it was 30.0487 / 150151 = 0.02%). Breakdown over the span: kernel 120 of 140 us
// (85.71%), other 20 (14.29%); over the window, other was 99.92%.
TEST(ClockOffset, MbuAndTheBreakdownAreOverTheGpuSpan) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.annotation("step[DECODE bs=32]", 0, 200);
  t.op("aten::add", 100, 30, 2, 1,
       std::string(R"("Input Dims": [[4096, 4096], [4096, 4096], []], )") +
           R"("Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  t.launch("vectorized_elementwise_kernel", 110, 150011, 100, 2);
  t.launch("other_kernel", 150, 150131, 20);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_DOUBLE_EQ(*w.metrics.get(Metric::GpuClockOffset), 1);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 140);
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMbuPct), 100.0 * (100663296.0 / 3350e9) / 140e-6, 1e-6);
  EXPECT_NEAR(*w.metrics.get(Metric::BreakdownKernelPct), 100.0 * 120 / 140, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::BreakdownOtherPct), 100.0 * 20 / 140, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::BreakdownKernelUs), 120);
}

// Issue 72, item 3: under the offset every time figure is over one span, the GPUs' span of the
// window's steps. offset_trace(): the step's three kernels run [150010, 150100] = 90 us on the GPU's
// clock; the host's window is [0, 150100] = 150,100 us. Over 90 us: one step of 90 us, the window's
// wall 90 us; resources: other kernels 60 us (66.67%), nothing recorded 30 us (the gap [150050, 150080];
// the launch calls [0, 25] lie outside), summing to 90; the runtime calls' 15 us are 16.67% of the
// step (over the host's window: 0.01%, step 150,100 us).
TEST(ClockOffset, EveryTimeFigureIsOverTheGpuSpan) {
  WorkerAnalysis w = analyse_json(offset_trace().json());
  ASSERT_DOUBLE_EQ(*w.metrics.get(Metric::GpuClockOffset), 1);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMeanUs), 90);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 90);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesNonTcKernelsUs), 60);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesOtherUs), 30);
  EXPECT_NEAR(*w.metrics.get(Metric::ResourcesOtherPct), 100.0 * 30 / 90, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::HostRuntimePct), 100.0 * 15 / 90, 1e-9);
  EXPECT_LE(*w.metrics.get(Metric::CriticalPathCoveragePct), 100.0 + 1e-9);
  EXPECT_TRUE(has_line(w.warnings,
                       "over the GPUs' span of the window's steps (0.090 ms), not the host's "
                       "window (150.100 ms)"));
  // The report's step rows say the same.
  ReportModel report = report_of_json(offset_trace().json(), default_book());
  ASSERT_EQ(report.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(report.steps[0].duration_us, 90);
}

// The timeline is the step on the GPUs' clock, [150010, 150100]: its three kernels at 0, 20 and 70
// us of its 90 us, and no host lane (the host's calls at 0-25 us of the host's clock would sit
// 150 ms before them). On the host's clock it was 150,100 us long with the calls at its start.
TEST(ClockOffset, TheTimelineIsTheStepOnTheGpuClock) {
  WorkerAnalysis w = analyse_json(offset_trace().json());
  const Timeline& t = w.tables.timeline;
  EXPECT_TRUE(t.gpu_clock);
  EXPECT_EQ(t.step_start, 150010 * 1000);
  EXPECT_EQ(t.step_duration, 90 * 1000);
  ASSERT_EQ(t.boxes.size(), 3u);
  std::vector<TimeNs> starts;
  for (const TimelineBox& b : t.boxes) {
    EXPECT_GE(b.device, 0) << b.name;  // GPU lanes alone
    starts.push_back(b.start);
  }
  EXPECT_EQ(starts, (std::vector<TimeNs>{0, 20 * 1000, 70 * 1000}));
  // Without an offset the timeline keeps the host's lanes: a launch call on its runtime lane.
  TraceBuilder normal;
  normal.step(1, 0, 1000);
  normal.launch("k", 0, 20, 100);
  const Timeline& kept = analyse_json(normal.json()).tables.timeline;
  EXPECT_FALSE(kept.gpu_clock);
  EXPECT_TRUE(std::any_of(kept.boxes.begin(), kept.boxes.end(),
                          [](const TimelineBox& b) { return b.device == kRuntimeDevice; }));
}

// TFLOP/s and MFU over the same span: an H100 SXM (BF16 989.4 TFLOP/s), one step [0, 300] us whose
// aten::mm of two [4096, 4096] BF16 tensors (2 x 4096^3 = 137,438,953,472 FLOP) launches a GEMM
// (call [110, 111]) that runs [150011, 150211]; a second kernel (call [150, 151]) runs [150231,
// 150251]. GPU span 240 us: 572.66 TFLOP/s, MFU 57.88% = 572.66 / 989.4. Over the host's window
// (150,251 us) it was 0.915 TFLOP/s beside that MFU (withheld by the invariant).
TEST(ClockOffset, ThroughputAndMfuAreOverOneSpan) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.step(1, 0, 300);
  t.op("aten::mm", 100, 30, 2, 1,
       std::string(R"("Input Dims": [[4096, 4096], [4096, 4096]], )") +
           R"("Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
      "kernel__5x_cublas",
      110, 150011, 200, 2);
  t.launch("other_kernel", 150, 150231, 20);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_DOUBLE_EQ(*w.metrics.get(Metric::GpuClockOffset), 1);
  double flops = 2.0 * 4096 * 4096 * 4096;
  ASSERT_TRUE(w.metrics.get(Metric::ComputeTflopsAchieved));
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeTflopsAchieved), flops / 240e-6 / 1e12, 1e-6);
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMfuPct), 100.0 * flops / 989.4e12 / 240e-6, 1e-6);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMeanUs), 240);
  EXPECT_TRUE(w.invariants.empty());
}

// A run of two ranks, each under an offset: rank 0 is offset_trace (GPU span 90 us), rank 1 the
// same with its last kernel 30 us later ([150110, 150130]: span [150010, 150130] = 120 us). The
// run's step is its slowest rank's on the GPUs' clock, 120 us (on the host's, about 150,100 us),
// and the ranks' spread is (120 - 90) / median(90, 120) = 30 / 105 = 28.57%, rank 1 the slowest
// (on the host's clock 0.02%).
TEST(ClockOffset, ARunOfSeveralWorkersTakesEachWorkersStepsOnTheGpuClock) {
  std::string dir = temp_dir() + "/offset-ranks";
  std::filesystem::create_directories(dir);
  for (int rank = 0; rank < 2; ++rank) {
    TraceBuilder t;
    t.top_level("distributedInfo",
                fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": 2}})", rank));
    t.step(1, 0, 200);
    t.runtime("cudaLaunchKernel", 0, 5, 1).kernel("k1", 150010, 20, 1);
    t.runtime("cudaLaunchKernel", 10, 5, 2).kernel("k2", 150030, 20, 2);
    t.runtime("cudaLaunchKernel", 20, 5, 3).kernel("k3", rank == 0 ? 150080 : 150110, 20, 3);
    write_text(fmt::format("{}/rank-{}.json", dir, rank), t.json());
  }
  RunAnalysis run = analyse_run(load_run({dir}), default_classification(), {});
  ASSERT_EQ(run.workers.size(), 2u);
  ASSERT_DOUBLE_EQ(*run.metrics.get(Metric::GpuClockOffset), 2);
  EXPECT_DOUBLE_EQ(*run.metrics.get(Metric::StepsMeanUs), 120);
  EXPECT_NEAR(*run.metrics.get(Metric::RanksStepSpreadPct), 100.0 * 30 / 105, 1e-9);
  EXPECT_DOUBLE_EQ(*run.metrics.get(Metric::RanksSlowest), 1);
  // The report's step rows say the same.
  ReportModel report = report_of_files({dir}, default_book());
  ASSERT_EQ(report.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(report.steps[0].duration_us, 120);
}

}  // namespace
}  // namespace perfgate::testing
