// --threads changes how a run is computed (a trace parsed in pieces, a worker's analysis stages
// side by side), never what it reports: the JSON report is the same byte for byte.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

void expect_same_report_at_any_thread_count(const std::string& input, const std::string& name) {
  std::string dir = temp_dir();
  std::vector<std::string> args;
  for (int threads : {1, 2, 5})
    args.push_back(fmt::format("analyze '{}' --threads {} --fail-on never --json '{}/{}-{}.json' -q", input,
                               threads, dir, name, threads));
  std::vector<CommandResult> runs = run_perfgate_all(args);
  for (const CommandResult& r : runs) ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string one = read_text(fmt::format("{}/{}-1.json", dir, name));
  ASSERT_GT(one.size(), 1000u);
  EXPECT_EQ(read_text(fmt::format("{}/{}-2.json", dir, name)), one) << name;
  EXPECT_EQ(read_text(fmt::format("{}/{}-5.json", dir, name)), one) << name;
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

TEST(ThreadsCli, AThreadCountIsANumber) {
  CommandResult r = run_perfgate("analyze x.json --threads many");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--threads"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace perfgate::testing
