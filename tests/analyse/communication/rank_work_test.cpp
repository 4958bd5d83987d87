// Blame across ranks (issue 89, item 5): a rank that enters a step early waits in its first
// collective and has the longest step without being slow. The rank whose own work (step start to
// first collective) is longest is the one the job waits for; where the ranks entered the window
// skewed with equal own work, the skew came from before the window, and the findings say so.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include <fmt/format.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// A run folder of 8 ranks (distributedInfo rank r of 8), one step each: rank r enters at entry[r]
// µs, computes for own[r] µs (an aten::mm and its kernel), then issues one all-to-all on process
// group "0" whose NCCL kernel starts at entry[r] + own[r] and ends, on every rank, 300 µs after the
// last rank's start (the transfer); the step ends tail[r] µs after that.
std::string write_eight_ranks(const std::string& dir, const std::array<double, 8>& entry,
                              const std::array<double, 8>& own, const std::array<double, 8>& tail) {
  std::filesystem::create_directories(dir);
  double last = 0;
  for (int r = 0; r < 8; ++r) last = std::max(last, entry[r] + own[r]);
  double end = last + 300;
  for (int r = 0; r < 8; ++r) {
    TraceBuilder t;
    t.top_level("distributedInfo", fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": 8}})", r));
    double e = entry[r], arrival = entry[r] + own[r];
    t.step(1, e, end + tail[r] - e);
    t.op("aten::mm", e + 20, own[r] - 200, 1);
    t.launch("volta_sgemm_128x64_nn", e + 30, e + 100, own[r] - 200, 1);
    t.op("record_param_comms", arrival - 60, 10, 2, 1,
         R"("Collective name": "all_to_all", "dtype": "Float", "In msg nelems": 1000000, )"
         R"("Out msg nelems": 1000000, "Group size": 8, "Process Group Name": "0")");
    t.launch("ncclDevKernel_SendRecv", arrival - 55, arrival, end - arrival, 2);
    t.op("aten::mm", end + 20, tail[r] - 40, 3);
    t.launch("volta_sgemm_128x64_nn", end + 30, end + 40, tail[r] - 100, 3);
    t.write(fmt::format("{}/rank-{}.json", dir, r));
  }
  return dir;
}

// The DLRM step of issue 89 (8 V100s): rank 1 enters first and rank 7 7.5 ms after it; every
// rank's own work is 3.0-3.9 ms, rank 7's 3.2. Arrivals (entry + own): 4000, 3900, 5100, 3800,
// 6500, 7600, 8400, 10700 µs: rank 7 is last, 2300 µs after rank 6; the all-to-all ends at
// 11,000 on every rank. Rank 3 works 2600 µs after it, the others 2000, so the steps are 12000,
// 13000, 11000, 13100, 10000, 9000, 8000, 5500 µs: rank 3's, which waited 7.2 ms, is the longest.
constexpr std::array<double, 8> kEntry = {1000, 0, 2000, 500, 3000, 4000, 5000, 7500};
constexpr std::array<double, 8> kOwn = {3000, 3900, 3100, 3300, 3500, 3600, 3400, 3200};
constexpr std::array<double, 8> kTail = {2000, 2000, 2000, 2600, 2000, 2000, 2000, 2000};

