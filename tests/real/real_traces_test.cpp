// Every shared real trace loads and analyses, and the results keep their invariants.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::vector<std::string> kineto_traces() {
  std::vector<std::string> files;
  std::string dir = shared_traces_dir();
  if (dir.empty()) return files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().string().ends_with(".json.gz")) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RealTraces, EveryTraceLoadsAndKeepsItsInvariants) {
  auto files = kineto_traces();
  if (files.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    LoadedRun run = load_run({file});
    const Profile& p = run.workers.front();
    EXPECT_FALSE(p.host_events.empty());
    WorkerAnalysis w = analyse_profile(p, default_classification(), {});
    for (std::size_t i : w.window.steps) {
      const Step& s = w.steps.steps[i];
      EXPECT_EQ(std::accumulate(s.breakdown.begin(), s.breakdown.end(), TimeNs{0}), s.duration());
    }
    for (const GpuMetrics& g : w.gpus) {
      EXPECT_LE(*g.utilization_pct, *g.busy_pct + 1e-9);
      EXPECT_LE(*g.busy_pct, 100 + 1e-9);
      EXPECT_GE(*g.utilization_pct, 0);
    }
    auto resources = w.resources;
    TimeNs window_steps = 0;
    for (std::size_t i : w.window.steps) window_steps += w.steps.steps[i].duration();
    if (!w.window.steps.empty()) {
      EXPECT_EQ(std::accumulate(resources.begin(), resources.end(), TimeNs{0}), window_steps);
    }
    const auto& tc = w.tensor_cores;
    EXPECT_LE(tc.tc_kernel_ns, tc.kernel_ns);
    EXPECT_LE(tc.eligible_self_kernel_ns, tc.op_kernel_ns);
    EXPECT_LE(tc.eligible_tc_kernel_ns, tc.eligible_total_kernel_ns);
  }
}

TEST(RealTraces, CpuOnlyTracesHaveNoGpuMetrics) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const char* file : {"cpu_only_gloo_rank34.pt.trace.json.gz", "cpu_only_rank0.json.gz"}) {
    SCOPED_TRACE(file);
    LoadedRun run = load_run({dir + "/" + file});
    WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
    EXPECT_EQ(*w.metrics.get("gpu.count"), 0);
    EXPECT_FALSE(w.metrics.get("gpu.utilization_pct"));
    EXPECT_FALSE(w.metrics.get("tensor_core.kernel_time_pct"));
    EXPECT_FALSE(w.metrics.get("breakdown.kernel_pct"));
  }
}

TEST(RealTraces, NanosecondTimestampsAreKeptExactly) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/v100_ns_resolution_rank0.pt.trace.json.gz"});
  std::size_t not_quarter_us = 0;
  for (const auto& a : run.workers.front().gpu_activities) not_quarter_us += (a.start % 250) != 0;
  EXPECT_GT(not_quarter_us, 0u);  // a double of epoch microseconds could only hold multiples of 250 ns
}

TEST(RealTraces, TheSampledRunFolderHasTwoRanks) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/distributed_128ranks_sampled"});
  ASSERT_EQ(run.workers.size(), 2u);
  EXPECT_EQ(run.inputs[0].worker, "rank-0");
  EXPECT_EQ(run.inputs[1].worker, "rank-1");
  RunAnalysis r = analyse_run(run, default_classification(), {});
  EXPECT_EQ(*r.metrics.get("gpu.count"), 2);
  EXPECT_EQ(*r.metrics.get("steps.count"), 2);
  // The run's step takes the slower rank: 607904 and 630639 µs (rank 1 in both).
  EXPECT_NEAR(*r.metrics.get("steps.max_us"), 630639, 0.5);
}

TEST(RealTraces, RocmDeviceIdsComeFromTheKernels) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/mi250_rocm_minitoy.json.gz"});
  WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].device, 2);
}

}  // namespace
}  // namespace perfgate::testing
