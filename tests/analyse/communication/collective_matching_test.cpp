// Collectives across ranks (issue 32, item 5): matched by process group, step and order of issue;
// the shortest duration is the transfer, the rest waiting; bus bandwidth by nccl-tests' factors;
// the rank that arrives last is named.
#include <gtest/gtest.h>

#include "analyse/communication/collective_calls.h"
#include "analyse/communication/collective_matching.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const CollectiveSizeRow* size_row(const RunCollectives& c, CollectiveType type) {
  for (const CollectiveSizeRow& r : c.by_size)
    if (r.type == type) return &r;
  return nullptr;
}

RunAnalysis late_rank_run(int late = 3) {
  std::string dir = write_late_rank_run(temp_dir() + "/late", late);
  return analyse_run(load_run({dir}), default_classification(), {});
}

// nccl-tests (doc/PERFORMANCE.md): busbw / algbw is 2(n-1)/n for all-reduce, (n-1)/n for
// all-gather, reduce-scatter and all-to-all, 1 for broadcast and reduce. With n = 4: 6/4, 3/4, 1.
TEST(CollectiveMatching, BusBandwidthFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveType::AllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveType::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveType::ReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveType::AllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveType::Broadcast, 4), 1.0);
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveType::Reduce, 4), 1.0);
  // 2 ranks: an all-reduce moves each byte once per rank, 2(2-1)/2 = 1.
  EXPECT_DOUBLE_EQ(*bus_bandwidth_factor(CollectiveType::AllReduce, 2), 1.0);
  EXPECT_FALSE(bus_bandwidth_factor(CollectiveType::AllReduce, 1));
  EXPECT_FALSE(bus_bandwidth_factor(CollectiveType::Other, 8));
}

TEST(CollectiveMatching, TypesFromRecordedAndOpNames) {
  EXPECT_EQ(collective_type_name(CollectiveType::AllReduce), std::string("all_reduce"));
  for (auto [name, type] : std::vector<std::pair<std::string, CollectiveType>>{
           {"allreduce", CollectiveType::AllReduce},
           {"nccl:all_reduce", CollectiveType::AllReduce},
           {"_allgather_base", CollectiveType::AllGather},
           {"nccl:_all_gather_base", CollectiveType::AllGather},
           {"c10d::reduce_scatter_", CollectiveType::ReduceScatter},
           {"nccl:all_to_all", CollectiveType::AllToAll},
           {"c10d::alltoall_base_", CollectiveType::AllToAll},
           {"broadcast", CollectiveType::Broadcast},
           {"reduce", CollectiveType::Reduce},
           {"gloo:all_reduce", CollectiveType::AllReduce},
           {"nccl:send", CollectiveType::SendRecv},
           {"record_param_comms", CollectiveType::Other}}) {
    EXPECT_EQ(static_cast<int>(perfgate::collective_type(name)), static_cast<int>(type)) << name;
  }
}

// The hand-built run (write_late_rank_run): 6 collectives of S = 4,000,000 bytes; ranks 0-2 start
// each at 1000k + 1000 us and rank 3 300 us later; all end at 1000k + 1400 us. The shortest
// duration, rank 3's 100 us, is each collective's transfer latency: algbw = 4e6 B / 100 us =
// 40 GB/s; busbw = 40 x 1.5 = 60 (all-reduce), 40 x 0.75 = 30 (all-gather, reduce-scatter,
// all-to-all), 40 (broadcast, reduce).
TEST(CollectiveMatching, BusBandwidthOfEachTypeOnAHandBuiltRun) {
  RunAnalysis run = late_rank_run();
  const RunCollectives& c = run.collectives;
  EXPECT_EQ(c.matched, 6u);
  EXPECT_EQ(c.most_ranks, 4u);
  ASSERT_EQ(c.by_size.size(), 6u);
  for (CollectiveType type :
       {CollectiveType::AllReduce, CollectiveType::AllGather, CollectiveType::ReduceScatter,
        CollectiveType::AllToAll, CollectiveType::Broadcast, CollectiveType::Reduce}) {
    const CollectiveSizeRow* r = size_row(c, type);
    ASSERT_NE(r, nullptr) << collective_type_name(type);
    EXPECT_EQ(r->group, "0");
    EXPECT_EQ(r->group_size, 4);
    EXPECT_EQ(r->bytes, 4'000'000u) << collective_type_name(type);
    EXPECT_EQ(r->collectives, 1u);
    EXPECT_EQ(r->ranks, 4u);
    EXPECT_EQ(r->transfer, 100'000);
    EXPECT_EQ(r->wait, 3 * 300'000);  // ranks 0-2 each 400 - 100 us
    EXPECT_EQ(r->late, 300'000);      // latest start - earliest start
  }
  ReportModel report = report_of_files({write_late_rank_run(temp_dir() + "/late-report")}, default_book());
  const ReportTable* t = find_table(report.tables, "collective_bandwidth");
  ASSERT_NE(t, nullptr);
  std::map<std::string, double> busbw;
  for (std::size_t i = 0; i < t->rows.size(); ++i) {
    std::string type = std::get<std::string>(*find_cell(*t, i, "collective"));
    busbw[type] = *cell_number(*find_cell(*t, i, "bus_bandwidth_gbps"));
    EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*t, i, "algorithm_bandwidth_gbps")), 40) << type;
    EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*t, i, "transfer_us")), 100) << type;
    EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*t, i, "wait_us")), 900) << type;
  }
  EXPECT_DOUBLE_EQ(busbw["all_reduce"], 60);
  EXPECT_DOUBLE_EQ(busbw["all_gather"], 30);
  EXPECT_DOUBLE_EQ(busbw["reduce_scatter"], 30);
  EXPECT_DOUBLE_EQ(busbw["all_to_all"], 30);
  EXPECT_DOUBLE_EQ(busbw["broadcast"], 40);
  EXPECT_DOUBLE_EQ(busbw["reduce"], 40);
}

