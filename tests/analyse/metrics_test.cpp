#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "analyse/metric_values.h"
#include "engine/analyse_profiles.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TEST(MetricCatalog, NamesAreUniqueDottedAndDocumented) {
  std::set<std::string_view> seen;
  std::ifstream docs(std::string(PERFGATE_SOURCE_DIR) + "/docs/metrics.md");
  std::stringstream text;
  text << docs.rdbuf();
  for (const MetricInfo& m : metric_catalog()) {
    EXPECT_TRUE(seen.insert(m.name).second) << "duplicate " << m.name;
    EXPECT_NE(m.name.find('.'), std::string_view::npos) << m.name;
    const std::set<std::string_view> units = {"us",   "%",    "count",   "ratio",  "bytes",
                                              "GB/s", "flop", "TFLOP/s", "version"};
    EXPECT_TRUE(units.count(m.unit)) << m.name << " " << m.unit;
    EXPECT_FALSE(m.definition.empty()) << m.name;
    EXPECT_NE(text.str().find("`" + std::string(m.name) + "`"), std::string::npos)
        << m.name << " is missing from docs/metrics.md";
  }
}

TEST(MetricValues, SetAndReadById) {
  MetricValues v;
  v.set(Metric::StepsMeanUs, 5.0);
  EXPECT_EQ(v.get(Metric::StepsMeanUs), 5.0);
  EXPECT_FALSE(v.get(Metric::StepsMaxUs));
}

// Worker A: steps 1 and 2 last 100 and 200 µs; worker B: 150 and 120 µs. The run's steps take the
// slowest worker: 150 and 200, mean 175. GPU utilization averages the two GPUs:
// A has 50 + 10 µs of kernels in 300 µs, B 120 + 10 in 270.
TEST(RunMetrics, SeveralWorkersCombine) {
  std::string dir = temp_dir();
  TraceBuilder a;
  a.step(1, 0, 100).step(2, 100, 200);
  a.launch("k", 10, 20, 50);
  a.launch("k", 110, 120, 10);
  TraceBuilder b;
  b.step(1, 0, 150).step(2, 150, 120);
  b.launch("k", 10, 20, 120, 0, 1);
  b.launch("k", 160, 170, 10, 0, 1);
  a.write(dir + "/rank-0.json");
  b.write(dir + "/rank-1.json");
  LoadedRun run = load_run({dir});
  RunAnalysis r = analyse_run(run, default_classification(), {});
  ASSERT_EQ(r.workers.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.metrics.get(Metric::StepsMeanUs), 175);
  EXPECT_DOUBLE_EQ(*r.metrics.get(Metric::StepsMaxUs), 200);
  EXPECT_EQ(*r.metrics.get(Metric::GpuCount), 2);
  EXPECT_NEAR(*r.metrics.get(Metric::GpuUtilizationPct), (100.0 * 60 / 300 + 100.0 * 130 / 270) / 2, 1e-9);
  EXPECT_DOUBLE_EQ(*r.workers[0].metrics.get(Metric::StepsMeanUs), 150);
  auto steps = run_steps(r.workers);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].first, "ProfilerStep#1");
  EXPECT_DOUBLE_EQ(steps[0].second, 150);

  // Analysing each worker as it loads (what `perfgate analyze` does) gives the same run, in
  // input order, with one loading thread or several.
  for (unsigned threads : {1u, 2u}) {
    LoadOptions options;
    options.max_threads = threads;
    RunAnalysis streamed = load_and_analyse({dir}, options, default_classification(), {}).analysis;
    ASSERT_EQ(streamed.workers.size(), 2u);
    EXPECT_EQ(streamed.workers[0].worker, "rank-0");
    EXPECT_EQ(streamed.workers[1].worker, "rank-1");
    for (std::size_t w = 0; w < 2; ++w)
      for (std::size_t m = 0; m < r.workers[w].metrics.size(); ++m)
        EXPECT_EQ(streamed.workers[w].metrics.at(m), r.workers[w].metrics.at(m))
            << "worker " << w << " metric " << m;
    for (std::size_t m = 0; m < r.metrics.size(); ++m) EXPECT_EQ(streamed.metrics.at(m), r.metrics.at(m));
    EXPECT_DOUBLE_EQ(*streamed.metrics.get(Metric::StepsMaxUs), 200);
  }
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// Four CPU-only steps of 100, 200, 300 and 400 µs: mean 250, median 250, sample stddev
// sqrt(50000/3) = 129.10, cv 51.64%, p90 370, max/median 1.6.
TEST(StepMetrics, StatisticsOfTheWindowSteps) {
  TraceBuilder t;
  double at = 0;
  for (double d : {100.0, 200.0, 300.0, 400.0}) {
    t.step(static_cast<int>(at), at, d);
    at += d;
  }
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(*w.metrics.get(Metric::StepsCount), 4);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMeanUs), 250);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMedianUs), 250);
  EXPECT_NEAR(*w.metrics.get(Metric::StepsStddevUs), 129.0994449, 1e-6);
  EXPECT_NEAR(*w.metrics.get(Metric::StepsCvPct), 51.6397779, 1e-6);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMinUs), 100);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMaxUs), 400);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsP90Us), 370);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMaxOverMedian), 1.6);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 1000);
}

// Two steps of 100 µs. Step 1: TC kernel [10,30], other kernel [20,50], memcpy [45,60], an op
// [0,80] (runtime calls inside it): TC 20, other kernels 20, memory 10, CPU 30, other 20.
// Step 2: an op [100,150]: CPU 50, other 50. Sums: 20 / 20 / 10 / 80 / 70 of 200 µs.
TEST(ResourceMetrics, ExclusiveSplitSummedOverSteps) {
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 100);
  t.op("aten::mm", 0, 80, 1);
  t.launch("ampere_fp16_s16816gemm", 1, 10, 20, 1);
  t.launch("elementwise", 2, 20, 30, 1);
  t.runtime("cudaMemcpyAsync", 3, 1, 77, 1).memcpy("Memcpy DtoD (Device -> Device)", 45, 15, 77);
  t.op("aten::add", 100, 50, 2);
  // Zero-length kernels: as many GPU activities as step 1, so step 2 is not taken as cut off.
  for (int i = 0; i < 3; ++i) t.launch("elementwise", 101 + i, 120, 0, 2);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.window.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesTcKernelsUs), 20);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesNonTcKernelsUs), 20);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesMemoryUs), 10);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesCpuUs), 80);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesOtherUs), 70);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesCpuPct), 40);
}

}  // namespace
}  // namespace perfgate::testing
