// The job's critical path through collectives (analyse/critical_path/job_critical_path.h), worked out by hand
// on the late-rank run (write_late_rank_run): 4 ranks, step 1 from 0 to 7000 us on each; 6 collectives, the
// k-th launched at 1000k + 952 us on every rank and ending at 1000k + 1400 us, its kernel starting at 1000k +
// 1000 us, 300 us later on the late rank (so its transfer, the shortest duration, is 100 us).
#include <gtest/gtest.h>

#include "analyse/critical_path/job_critical_path.h"
#include "gate/gate.h"
#include "render/cell_format.h"
#include "render/format.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr TimeNs kUs = 1000;

RunAnalysis late_rank_run(int late) {
  std::string dir = write_late_rank_run(temp_dir() + "/late", late);
  return analyse_run(load_run({dir}), default_classification(), {});
}

// The path: the late rank from its step start to the first collective's last arrival (1300), then
// per collective its 100 us transfer and the late rank's 900 us up to the next last arrival (5 x
// 900), and after the last collective's end (6400) the last-ending rank's 600 us: every rank ends
// at 7000, so the first worker (rank 0) on the tie. 1300 + 4500 + 600 + 600 = 7000.
TEST(JobCriticalPath, TheLateRankDecidesTheStepsPath) {
  RunAnalysis run = late_rank_run(2);
  ASSERT_EQ(run.job_path.size(), 1u);
  const JobPathStep& s = run.job_path.front();
  EXPECT_EQ(s.step, 1);
  EXPECT_EQ(s.collectives, 6u);
  EXPECT_EQ(s.length, 7000 * kUs);
  EXPECT_EQ(s.communication, 600 * kUs);
  ASSERT_EQ(s.decided.size(), 4u);
  EXPECT_EQ(s.decided[0], 600 * kUs);
  EXPECT_EQ(s.decided[1], 0);
  EXPECT_EQ(s.decided[2], 5800 * kUs);
  EXPECT_EQ(s.decided[3], 0);
  EXPECT_DOUBLE_EQ(*run.metrics.get(Metric::CriticalPathJobLengthUs), 7000.0);
  EXPECT_DOUBLE_EQ(*run.metrics.get(Metric::CriticalPathJobBoundingRank), 2.0);
  EXPECT_DOUBLE_EQ(*run.metrics.get(Metric::CriticalPathJobBoundingRankPct), 100.0 * 5800 / 7000);
  EXPECT_DOUBLE_EQ(*run.metrics.get(Metric::CriticalPathJobCommunicationPct), 100.0 * 600 / 7000);
}

// The report's tables name the bounding rank per step and each rank's share.
TEST(JobCriticalPath, TablesNameTheBoundingRank) {
  std::string dir = write_late_rank_run(temp_dir() + "/late", 1);
  ReportModel report = report_of_files({dir}, default_book());
  const ReportTable* steps = find_table(report.tables, "job_critical_path");
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->rows.size(), 1u);
  EXPECT_EQ(text_at(*steps, 0, "bounding_worker"), "rank-1");
  EXPECT_DOUBLE_EQ(number_at(*steps, 0, "bounding_us"), 5800.0);
  EXPECT_DOUBLE_EQ(number_at(*steps, 0, "length_us"), 7000.0);
  // What bounds it on the late rank: its own path's top ops, its collective kernels among them.
  EXPECT_NE(text_at(*steps, 0, "bounding_ops").find("ncclDevKernel_"), std::string::npos)
      << text_at(*steps, 0, "bounding_ops");
  const ReportTable* ranks = find_table(report.tables, "job_critical_path_ranks");
  ASSERT_TRUE(ranks);
  ASSERT_EQ(ranks->rows.size(), 4u);
  EXPECT_DOUBLE_EQ(number_at(*ranks, 1, "decided_us"), 5800.0);
  EXPECT_DOUBLE_EQ(number_at(*ranks, 1, "steps_bounded"), 1.0);
  EXPECT_DOUBLE_EQ(number_at(*ranks, 0, "decided_us"), 600.0);
}

// One rank has no job path to run through.
TEST(JobCriticalPath, OneRankHasNone) {
  TraceBuilder t;
  t.step(1, 0, 100).op("A", 0, 20);
  ReportModel report = report_of_json(t.json(), default_book());
  EXPECT_FALSE(report.metrics.get(Metric::CriticalPathJobLengthUs).has_value());
}

}  // namespace
}  // namespace perfgate::testing
