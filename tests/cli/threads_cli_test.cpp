// --threads changes how a run is computed (a trace parsed in pieces, a worker's analysis stages
// side by side), never what it reports: the JSON report is the same byte for byte.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string expect_same_report_at_any_thread_count(const std::string& input, const std::string& name,
                                                   const std::string& options = "") {
  std::string dir = temp_dir();
  std::vector<std::string> args;
  for (int threads : {1, 2, 5})
    args.push_back(fmt::format("analyze '{}' {} --threads {} --fail-on never --json '{}/{}-{}.json' -q",
                               input, options, threads, dir, name, threads));
  std::vector<CommandResult> runs = run_perfgate_all(args);
  for (const CommandResult& r : runs) EXPECT_EQ(r.exit_code, 0) << r.out;
  std::string one = read_text(fmt::format("{}/{}-1.json", dir, name));
  EXPECT_GT(one.size(), 1000u);
  EXPECT_EQ(read_text(fmt::format("{}/{}-2.json", dir, name)), one) << name;
  EXPECT_EQ(read_text(fmt::format("{}/{}-5.json", dir, name)), one) << name;
  return one;
}

TEST(ThreadsCli, TheReportDoesNotDependOnTheThreadCount) {
  expect_same_report_at_any_thread_count(
      std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz", "example");
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  expect_same_report_at_any_thread_count(dir + "/resnet50_v100_workers0.pt.trace.json.gz", "resnet");
  expect_same_report_at_any_thread_count(dir + "/a100_nccl_rank0.json.gz", "nccl");
  expect_same_report_at_any_thread_count(dir + "/nsys/h100x2_fsdp_training_before.sqlite", "nsys");
  expect_same_report_at_any_thread_count(dir + "/distributed_128ranks_sampled", "folder");
}

// Workers finish in any order on several threads; which keep their tables and the run's sums do
// not depend on it (8 workers of different speeds, 3 kept whole).
TEST(ThreadsCli, TheDetailedWorkersDoNotDependOnTheThreadCount) {
  std::string dir = write_paced_ranks(
      temp_dir(), 8, [](int rank) { return 500.0 + 37 * ((rank * 5) % 8); }, 1000);
  std::string report = expect_same_report_at_any_thread_count(dir, "ranks", "--detailed-workers 3");
  EXPECT_NE(report.find("\"detailed\": false"), std::string::npos);
  // Mean steps 500 + 37 x (5 x rank mod 8) us: rank-0 is the fastest, rank-3 the slowest, rank-5 next
  // fastest.
  EXPECT_NE(report.find("\"detailed_as\": \"first and fastest\""), std::string::npos);
  EXPECT_NE(report.find("\"detailed_as\": \"2nd fastest\""), std::string::npos);
  EXPECT_NE(report.find("\"detailed_as\": \"slowest\""), std::string::npos);
}

TEST(ThreadsCli, AThreadCountIsANumber) {
  CommandResult r = run_perfgate("analyze x.json --threads many");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--threads"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace perfgate::testing