// Each rank's split: ranks 0-2 ran 6 x 400 = 2400 us of collectives, 6 x 100 = 600 us transfer and
// 1800 us waiting, arriving 6 x 300 = 1800 us before the last; rank 3 ran 600 us, all transfer, and
// arrived last 6 times, 300 us after the next-to-last each time. Waiting: 5400 of 7800 us =
// 69.23%. Bus bandwidth of the run: 4e6 B x (1.5 + 3 x 0.75 + 2 x 1) / 600 us = 38.33 GB/s;
// all-reduce is 100 of the 600 us of transfer.
TEST(CollectiveMatching, WaitSplitAndTheLateRankOnAHandBuiltRun) {
  RunAnalysis run = late_rank_run();
  const RunCollectives& c = run.collectives;
  ASSERT_EQ(c.ranks.size(), 4u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(c.ranks[r].worker, r);
    EXPECT_EQ(c.ranks[r].collectives, 6u);
    EXPECT_EQ(c.ranks[r].matched, 6u);
    EXPECT_EQ(c.ranks[r].duration, 2'400'000);
    EXPECT_EQ(c.ranks[r].transfer, 600'000);
    EXPECT_EQ(c.ranks[r].wait, 1'800'000);
    EXPECT_EQ(c.ranks[r].late, 1'800'000);
    EXPECT_EQ(c.ranks[r].last_arrivals, 0u);
  }
  EXPECT_EQ(c.ranks[3].duration, 600'000);
  EXPECT_EQ(c.ranks[3].transfer, 600'000);
  EXPECT_EQ(c.ranks[3].wait, 0);
  EXPECT_EQ(c.ranks[3].late, 0);
  EXPECT_EQ(c.ranks[3].last_arrivals, 6u);
  EXPECT_EQ(c.ranks[3].delay, 6 * 300'000);
  EXPECT_NEAR(*run.metrics.get(Metric::CollectivesWaitPct), 100.0 * 5400 / 7800, 1e-9);
  EXPECT_NEAR(*run.metrics.get(Metric::CollectivesBusBandwidthGbps), 4e6 * 5.75 / 600'000, 1e-9);
  EXPECT_NEAR(*run.metrics.get(Metric::CollectivesAllReduceTransferPct), 100.0 / 6, 1e-9);
  EXPECT_EQ(*run.metrics.get(Metric::CollectivesStragglerRank), 3);
  EXPECT_EQ(*run.metrics.get(Metric::CollectivesStragglerLastPct), 100);
  EXPECT_EQ(*run.metrics.get(Metric::CollectivesStragglerDelayUs), 300);
}

// The late rank is named by the straggler finding and the communication finding (which advises
// finding the straggler, not compressing gradients), and by the stragglers table. Communication
// share: ranks 0-2 2400 of 7000 us, rank 3 600: (3 x 34.29 + 8.57) / 4 = 27.9% > 10%.
TEST(CollectiveMatching, TheFindingsNameTheLateRank) {
  ReportModel report = report_of_files({write_late_rank_run(temp_dir() + "/late-findings")}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* straggler = find_finding(report, "communication.straggler");
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(straggler->status, FindingStatus::Warn);
  EXPECT_NE(straggler->problem.find("rank 3 started last in 100.0%"), std::string::npos)
      << straggler->problem;
  const ReportFinding* high = find_finding(report, "communication.high");
  ASSERT_NE(high, nullptr);
  EXPECT_EQ(high->status, FindingStatus::Warn);
  EXPECT_NE(high->recommendation.find("rank 3 started last"), std::string::npos) << high->recommendation;
  EXPECT_EQ(high->recommendation.find("DDP communication hooks"), std::string::npos) << high->recommendation;
  const ReportTable* late = find_table(report.tables, "stragglers");
  ASSERT_NE(late, nullptr);
  ASSERT_EQ(late->rows.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(*find_cell(*late, 0, "rank")), 3);
  EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*late, 0, "mean_delay_us")), 300);
}

// Without a late rank every rank takes 100 us: nothing waits (0%), and the advice is about moving
// data. At 40 GB/s x 5.75 / 6 = 38.3 GB/s of bus bandwidth (not low), with all-reduce 1/6 of the
// transfer, it is the general transfer advice, not compression.
TEST(CollectiveMatching, OnTimeRanksTransferOnly) {
  std::string dir = write_late_rank_run(temp_dir() + "/on-time", -1);
  RunAnalysis run = analyse_run(load_run({dir}), default_classification(), {});
  EXPECT_EQ(*run.metrics.get(Metric::CollectivesWaitPct), 0);
  EXPECT_FALSE(run.metrics.get(Metric::CollectivesStragglerRank));
  for (const RankCommunicationRow& r : run.collectives.ranks) EXPECT_EQ(r.last_arrivals, 0u);
}

// One rank's trace: nothing to match against, so no waiting share and no compression advice; the
// communication finding says what cannot be known.
TEST(CollectiveMatching, OneRankCannotTellWaitingFromTransfer) {
  std::string dir = write_late_rank_run(temp_dir() + "/one-of-four");
  ReportModel report = report_of_files({dir + "/rank-0.json"}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* high = find_finding(report, "communication.high");
  ASSERT_NE(high, nullptr);
  EXPECT_EQ(high->status, FindingStatus::Warn);
  EXPECT_NE(high->recommendation.find("cannot be told from one rank's trace"), std::string::npos)
      << high->recommendation;
  EXPECT_EQ(high->recommendation.find("DDP communication hooks"), std::string::npos);
  const ReportFinding* straggler = find_finding(report, "communication.straggler");
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(straggler->status, FindingStatus::NotApplicable);
}

// The fold does not depend on the order ranks come in, nor on how they are split into parts.
TEST(CollectiveMatching, FoldOrderAndPartsGiveOneResult) {
  RunAnalysis whole = late_rank_run();
  std::string dir = write_late_rank_run(temp_dir() + "/late-parts");
  LoadedRun loaded = load_run({dir});
  RunAnalysis one = analyse_run(loaded, default_classification(), {});
  ASSERT_EQ(one.workers.size(), 4u);
  // Rank 3 and 1 first, as one part; 0 and 2 as another, added first.
  WorkerAnalyser analyse(default_classification(), {});
  RunCombiner a(0), b(0), run(0);
  a.add({3, 0}, analyse(loaded.workers.at(3)));
  a.add({1, 0}, analyse(loaded.workers.at(1)));
  b.add({2, 0}, analyse(loaded.workers.at(2)));
  b.add({0, 0}, analyse(loaded.workers.at(0)));
  run.add(b.finish_partial());
  run.add(a.finish_partial());
  RunAnalysis merged = run.finish();
  EXPECT_EQ(merged.metrics.get(Metric::CollectivesWaitPct), whole.metrics.get(Metric::CollectivesWaitPct));
  EXPECT_EQ(merged.metrics.get(Metric::CollectivesStragglerRank),
            whole.metrics.get(Metric::CollectivesStragglerRank));
  ASSERT_EQ(merged.collectives.ranks.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(merged.collectives.ranks[r].wait, whole.collectives.ranks[r].wait);
    EXPECT_EQ(merged.collectives.ranks[r].late, whole.collectives.ranks[r].late);
    EXPECT_EQ(merged.collectives.ranks[r].last_arrivals, whole.collectives.ranks[r].last_arrivals);
  }
}

}  // namespace
}  // namespace perfgate::testing
