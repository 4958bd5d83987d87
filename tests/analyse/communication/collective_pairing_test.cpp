// Issue 40, items 1-3: calls paired by (group, type, step, index) are one collective only when
// they overlap in time within the clock-skew bound and, for a type with one size on every rank,
// move the same size; otherwise they are unmatched with the reason and add nothing to bandwidth,
// waiting or stragglers. One rank's calls give a lower bound of the bus bandwidth.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "analyse/communication/collective_matching.h"
#include "gate/gate.h"
#include "render/format.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

struct RankCall {
  double start_us = 0;  // the kernel's start, from the trace's origin
  double dur_us = 0;
  int elements = 1'000'000;
};

// Two ranks of a world of 2, one step each with one collective of type `name` (float32).
std::string write_pair(const std::string& dir, const std::string& name, RankCall r0, RankCall r1) {
  std::filesystem::create_directories(dir);
  RankCall calls[] = {r0, r1};
  for (int rank = 0; rank < 2; ++rank) {
    const RankCall& c = calls[rank];
    TraceBuilder t;
    t.top_level("distributedInfo",
                fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": 2}})", rank));
    double base = c.start_us - 1000;
    t.step(1, base, c.start_us + c.dur_us + 100 - base);
    t.op("record_param_comms", base + 950, 10, 100, 1,
         fmt::format(
             R"("Collective name": "{}", "dtype": "Float", "In msg nelems": {}, "Out msg nelems": {}, )"
             R"("Group size": 2, "Process Group Name": "0")",
             name, c.elements, c.elements));
    t.launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", base + 952, c.start_us, c.dur_us, 100);
    t.write(fmt::format("{}/rank-{}.json", dir, rank));
  }
  return dir;
}

RunAnalysis analyse_dir(const std::string& dir) {
  return analyse_run(load_run({dir}), default_classification(), {});
}

bool warned(const RunAnalysis& r, const std::string& text) {
  for (const std::string& w : note_texts(r.warnings))
    if (w.find(text) != std::string::npos) return true;
  return false;
}

// Rank 1's all-reduce runs 10 s after rank 0's ended (two captures of different times): not one
// collective. Nothing is matched, so no bandwidth, waiting or straggler, and the straggler finding
// does not apply; the warning gives the reason.
TEST(CollectivePairing, CallsOfDifferentTimesAreNotMatched) {
  std::string dir = write_pair(temp_dir() + "/pair-apart", "allreduce", {2000, 100}, {10'002'000, 100});
  RunAnalysis r = analyse_dir(dir);
  EXPECT_EQ(r.collectives.matched, 0u);
  EXPECT_EQ(r.collectives.disjoint, 1u);
  EXPECT_EQ(r.collectives.most_ranks, 1u);
  EXPECT_TRUE(r.collectives.by_size.empty());
  EXPECT_TRUE(r.collectives.ranks.empty());
  EXPECT_FALSE(r.metrics.get(Metric::CollectivesBusBandwidthGbps));
  EXPECT_FALSE(r.metrics.get(Metric::CollectivesWaitPct));
  EXPECT_FALSE(r.metrics.get(Metric::CollectivesStragglerRank));
  EXPECT_TRUE(warned(r, "1 of 1 collectives issued on several ranks are not matched")) << r.warnings.size();
  ReportModel report = report_of_files({dir}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* straggler = find_finding(report, "communication.straggler");
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(straggler->status, FindingStatus::NotApplicable);
}

// Rank 0's all-reduce of 1,000,000 elements and rank 1's of 900,000 overlap in time, but an
// all-reduce has one size on every rank: they are not one collective.
TEST(CollectivePairing, AllReducesOfDifferentSizesAreNotMatched) {
  RunAnalysis r = analyse_dir(
      write_pair(temp_dir() + "/pair-sizes", "allreduce", {2000, 100, 1'000'000}, {2050, 100, 900'000}));
  EXPECT_EQ(r.collectives.matched, 0u);
  EXPECT_EQ(r.collectives.sizes_differ, 1u);
  EXPECT_EQ(r.collectives.disjoint, 0u);
  EXPECT_FALSE(r.metrics.get(Metric::CollectivesBusBandwidthGbps));
  EXPECT_TRUE(warned(r, "1 differ in size"));
}

// Within the 1 ms clock-skew bound: rank 1 starts 500 us after rank 0 ended (0 + 100 us at 2000,
// rank 1 at 2600): one collective. Its transfer is the shorter 100 us; rank 1's 200 us is 100 us of
// waiting. An all-to-all's sizes may differ per rank (uneven splits): still matched, at the larger.
TEST(CollectivePairing, WithinTheSkewBoundAndUnevenAllToAllAreMatched) {
  RunAnalysis r = analyse_dir(write_pair(temp_dir() + "/pair-skew", "allreduce", {2000, 100}, {2600, 200}));
  EXPECT_EQ(r.collectives.matched, 1u);
  EXPECT_EQ(r.collectives.most_ranks, 2u);
  ASSERT_EQ(r.collectives.ranks.size(), 2u);
  EXPECT_EQ(r.collectives.ranks[1].wait, 100'000);
  RunAnalysis a = analyse_dir(
      write_pair(temp_dir() + "/pair-a2a", "all_to_all", {2000, 100, 1'000'000}, {2000, 100, 900'000}));
  EXPECT_EQ(a.collectives.matched, 1u);
  ASSERT_EQ(a.collectives.by_size.size(), 1u);
  EXPECT_EQ(a.collectives.by_size[0].bytes, 4'000'000u);
}

// One rank of the hand-built 4-rank run (write_late_rank_run): 6 collectives of 4,000,000 bytes in a
// group of 4, each 400 us on rank 0. Bus bytes: 4e6 x (1.5 + 3 x 0.75 + 1 + 1) = 23e6 over
// 6 x 400 = 2400 us: at least 9.583 GB/s (the durations include waiting).
TEST(CollectivePairing, OneRankGivesALowerBoundOfTheBusBandwidth) {
  std::string dir = write_late_rank_run(temp_dir() + "/lower-bound");
  ReportModel report = report_of_files({dir + "/rank-0.json"}, default_book());
  EXPECT_NEAR(*report.metrics.get(Metric::CollectivesBusBandwidthLowerBoundGbps), 23e6 / 2.4e6, 1e-9);
  EXPECT_FALSE(report.metrics.get(Metric::CollectivesBusBandwidthGbps));
  // Matched across ranks, the run has the bandwidth itself and no lower bound.
  RunAnalysis run = analyse_dir(dir);
  EXPECT_TRUE(run.metrics.get(Metric::CollectivesBusBandwidthGbps));
  EXPECT_FALSE(run.metrics.get(Metric::CollectivesBusBandwidthLowerBoundGbps));
}

}  // namespace
}  // namespace perfgate::testing
