// Issue 29, item 5: a run folder of unrelated traces became one run of "2 workers" without a word,
// and a sample of a job's ranks read as the whole job. The run says so, and how many ranks it holds.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "analyse/run/capture_check.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Timestamps in microseconds since 1970, as PyTorch wrote them before baseTimeNanoseconds:
// 2021-06-08 08:57:03 UTC is 1623142623 s.
constexpr double kJune2021 = 1623142623e6;

// A worker of `steps` 1 ms steps with a kernel each, from `start` (µs).
TraceBuilder worker(double start, int steps = 2) {
  TraceBuilder t;
  for (int i = 0; i < steps; ++i) {
    double s = start + 1000.0 * i;
    t.step(i + 1, s, 1000);
    t.launch("gemm_kernel", s + 10, s + 20, 500);
  }
  return t;
}

TraceBuilder& rank(TraceBuilder& t, int rank, int world_size) {
  return t.top_level("distributedInfo",
                     fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": {}}})", rank, world_size));
}

RunAnalysis run_of(const std::vector<TraceBuilder>& workers) {
  std::string dir = temp_dir();
  for (std::size_t i = 0; i < workers.size(); ++i) workers[i].write(fmt::format("{}/rank-{}.json", dir, i));
  return analyse_run(load_run({dir}), default_classification(), {});
}

TEST(CaptureCheck, OneJobsRanksOnOneGpuModelAtOneTimeSayNothing) {
  TraceBuilder a = worker(kJune2021), b = worker(kJune2021 + 100);
  a.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40LL << 30, 108);
  b.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40LL << 30, 108);
  RunAnalysis run = run_of({rank(a, 0, 2), rank(b, 1, 2)});
  EXPECT_TRUE(run.warnings.empty()) << note_text(run.warnings.front());
  EXPECT_EQ(run.metrics.get(Metric::RanksPresent), 2);
  EXPECT_EQ(run.metrics.get(Metric::RanksWorldSize), 2);
}

TEST(CaptureCheck, DifferentGpuModelsAreSaid) {
  TraceBuilder a = worker(0), b = worker(0), c = worker(0);
  a.device(0, "NVIDIA A100-PG509-200", 8, 0, 40LL << 30, 108);
  b.device(0, "Tesla V100-DGXS-32GB", 7, 0, 32LL << 30, 80);
  c.device(0, "NVIDIA A100-PG509-200", 8, 0, 40LL << 30, 108);
  RunAnalysis run = run_of({a, b, c});
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(note_text(run.warnings[0]),
            "The workers ran on different GPU models: NVIDIA A100-PG509-200 (rank-0, rank-2); Tesla "
            "V100-DGXS-32GB (rank-1). The run's metrics mix them.");
}

TEST(CaptureCheck, DifferentWorldSizesAreSaidAndNoRanksPresentCount) {
  TraceBuilder a = worker(0), b = worker(0);
  RunAnalysis run = run_of({rank(a, 0, 8), rank(b, 1, 16)});
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(
      note_text(run.warnings[0]),
      "The workers state different world sizes: 8 (rank-0); 16 (rank-1): they are not one job's ranks.");
  EXPECT_EQ(run.metrics.get(Metric::RanksWorldSize), 16);  // the largest
}

TEST(CaptureCheck, WindowsThatDoNotOverlapOnTheWallClockAreSaid) {
  // rank-0 from 2021-06-08 08:57:03 UTC for 2 steps of 1 ms; rank-1 a day (86,400 s) later.
  RunAnalysis run = run_of({worker(kJune2021), worker(kJune2021 + 86400e6)});
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(note_text(run.warnings[0]),
            "The workers' windows do not overlap in time (rank-0's window from 2021-06-08 08:57:03 UTC, "
            "0.002 s long; rank-1's window from 2021-06-09 08:57:03 UTC, 0.002 s long): they were recorded "
            "at different times, not as one run.");
  // Half a step apart, they overlap: one run.
  EXPECT_TRUE(run_of({worker(kJune2021), worker(kJune2021 + 500)}).warnings.empty());
  // Relative clocks (no epoch, no base time) cannot be compared, so nothing is said.
  EXPECT_TRUE(run_of({worker(0), worker(1e9)}).warnings.empty());
}

TEST(CaptureCheck, DifferentTraceClocksAreSaid) {
  TraceBuilder based = worker(1000);
  based.top_level("baseTimeNanoseconds", "1711964646000000000");
  RunAnalysis run = run_of({worker(kJune2021), based});
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(
      note_text(run.warnings[0]),
      "The workers' traces count time on different clocks: microseconds since 1970 (rank-0); "
      "microseconds from baseTimeNanoseconds (rank-1). Their times cannot be compared: they are not one "
      "capture.");
}

