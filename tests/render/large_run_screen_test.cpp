// Issue 40, item 12: a large run's first screen and terminal summary show the spread of its GPUs
// and its slowest and fastest ranks, not a line per GPU and worker, and one tie rule (the first
// worker) names the same slowest rank everywhere.
#include <gtest/gtest.h>

#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// 12 ranks: rank-3 and rank-9 tie as the slowest (950 us steps), rank-5 and rank-7 as the fastest
// (850 us), the others 900 us. The first of each tie is named: rank 3 and rank 5 (before issue 40
// ranks.slowest took the last of the tie, rank 9, while the timeline named rank-3).
double paced(int rank) {
  return rank == 3 || rank == 9 ? 950 : rank == 5 || rank == 7 ? 850 : 900;
}

TEST(LargeRunScreen, OneTieRuleNamesTheSlowestAndFastestRanks) {
  std::string dir = write_paced_ranks(temp_dir() + "/ranks12", 12, paced, 2000);
  ReportModel report = report_of_files({dir}, default_book());
  EXPECT_EQ(*report.metrics.get(Metric::RanksSlowest), 3);
  EXPECT_EQ(*report.metrics.get(Metric::RanksFastest), 5);
  ASSERT_NE(slowest_worker(report), nullptr);
  EXPECT_EQ(slowest_worker(report)->name, "rank-3");
  EXPECT_EQ(fastest_worker(report)->name, "rank-5");
  // 12 GPUs, each with kernels of (step - 40) us in 3 steps over the window: the spread, not each.
  std::string terminal = render_terminal(report);
  EXPECT_EQ(terminal.find("GPU 0:"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("12 GPUs: Lowest GPU utilization"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("12: slowest rank-3 (mean step 950"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("fastest rank-5 (850"), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find("Worker  "), std::string::npos);
  std::string page = render_html(report).page;
  EXPECT_NE(page.find("slowest rank 3, fastest rank 5 by mean step"), std::string::npos);
  EXPECT_NE(page.find("The slowest is rank 3"), std::string::npos);
  EXPECT_EQ(page.find("The slowest is rank 9"), std::string::npos);
}

// Up to 8 workers every GPU and worker keeps its line.
TEST(LargeRunScreen, ASmallRunListsEachGpuAndWorker) {
  std::string dir = write_paced_ranks(temp_dir() + "/ranks4", 4, paced, 2000);
  std::string terminal = render_terminal(report_of_files({dir}, default_book()));
  EXPECT_NE(terminal.find("rank-3 GPU 0:"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("rank-2: 3 steps"), std::string::npos) << terminal;
}

}  // namespace
}  // namespace perfgate::testing
