// Issue 72, item 5: one-offs (a launch call far longer than its name's median, teardown after the
// last GPU activity, the profiler's own start) set aside from the steady-state shares and named,
// never advised against with CUDA graphs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "gate/gate.h"
#include "support/helpers.h"
#include "support/trace_builder.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

constexpr const char* kA100 = "NVIDIA A100-SXM4-80GB";
constexpr const char* kOneOffAdvice = "Most of the window is one-offs";

const ReportFinding& fired(const ReportModel& report, const char* id) {
  const ReportFinding* f = find_finding(report, id);
  EXPECT_NE(f, nullptr) << id;
  static const ReportFinding kNone;
  return f ? *f : kNone;
}

// P5a of the plan: one step [0, 984000] us; 120 cudnn convolutions. The first's op [100, 629705]
// holds a cudaLaunchKernel [101, 629701] (629,600 us: a lazy module load); its kernel runs [629710,
// 631710]. Convolution i >= 1: op [629610 + 2600 i, +20], launch call [629615 + 2600 i, +5], kernel
// [629710 + 2600 i, +2000]. The launch calls' median is 5 us: the first is 125,920 times it, an
// outlier. One-offs: 629,600 of 984,000 us = 63.98%. Steady runtime share: the other 119 calls'
// 595 us over the 354,400 us outside the one-off = 0.1679% (64.0% with it).
TraceBuilder lazy_load_trace() {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 984000);
  const std::string kernel =
      "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16";
  t.op("aten::cudnn_convolution", 100, 629605, 1);
  t.runtime("cudaLaunchKernel", 101, 629600, 1, 1).kernel(kernel, 629710, 2000, 1);
  for (int i = 1; i < 120; ++i) {
    double at = 629710 + 2600.0 * i;
    t.op("aten::cudnn_convolution", at - 100, 20, i + 1);
    t.runtime("cudaLaunchKernel", at - 95, 5, i + 1, i + 1).kernel(kernel, at, 2000, i + 1);
  }
  return t;
}

TEST(OneOffs, ALaunchTenThousandTimesItsMedianIsLazyLoading) {
  ReportModel report = report_of_json(lazy_load_trace().json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NEAR(*report.metric(Metric::HostWarmupPct), 100.0 * 629600 / 984000, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::HostRuntimePct), 100.0 * 595 / (984000 - 629600), 1e-9);
  // No idle time during the load is launch overhead.
  EXPECT_LT(report.metric(Metric::GpuIdleLaunchPct).value_or(0), 1.0);
  for (const char* id : {"gpu.idle", "host.runtime-share"}) {
    const ReportFinding& f = fired(report, id);
    EXPECT_EQ(f.status, FindingStatus::Warn) << id;
    EXPECT_NE(f.recommendation.find(kOneOffAdvice), std::string::npos) << id << ": " << f.recommendation;
  }
  EXPECT_TRUE(has_line(report.warnings,
                       "1 runtime call at least 10 times the median of its name took "
                       "629.600 ms (64.0% of it); the longest, cudaLaunchKernel at 0.101 ms into "
                       "the window, took 629.600 ms"));
}

// P5b: one step [0, 534000] us; 200 aten::mm [145 + 270 k, +10] launch (call at 150 + 270 k, 1 us)
// kernels [200 + 270 k, +240]: the last ends at 54,170. Then 5,490 cuModuleUnload driver calls of
// 87.2 us every 87.25 us from 54,950: teardown, 478,728 us = 89.649% of the step. Steady runtime
// share: the 200 launch calls' 200 us over the 55,272 us outside the teardown = 0.3618% (89.7% with
// the calls); the idle time after the last kernel is no launch overhead (it was 98.5% of the idle).
TEST(OneOffs, UnloadsAfterTheLastKernelAreTeardown) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 534000);
  for (int k = 0; k < 200; ++k) {
    t.op("aten::mm", 145 + 270.0 * k, 10, k + 1);
    t.launch("ampere_sgemm_128x64_nn", 150 + 270.0 * k, 200 + 270.0 * k, 240, k + 1);
  }
  for (int u = 0; u < 5490; ++u)
    t.raw_event(fmt::format(R"({{"ph": "X", "cat": "cuda_driver", "name": "cuModuleUnload", "pid": 100, )"
                            R"("tid": 1, "ts": {}, "dur": 87.2, "args": {{"correlation": {}}}}})",
                            54950 + 87.25 * u, 100000 + u));
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NEAR(*report.metric(Metric::HostWarmupUs), 5490 * 87.2, 1e-3);
  EXPECT_NEAR(*report.metric(Metric::HostRuntimePct), 100.0 * 200 / (534000 - 5490 * 87.2), 1e-6);
  EXPECT_LT(report.metric(Metric::GpuIdleLaunchPct).value_or(0), 1.0);
  const ReportFinding& idle = fired(report, "gpu.idle");
  EXPECT_NE(idle.recommendation.find(kOneOffAdvice), std::string::npos) << idle.recommendation;
  EXPECT_TRUE(has_line(report.warnings,
                       "5490 calls after the last GPU activity (cuModuleUnload and the like; "
                       "rules: teardown_calls) took 478.728 ms (89.6% of it)"));
}