TEST(CaptureCheck, RanksMissingFromTheWorldSizeAreCounted) {
  TraceBuilder a = worker(0), b = worker(0), c = worker(0), d = worker(0);
  RunAnalysis run = run_of({rank(a, 0, 128), rank(b, 1, 128), rank(c, 2, 128), rank(d, 7, 128)});
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(note_text(run.warnings[0]),
            "4 of 128 ranks present (ranks 0-2, 7): the run's metrics and its rank comparison cover these "
            "ranks only.");
  EXPECT_EQ(run.metrics.get(Metric::RanksPresent), 4);
  EXPECT_EQ(run.metrics.get(Metric::RanksWorldSize), 128);
  // A lone trace is one rank's view by choice: its metrics say so, no warning.
  TraceBuilder lone = worker(0);
  RunAnalysis one = run_of({rank(lone, 3, 8)});
  EXPECT_TRUE(one.warnings.empty());
  EXPECT_EQ(one.metrics.get(Metric::RanksPresent), 1);
  EXPECT_EQ(one.metrics.get(Metric::RanksWorldSize), 8);
  // No distributedInfo: no world size.
  EXPECT_FALSE(run_of({worker(0), worker(0)}).metrics.get(Metric::RanksWorldSize).has_value());
}

TEST(CaptureCheck, RankListsShowRunsAsRanges) {
  EXPECT_EQ(rank_list({7, 1, 0, 2, 3, 9, 10}), "0-3, 7, 9, 10");
  EXPECT_EQ(rank_list({0, 1}), "0, 1");
  EXPECT_EQ(rank_list({5, 5}), "5");
}

// The issue's folders, from ../shared/traces (linked, not copied, into a temporary folder).
TEST(CaptureCheck, TheSharedTracesTheIssueNames) {
  std::string shared = shared_traces_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared/traces not found";
  std::string dir = temp_dir();
  for (const char* name : {"a100_alexnet.json.gz", "resnet50_v100_workers0.pt.trace.json.gz"})
    std::filesystem::create_symlink(shared + "/" + name, dir + "/" + name);
  RunAnalysis mixed = analyse_run(load_run({dir}), default_classification(), {});
  // The two captures' warnings; the run's roofline table's rows above their roofline (ResNet-50's
  // add_, clamp_min and div rows on the V100's 6 MB L2 and 1-µs timestamps: report invariant
  // roofline.row_at_most_peak, tests/analyse/invariants_test.cpp; its fill_ rows, 28 rows before
  // issue 72's byte model wrote and read them, are under the roofline) are the run's invariants,
  // the reports' Data quality, not a warning about the inputs.
  ASSERT_EQ(mixed.warnings.size(), 2u);
  ASSERT_EQ(mixed.invariants.size(), 1u);
  EXPECT_EQ(note_text(invariant_warning(mixed.invariants[0]))
                .rfind("report invariant roofline.row_at_most_peak does not hold (14 roofline rows", 0),
            0u)
      << note_text(invariant_warning(mixed.invariants[0]));
  EXPECT_EQ(note_text(mixed.warnings[0]),
            "The workers ran on different GPU models: NVIDIA A100-PG509-200 (a100_alexnet); Tesla "
            "V100-DGXS-32GB (resnet50_v100_workers0). The run's metrics mix them.");
  // ResNet-50 was profiled on 2021-06-08, AlexNet on 2023-09-27 (their first timestamps,
  // 1623142623460172 and 1695835542515301 us since 1970).
  EXPECT_NE(note_text(mixed.warnings[1])
                .find("The workers' windows do not overlap in time (resnet50_v100_workers0's "
                      "window from 2021-06-08 08:57:03 UTC"),
            std::string::npos)
      << note_text(mixed.warnings[1]);
  EXPECT_NE(note_text(mixed.warnings[1]).find("a100_alexnet's window from 2023-09-27 17:25:42 UTC"),
            std::string::npos)
      << note_text(mixed.warnings[1]);

  RunAnalysis sampled =
      analyse_run(load_run({shared + "/distributed_128ranks_sampled"}), default_classification(), {});
  // And (issues 32, 40) its sampled-out events leave calls whose ranks' spans do not overlap or
  // whose sizes differ: not matched (tests/real/collectives_real_test.cpp).
  ASSERT_EQ(sampled.warnings.size(), 2u);
  EXPECT_EQ(
      note_text(sampled.warnings[0]),
      "2 of 128 ranks present (ranks 0, 1): the run's metrics and its rank comparison cover these ranks "
      "only.");
  EXPECT_NE(note_text(sampled.warnings[1]).find("collectives issued on several ranks are not matched"),
            std::string::npos);
  EXPECT_EQ(sampled.metrics.get(Metric::RanksPresent), 2);
  EXPECT_EQ(sampled.metrics.get(Metric::RanksWorldSize), 128);
}

}  // namespace
}  // namespace perfgate::testing