ReportModel gated(const std::string& dir) {
  ReportModel report = report_of_files({dir}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

// Entry skew: 7500 - 0 µs (rank 7 after rank 1); own work 3000 (rank 0) to 3900 (rank 1), rank
// 7's 3200. The skew (7500) is above the own work's spread (900): no rank's work is the slowest,
// so ranks.work_spread_pct and ranks.most_work have no value, while the step spread still names
// rank 3 ((13100 - 5500) / 10500 = 72.4%).
TEST(RankWork, EntrySkewAndOwnWorkOfEightRanks) {
  RunAnalysis run = analyse_run(load_run({write_eight_ranks(temp_dir() + "/dlrm", kEntry, kOwn, kTail)}),
                                default_classification(), {});
  const MetricValues& m = run.metrics;
  EXPECT_DOUBLE_EQ(*m.get(Metric::RanksEntrySkewUs), 7500);
  EXPECT_EQ(*m.get(Metric::RanksFirstEntered), 1);
  EXPECT_EQ(*m.get(Metric::RanksLastEntered), 7);
  EXPECT_DOUBLE_EQ(*m.get(Metric::RanksOwnWorkMinUs), 3000);
  EXPECT_DOUBLE_EQ(*m.get(Metric::RanksOwnWorkMaxUs), 3900);
  EXPECT_DOUBLE_EQ(*m.get(Metric::RanksLastEnteredOwnWorkUs), 3200);
  EXPECT_FALSE(m.get(Metric::RanksWorkSpreadPct));
  EXPECT_FALSE(m.get(Metric::RanksMostWork));
  EXPECT_EQ(*m.get(Metric::RanksSlowest), 3);
  EXPECT_NEAR(*m.get(Metric::RanksStepSpreadPct), 100.0 * 7600 / 10500, 1e-9);
  EXPECT_EQ(*m.get(Metric::CollectivesStragglerRank), 7);
  ASSERT_EQ(run.collectives.ranks.size(), 8u);
  for (std::size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(run.collectives.ranks[r].entered_after, static_cast<TimeNs>(kEntry[r] * 1000)) << r;
    EXPECT_EQ(run.collectives.ranks[r].own_work, static_cast<TimeNs>(kOwn[r] * 1000)) << r;
  }
}

// The findings: the straggler finding names rank 7 and says its lateness came from before the
// window (7.50 ms after rank 1, own work 3.20 ms within 3.00 to 3.90 ms) and how to capture it;
// ranks.imbalance names no rank (not applicable), where today it named rank 3, which waited. The
// wait: kernels of 7000, 7100, 5900, 7200, 4500, 3400, 2600 and 300 µs = 38,000, of which 8 x 300
// transfer: 35,600 / 38,000 = 93.7% waiting. The ranks table shows each rank's entry and own work.
TEST(RankWork, SkewFromBeforeTheWindowIsSaidAndNoWaitingRankIsBlamed) {
  ReportModel report = gated(write_eight_ranks(temp_dir() + "/dlrm-findings", kEntry, kOwn, kTail));
  const ReportFinding* straggler = find_finding(report, "communication.straggler");
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(straggler->status, FindingStatus::Warn);
  EXPECT_NE(straggler->problem.find("93.7%"), std::string::npos) << straggler->problem;
  EXPECT_NE(straggler->problem.find("rank 7 started last in 100.0%"), std::string::npos)
      << straggler->problem;
  EXPECT_NE(straggler->recommendation.find("Rank 7 entered the profiled step 7.50 ms after rank 1"),
            std::string::npos)
      << straggler->recommendation;
  EXPECT_NE(straggler->recommendation.find("(3.20 ms) is within the ranks' 3.00 ms to 3.90 ms"),
            std::string::npos)
      << straggler->recommendation;
  EXPECT_NE(straggler->recommendation.find("came from before the window"), std::string::npos);
  EXPECT_NE(straggler->recommendation.find("start the profile a step earlier"), std::string::npos);
  const ReportFinding* imbalance = find_finding(report, "ranks.imbalance");
  ASSERT_NE(imbalance, nullptr);
  EXPECT_EQ(imbalance->status, FindingStatus::NotApplicable);
  EXPECT_EQ(imbalance->problem.find("rank 3"), std::string::npos) << imbalance->problem;
  const ReportTable* ranks = find_table(report.tables, "ranks");
  ASSERT_NE(ranks, nullptr);
  ASSERT_EQ(ranks->rows.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    auto r = static_cast<std::size_t>(std::get<std::int64_t>(*find_cell(*ranks, i, "rank")));
    EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*ranks, i, "entered_after_us")), kEntry[r]) << r;
    EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*ranks, i, "own_work_us")), kOwn[r]) << r;
  }
}

// Ranks that enter together, rank 5 with 6000 µs of own work and the others 3000: rank 5 arrives
// last (at 6000, 3000 µs after the others) and is the rank with the most work. Every step is the
// same (6000 + 300 + 2000 = 8300 µs), so the step spread is 0 and named no one; the work spread is
// (6000 - 3000) / 8300 = 36.1% > 10%. Both findings name rank 5, and the straggler's advice is
// the general one (the skew, 0, is not above the work's spread).
TEST(RankWork, TheRankWithTheMostOwnWorkIsNamedByBothFindings) {
  std::array<double, 8> own{};
  own.fill(3000);
  own[5] = 6000;
  std::array<double, 8> tail{};
  tail.fill(2000);
  ReportModel report = gated(write_eight_ranks(temp_dir() + "/own-work", {}, own, tail));
  EXPECT_EQ(*report.metrics.get(Metric::RanksMostWork), 5);
  EXPECT_NEAR(*report.metrics.get(Metric::RanksWorkSpreadPct), 100.0 * 3000 / 8300, 1e-9);
  EXPECT_DOUBLE_EQ(*report.metrics.get(Metric::RanksEntrySkewUs), 0);
  const ReportFinding* imbalance = find_finding(report, "ranks.imbalance");
  ASSERT_NE(imbalance, nullptr);
  EXPECT_EQ(imbalance->status, FindingStatus::Warn);
  EXPECT_NE(imbalance->problem.find("Rank 5 has the most work of its own"), std::string::npos)
      << imbalance->problem;
  EXPECT_NE(imbalance->problem.find("36.1%"), std::string::npos) << imbalance->problem;
  const ReportFinding* straggler = find_finding(report, "communication.straggler");
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(straggler->status, FindingStatus::Warn);
  EXPECT_NE(straggler->problem.find("rank 5 started last"), std::string::npos) << straggler->problem;
  EXPECT_NE(straggler->recommendation.find("Find why rank 5 is late"), std::string::npos)
      << straggler->recommendation;
}

// Ranks without collectives wait for no one: their mean steps are their work, as before
// (write_paced_ranks: 3 ranks of 1000, 1000 and 1300 µs steps; spread 300 / 1000 = 30%, rank 2).
TEST(RankWork, WithoutCollectivesTheStepsAreTheWork) {
  std::string dir = write_paced_ranks(
      temp_dir() + "/paced", 3, [](int rank) { return rank == 2 ? 1300.0 : 1000.0; }, 2000);
  RunAnalysis run = analyse_run(load_run({dir}), default_classification(), {});
  EXPECT_NEAR(*run.metrics.get(Metric::RanksWorkSpreadPct), 30, 1e-9);
  EXPECT_EQ(*run.metrics.get(Metric::RanksMostWork), 2);
  EXPECT_FALSE(run.metrics.get(Metric::RanksEntrySkewUs));
  EXPECT_FALSE(run.metrics.get(Metric::RanksOwnWorkMaxUs));
}

}  // namespace
}  // namespace perfgate::testing