// A JAX-like window that is 99.9% the profiler's own start: the host event `$profiler.py:101
// start_trace` [0, 9710000] us on the launching thread, then two 1 ms kernels (calls at 9,710,500
// and 9,717,000; kernels at 9,711,000 and 9,718,000), in one step [0, 9719000]. The idle time during
// start_trace is no "nothing recorded": it is set aside.
TEST(OneOffs, ProfilerStartTraceIsProfilerOverhead) {
  TraceBuilder t;
  t.device(0, kA100, 8, 0, 85899345920, 108);
  t.step(1, 0, 9719000);
  t.python_function("$profiler.py:101 start_trace", 0, 9710000);
  t.launch("fusion_1", 9710500, 9711000, 1000);
  t.launch("fusion_2", 9717000, 9718000, 1000);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NEAR(*report.metric(Metric::HostWarmupPct), 100.0 * 9710000 / 9719000, 1e-6);
  const ReportFinding& idle = fired(report, "gpu.idle");
  EXPECT_NE(idle.recommendation.find(kOneOffAdvice), std::string::npos) << idle.recommendation;
  EXPECT_EQ(idle.recommendation.find("garbage collection"), std::string::npos);
  EXPECT_TRUE(has_line(report.warnings,
                       "1 event ($profiler.py:101 start_trace; rules: profiler_events) took "
                       "9710.000 ms"));
}

// The same window as JAX writes it, an XSpace (issue 72, item 5): the host plane's python line holds
// the host event `$profiler.py:101 start_trace` [0, 9.71 s] and a step TraceMe "train#step_num=1,_r=1#"
// [0, 9.719 s]; two cuLaunchKernel calls (100 us, at 9,710,500 and 9,717,000 us) launch 1 ms kernels
// on the GPU plane's stream at 9,711,000 and 9,718,000 us (correlation ids 1 and 2). The GPUs are
// idle 9,717 of the step's 9,719 ms (99.98%); 9,710 ms of it (99.907% of the window) is the
// profiler's start: set aside as profiler overhead, and the advice is the one-off's, never "look
// outside the profiled threads".
TEST(OneOffs, XSpaceProfilerStartTraceIsProfilerOverhead) {
  using namespace pb;
  enum : std::int64_t { kCorrelation = 1, kStepNum };
  const std::vector<std::pair<std::int64_t, std::string>> stats = {{kCorrelation, "correlation_id"},
                                                                   {kStepNum, "step_num"}};
  constexpr std::int64_t kPsPerUs = 1'000'000;
  Plane gpu = plane(0, "/device:GPU:0");
  gpu.stat_names = stats;
  gpu.event_names = {{1, "fusion_1"}, {2, "fusion_2"}};
  gpu.lines = {line(1, "Stream #1(Compute)", 0,
                    {event(1, 9'711'000 * kPsPerUs, 1'000 * kPsPerUs, {int_stat(kCorrelation, 1)}),
                     event(2, 9'718'000 * kPsPerUs, 1'000 * kPsPerUs, {int_stat(kCorrelation, 2)})})};
  Plane host = plane(9, "/host:CPU");
  host.stat_names = stats;
  host.event_names = {
      {1, "train#step_num=1,_r=1#"}, {2, "$profiler.py:101 start_trace"}, {3, "cuLaunchKernel"}};
  host.lines = {line(5, "python", 0,
                     {event(1, 0, 9'719'000 * kPsPerUs), event(2, 0, 9'710'000 * kPsPerUs),
                      event(3, 9'710'500 * kPsPerUs, 100 * kPsPerUs, {int_stat(kCorrelation, 1)}),
                      event(3, 9'717'000 * kPsPerUs, 100 * kPsPerUs, {int_stat(kCorrelation, 2)})})};
  std::string path = (std::filesystem::path(temp_dir()) / "jax.xplane.pb").string();
  std::ofstream(path, std::ios::binary) << space({gpu, host});
  ReportModel report = report_of_files({path}, default_book());
  std::filesystem::remove(path);
  ASSERT_TRUE(report.metric(Metric::WindowWallUs));
  EXPECT_NEAR(*report.metric(Metric::WindowWallUs), 9'719'000, 1);
  ASSERT_TRUE(report.metric(Metric::HostWarmupPct));
  EXPECT_NEAR(*report.metric(Metric::HostWarmupPct), 100.0 * 9'710'000 / 9'719'000, 1e-6);
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding& idle = fired(report, "gpu.idle");
  EXPECT_NE(idle.recommendation.find(kOneOffAdvice), std::string::npos) << idle.recommendation;
  EXPECT_NE(idle.recommendation.find("start_trace"), std::string::npos) << idle.recommendation;
  EXPECT_EQ(idle.recommendation.find("look outside the profiled threads"), std::string::npos);
  EXPECT_TRUE(has_line(report.warnings,
                       "1 event ($profiler.py:101 start_trace; rules: profiler_events) took "
                       "9710.000 ms"));
}

}  // namespace
}  // namespace perfgate::testing
