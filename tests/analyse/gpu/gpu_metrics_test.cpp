#include <gtest/gtest.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Window = step [0,100] µs.
// GPU 0: K1 [10,30] on stream 7 (0.5 blocks/SM, 40% occupancy), K2 [20,40] on stream 8 (0.75, 60%),
//        a memcpy [50,60].
//   utilization = |[10,40]| / 100 = 30%; busy = 40%; idle = 60%
//   SM efficiency = (0.5x10 + min(1.25,1)x10 + 0.75x10) / 100 = 22.5%
//   occupancy = (40x20 + 60x20) / 40 = 50%
// GPU 1: K3 [0,50] without blocks/occupancy: utilization 50%, busy 50%, SM efficiency n/a.
std::string two_gpu_trace() {
  TraceBuilder t;
  t.device(0, "GPU zero", 8, 0, 80000000000, 108).device(1, "GPU one", 8, 0, 80000000000, 108);
  t.step(1, 0, 100);
  t.launch("K1", 1, 10, 20, 0, 0, 1, 7, KernelArgs{.blocks_per_sm = 0.5, .occupancy_pct = 40});
  t.launch("K2", 2, 20, 20, 0, 0, 1, 8, KernelArgs{.blocks_per_sm = 0.75, .occupancy_pct = 60});
  t.runtime("cudaMemcpyAsync", 3, 1, 50).memcpy("Memcpy DtoD (Device -> Device)", 50, 10, 50, 0, 7, 1024);
  t.launch("K3", 4, 0, 50, 0, 1, 1, 7);
  return t.json();
}

TEST(GpuMetrics, PerGpuUtilizationBusySmEfficiencyAndOccupancy) {
  WorkerAnalysis w = analyse_json(two_gpu_trace());
  ASSERT_EQ(w.gpus.size(), 2u);
  const GpuMetrics& g0 = w.gpus[0];
  EXPECT_EQ(g0.device, 0);
  EXPECT_EQ(g0.name, "GPU zero");
  EXPECT_EQ(g0.kernel_count, 2u);
  EXPECT_DOUBLE_EQ(*g0.utilization_pct, 30);
  EXPECT_DOUBLE_EQ(*g0.busy_pct, 40);
  EXPECT_DOUBLE_EQ(*g0.idle_pct, 60);
  EXPECT_NEAR(*g0.sm_efficiency_pct, 22.5, 1e-9);
  EXPECT_NEAR(*g0.achieved_occupancy_pct, 50, 1e-9);
  const GpuMetrics& g1 = w.gpus[1];
  EXPECT_DOUBLE_EQ(*g1.utilization_pct, 50);
  EXPECT_FALSE(g1.sm_efficiency_pct);
  EXPECT_FALSE(g1.achieved_occupancy_pct);

  EXPECT_EQ(*w.metrics.get(Metric::GpuCount), 2);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuUtilizationPct), 40);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuBusyPct), 45);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuIdlePct), 55);
  EXPECT_NEAR(*w.metrics.get(Metric::GpuSmEfficiencyPct), 22.5, 1e-9);  // the GPU that has the data
}

// Kernels outside the window count only for their time inside it.
TEST(GpuMetrics, OnlyWindowTimeCounts) {
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 100);
  t.launch("k1", 10, 50, 40);    // step 1: [50,90]
  t.launch("k2", 110, 120, 60);  // step 2: [120,180]
  AnalysisOptions options;
  options.window.iter_start = 2;
  WorkerAnalysis w = analyse_json(t.json(), options);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuUtilizationPct), 60);
  EXPECT_EQ(w.gpus[0].kernel_count, 1u);
}

TEST(GpuMetrics, CpuOnlyProfilesHaveNoApplicableGpuMetrics) {
  TraceBuilder t;
  t.step(1, 0, 100).op("aten::add", 10, 20);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(*w.metrics.get(Metric::GpuCount), 0);
  for (Metric metric :
       {Metric::GpuUtilizationPct, Metric::GpuBusyPct, Metric::GpuIdlePct, Metric::GpuSmEfficiencyPct,
        Metric::GpuAchievedOccupancyPct, Metric::BreakdownKernelPct, Metric::BreakdownMemcpyPct,
        Metric::BreakdownRuntimePct, Metric::TensorCoreKernelTimePct, Metric::TensorCoreEligibleKernelTimePct,
        Metric::TensorCoreEfficiencyPct, Metric::ResourcesTcKernelsUs})
    EXPECT_FALSE(w.metrics.get(metric)) << metric_name(metric);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::BreakdownCpuExecPct), 20);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesCpuPct), 20);
}

// Issue 28, item 8: the 30 chunks' bounds were window length x c / 30, which overflowed for a
// window past 2^63 / 30 ns (3.07e17 ns). 1320 kernels of 30 days (2.592e15 ns) back to back keep
// the GPU busy for 3.42e18 ns, the whole window: every chunk is 100% busy.
TEST(GpuMetrics, ChunksOfAWindowOfYearsAreExact) {
  TraceBuilder t;
  const double month_us = 2592000000000.0;
  for (int i = 0; i < 1320; ++i) t.kernel("k", i * month_us, month_us, i + 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(w.window.length(), 1320 * 2592000000000000);
  ASSERT_EQ(w.gpus.size(), 1u);
  ASSERT_TRUE(w.gpus[0].min_chunk_busy_pct);
  EXPECT_DOUBLE_EQ(*w.gpus[0].min_chunk_busy_pct, 100);
}

// Issue 53, item 8: a chunk under 10 ms is not judged. A 12 ms step has chunks of 0.4 ms, each
// one gap between kernels at most: n/a. A 600 ms step busy but for [300, 340] ms has chunks of
// 20 ms, and [300, 320] ms lies in the hole: 0%.
TEST(GpuMetrics, ChunksUnder10MsAreNotJudged) {
  TraceBuilder short_trace;
  short_trace.step(1, 0, 12000);
  short_trace.launch("k", 0, 1, 100);
  WorkerAnalysis short_w = analyse_json(short_trace.json());
  ASSERT_EQ(short_w.gpus.size(), 1u);
  EXPECT_FALSE(short_w.gpus[0].min_chunk_busy_pct);
  TraceBuilder long_trace;
  long_trace.step(1, 0, 600000);
  long_trace.launch("k", 0, 0, 300000);
  long_trace.launch("k", 1, 340000, 260000);
  WorkerAnalysis long_w = analyse_json(long_trace.json());
  ASSERT_TRUE(long_w.gpus[0].min_chunk_busy_pct);
  EXPECT_DOUBLE_EQ(*long_w.gpus[0].min_chunk_busy_pct, 0);
}

}  // namespace
}  // namespace perfgate::testing
