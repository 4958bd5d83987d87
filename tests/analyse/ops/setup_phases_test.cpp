// Issue 89, items 3, 4 and 6: set-up, teardown and the profiler as phases of the window; the idle
// time in runtime calls that launch nothing apart from "launching"; the profiler's own stop named
// as the profiler's, with no gain; a first copy far longer than its name's median as set-up; a copy
// between host and device given the transfer's remedy, never fusion.
#include <gtest/gtest.h>

#include <string>

#include "gate/gate.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

constexpr const char* kA100 = "NVIDIA A100-SXM4-80GB";

const ReportFinding& fired(const ReportModel& report, const char* id) {
  const ReportFinding* f = find_finding(report, id);
  EXPECT_NE(f, nullptr) << id;
  static const ReportFinding kNone;
  return f ? *f : kNone;
}

// One step [0, 1,000,000] us. The first aten::addmm [100, 715,400] holds a cudaFree [200, 715,200]
// (715 ms: the context's set-up, as a PyTorch linear-layer trace's); then 100 launches at 716,000
// + 2,800 i (1 us calls) of 2,000 us kernels 100 us later. The GPU is idle 800,000 us (1,000,000 -
// 100 x 2,000), 715,000 of it in the cudaFree: set-up, in no cause of the idle time.
TraceBuilder first_free_trace() {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 1'000'000);
  t.op("aten::addmm", 100, 715'300, 1);
  t.runtime("cudaFree", 200, 715'000, 9001, 1);
  for (int i = 0; i < 100; ++i) {
    double at = 716'000 + 2'800.0 * i;
    t.launch("ampere_sgemm_128x64_nn", at, at + 100, 2'000);
  }
  return t;
}

TEST(SetupPhases, AFirstCudaFreeIsSetUpNotLaunching) {
  ReportModel report = report_of_json(first_free_trace().json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NEAR(*report.metric(Metric::HostWarmupUs), 715'000, 1e-6);
  // 715,000 of the 1,000,000 us step.
  EXPECT_NEAR(*report.metric(Metric::HostSetupTeardownPct), 71.5, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::HostProfilerPct), 0, 1e-9);
  EXPECT_LT(*report.metric(Metric::GpuIdleLaunchPct), 1.0);
  EXPECT_LT(*report.metric(Metric::GpuIdleRuntimeOtherPct), 1.0);
  const ReportFinding& one_off = fired(report, "host.warmup-one-offs");
  EXPECT_EQ(one_off.status, FindingStatus::Warn);
  ASSERT_TRUE(one_off.gain_pct);
  EXPECT_NEAR(*one_off.gain_pct, 71.5, 1e-9);
  EXPECT_NE(one_off.recommendation.find("--skip-first"), std::string::npos) << one_off.recommendation;
  const ReportFinding& idle = fired(report, "gpu.idle");
  EXPECT_NE(idle.recommendation.find("Most of the window is one-offs"), std::string::npos)
      << idle.recommendation;
}

// The phases the capture profile reads: window 1,000,000 us, set-up 715,000, steady 285,000.
TEST(SetupPhases, TheWorkerHoldsItsPhases) {
  WorkerAnalysis w = analyse_json(first_free_trace().json());
  const CapturePhases& p = w.capture.phases;
  ASSERT_TRUE(p.window_us && p.setup_us && p.teardown_us && p.profiler_us && p.steady_us);
  EXPECT_NEAR(*p.window_us, 1'000'000, 1e-6);
  EXPECT_NEAR(*p.setup_us, 715'000, 1e-6);
  EXPECT_NEAR(*p.teardown_us, 0, 1e-6);
  EXPECT_NEAR(*p.profiler_us, 0, 1e-6);
  EXPECT_NEAR(*p.steady_us, 285'000, 1e-6);
  EXPECT_EQ(p.evidence, "the first call of cudaFree took 715.0 ms, 0.2 ms into the window");
}

// One step [0, 100,000] us: a first cudaMalloc [10, 20] (set-up), then 10 iterations at 1,000 +
// 9,000 i: a cudaMalloc of 5,000 us (not a first call: the steady state's), a cudaLaunchKernel of
// 1 us at its end and a 3,000 us kernel 100 us after the call. Kernels [6,100 + 9,000 i, +3,000]:
// idle 70,000 us. Of it: the first cudaMalloc 10 (set aside), in cudaMalloc 10 x 5,000 = 50,000, in
// launches 10 x 1 = 10, queued 10 x 99 = 990, nothing recorded 10 + 980 + 9 x 900 + 9,900 =
// 19,000; by cause 69,990 in all. In other runtime calls 50,000 / 69,990 = 71.439%, launching
// 10 / 69,990 = 0.0143% (it was all 71.45% "launching").
TEST(SetupPhases, IdleInAllocationsIsNotLaunching) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 100'000);
  t.runtime("cudaMalloc", 10, 10, 9000);
  for (int i = 0; i < 10; ++i) {
    double at = 1'000 + 9'000.0 * i;
    t.runtime("cudaMalloc", at, 5'000, 9001 + i);
    t.launch("ampere_sgemm_128x64_nn", at + 5'000, at + 5'100, 3'000);
  }
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NEAR(*report.metric(Metric::GpuIdleRuntimeOtherPct), 100.0 * 50'000 / 69'990, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::GpuIdleLaunchPct), 100.0 * 10 / 69'990, 1e-9);
  const ReportFinding& idle = fired(report, "gpu.idle");
  EXPECT_NE(idle.recommendation.find("runtime calls that launch no work"), std::string::npos)
      << idle.recommendation;
  EXPECT_EQ(idle.recommendation.find("capture the step with CUDA graphs"), std::string::npos)
      << idle.recommendation;
}

// One step [0, 60,000] us: 10 launches at 100 + 1,000 i queue 10 kernels of 5,000 us back to back
// from 1,000 (busy [1,000, 51,000]); torch.profiler's stop_trace [10,000, 51,500] holds a
// cudaDeviceSynchronize [10,100, 51,050] that waits for them. The profiler's stop is 41,500 us =
// 69.1667% of the step: the profiler's, no warm-up, and no gain (no later window or warm-up
// iteration removes it); the program's one-offs are 0.
TEST(SetupPhases, TheProfilersStopIsNotWarmUpAndStatesNoGain) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 60'000);
  for (int i = 0; i < 10; ++i)
    t.launch("ampere_sgemm_128x64_nn", 100 + 1'000.0 * i, 1'000 + 5'000.0 * i, 5'000);
  t.python_function("torch/profiler/profiler.py(235): stop_trace", 10'000, 41'500);
  t.runtime("cudaDeviceSynchronize", 10'100, 40'950, 9000);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NEAR(*report.metric(Metric::HostProfilerPct), 100.0 * 41'500 / 60'000, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::HostWarmupPct), 100.0 * 41'500 / 60'000, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::HostSetupTeardownPct), 0, 1e-9);
  const ReportFinding& warmup = fired(report, "host.warmup-one-offs");
  EXPECT_EQ(warmup.status, FindingStatus::Pass);
  EXPECT_FALSE(warmup.gain_pct && *warmup.gain_pct > 0);
  const ReportFinding& profiler = fired(report, "host.profiler-in-window");
  EXPECT_EQ(profiler.status, FindingStatus::Warn);
  EXPECT_FALSE(profiler.gain_pct);
  EXPECT_NE(profiler.problem.find("the profiler's time, not the program's"), std::string::npos)
      << profiler.problem;
  EXPECT_EQ(profiler.recommendation.find("run a warm-up iteration"), std::string::npos);
  // No finding states a gain above the program's one-offs plus the GPU's idle time (10,000 us =
  // 16.67%): the profiler's 69.17% is in none.
  for (const ReportFinding& f : report.findings)
    EXPECT_LE(f.gain_pct.value_or(0), 100.0 * 10'000 / 60'000 + 1e-9) << f.id;
}

// One step [0, 300,000] us on a device that does nothing but copies: a first cudaMemcpy [100,
// 275,100] of 24 bytes (its copy [275,000, 275,010]) and 9 more of 50 us at 280,000 + 2,000 k.
// The name's median is 50 us; 275,000 us is over 10 times it and the device ran nothing else
// meanwhile: set-up, 275,000 / 300,000 = 91.667% of the step.
TEST(SetupPhases, AFirstCopyFarOverItsMedianIsSetUp) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 300'000);
  t.runtime("cudaMemcpy", 100, 275'000, 1);
  t.memcpy("Memcpy HtoD (Pageable -> Device)", 275'000, 10, 1, 0, 7, 24);
  for (int k = 0; k < 9; ++k) {
    double at = 280'000 + 2'000.0 * k;
    t.runtime("cudaMemcpy", at, 50, 2 + k);
    t.memcpy("Memcpy HtoD (Pageable -> Device)", at + 20, 10, 2 + k, 0, 7, 24);
  }
  ReportModel report = report_of_json(t.json(), default_book());
  EXPECT_NEAR(*report.metric(Metric::HostWarmupUs), 275'000, 1e-6);
  EXPECT_NEAR(*report.metric(Metric::HostSetupTeardownPct), 100.0 * 275'000 / 300'000, 1e-9);
}

// The same long copy while a kernel [200, 274,900] (launched at 50) keeps the device busy: the copy
// waited for queued work, the steady state's, not set-up.
TEST(SetupPhases, ACopyThatWaitsForQueuedWorkIsNotSetUp) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 300'000);
  t.launch("ampere_sgemm_128x64_nn", 50, 200, 274'700);
  t.runtime("cudaMemcpy", 100, 275'000, 1001);
  t.memcpy("Memcpy HtoD (Pageable -> Device)", 275'000, 10, 1001, 0, 7, 24);
  for (int k = 0; k < 9; ++k) {
    double at = 280'000 + 2'000.0 * k;
    t.runtime("cudaMemcpy", at, 50, 1002 + k);
    t.memcpy("Memcpy HtoD (Pageable -> Device)", at + 20, 10, 1002 + k, 0, 7, 24);
  }
  ReportModel report = report_of_json(t.json(), default_book());
  EXPECT_NEAR(*report.metric(Metric::HostWarmupUs), 0, 1e-6);
}

// An aten::copy_ of [1024, 1024] floats whose device time is a 300 us host-to-device copy from
// pinned memory: no memory roofline applies (4 MiB over HBM would be 2 us on an A100), and its
// remedy is the transfer's, not fusion.
TEST(SetupPhases, AHostToDeviceCopyIsATransferNotFusion) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 1'000);
  t.op("aten::copy_", 10, 500, 1, 1,
       R"("Input Dims": [[1024, 1024], [1024, 1024], []], "Input type": ["float", "float", "Scalar"])");
  t.runtime("cudaMemcpyAsync", 12, 5, 1, 1);
  t.memcpy("Memcpy HtoD (Pinned -> Device)", 100, 300, 1, 0, 7, 4 * 1024 * 1024);
  WorkerAnalysis w = analyse_json(t.json());
  const RooflineRow* copy = nullptr;
  for (const RooflineRow& r : w.tables.roofline)
    if (r.name == "aten::copy_") copy = &r;
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->host_transfer);
  EXPECT_FALSE(copy->has_roofline);
  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* table = find_table(report.workers[0].tables, "roofline");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rows.size(), 1u);
  const std::string* remedy = std::get_if<std::string>(find_cell(*table, 0, "remedy"));
  ASSERT_NE(remedy, nullptr);
  EXPECT_EQ(*remedy, "transfer");
}

// Three steps: [0, 1,000,000], [1,000,000, 1,100,000], [1,100,000, 1,200,000] us. The first holds
// a first cudaStreamCreate [100, 300,100] (30% of it) and then 70 kernels of 9,000 us launched at
// 301,000 + 10,000 i: its rest, 700,000 us, is 7 times the later steps' median (100,000). The later
// steps launch 10 kernels of 9,000 us at their start + 100 + 10,000 i. The first step is set-up as a
// whole (its device work too): 1,000,000 of the 1,200,000 us window = 83.333%, steady 200,000.
TraceBuilder setup_step_trace(double first_step_us) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, first_step_us);
  t.runtime("cudaStreamCreate", 100, 300'000, 9000);
  for (int i = 0; 301'000 + 10'000.0 * i + 9'100 <= first_step_us; ++i) {
    double at = 301'000 + 10'000.0 * i;
    t.launch("ampere_sgemm_128x64_nn", at, at + 50, 9'000);
  }
  for (int s = 0; s < 2; ++s) {
    double start = first_step_us + 100'000.0 * s;
    t.step(2 + s, start, 100'000);
    for (int i = 0; i < 10; ++i) {
      double at = start + 100 + 10'000.0 * i;
      t.launch("ampere_sgemm_128x64_nn", at, at + 50, 9'000);
    }
  }
  return t;
}

// The phases of the worker of `json`: its window, set-up and steady state (us) and the evidence.
void expect_phases(const std::string& json, double window, double setup, double steady,
                   const std::string& evidence) {
  WorkerAnalysis w = analyse_json(json);
  const CapturePhases& p = w.capture.phases;
  ASSERT_TRUE(p.window_us && p.setup_us && p.steady_us);
  EXPECT_NEAR(*p.window_us, window, 1e-6);
  EXPECT_NEAR(*p.setup_us, setup, 1e-6);
  EXPECT_NEAR(*p.steady_us, steady, 1e-6);
  EXPECT_EQ(p.evidence, evidence);
}

TEST(SetupPhases, AFirstStepFarOverTheLaterStepsIsSetUpAsAWhole) {
  expect_phases(setup_step_trace(1'000'000).json(), 1'200'000, 1'000'000, 200'000,
                "the window's first step (set-up) took 1000.0 ms, 0.0 ms into the window");
  ReportModel report = report_of_json(setup_step_trace(1'000'000).json(), default_book());
  EXPECT_NEAR(*report.metric(Metric::HostSetupTeardownPct), 100.0 * 1'000'000 / 1'200'000, 1e-9);
}

// The first step [0, 300,100] holds the same 300,000 us cudaStreamCreate and no more: its rest,
// 100 us, is under twice the later steps' median. Set-up is the call alone: 300,000 of the 500,100
// us window, steady 200,100 (as a long first copy in resnet50_v100_workers4's first step).
TEST(SetupPhases, AFirstStepLongByItsOneOffAloneIsSteadyApartFromIt) {
  expect_phases(setup_step_trace(300'100).json(), 500'100, 300'000, 200'100,
                "the first call of cudaStreamCreate took 300.0 ms, 0.1 ms into the window");
}

}  // namespace
}  // namespace perfgate::testing
