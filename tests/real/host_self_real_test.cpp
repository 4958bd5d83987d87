// Host self time on real files against tests/real/host_self_expected.py, an independent tree of each
// thread's ranges (the TB plugin's definition: a runtime call is a child of the innermost range in
// time). Two shapes made it negative: a call whose External id names an outer op while it lies inside
// that op's child (a100_alexnet: aten::_to_copy > aten::copy_ > cudaMemcpyAsync, -1,726 us), and an
// XSpace reader's TPU Execute, a range made a call to own its programs, taken from itself
// (-49,811,101 us); and a launch that holds ranges of its own (the XSpace reader's command-buffer
// ops, slices of the launch) taken from the range around it as well as those slices (tests/data's
// h100_jax_block: command_buffer_1 -1,340.562 us). The script agrees with every row: 37 on
// a100_alexnet, 326 on the TPU file, 31 of h100_jax_block's 83 (the others are the reader's).
#include <gtest/gtest.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

void expect_no_negative_self(const WorkerAnalysis& w) {
  for (const OpRow& row : w.tables.ops) EXPECT_GE(row.host_self, 0) << row.name;
}

TEST(HostSelfReal, ACopyInsideItsChildIsTheChildsSelfTime) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/a100_alexnet.json.gz"}, load_options_for(default_classification()));
  WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
  const OpRow* to_copy = find_op(w.tables.ops, "aten::_to_copy");
  const OpRow* copy = find_op(w.tables.ops, "aten::copy_");
  ASSERT_TRUE(to_copy && copy);
  EXPECT_EQ(to_copy->host_self, 192'000);  // ns; the script: 192 us, 257 us
  EXPECT_EQ(copy->host_self, 257'000);
  expect_no_negative_self(w);
}

TEST(HostSelfReal, ATpuExecuteKeepsItsOwnTime) {
  std::string path = shared_reference("tpu/tpu_v6e_inference_xprof.xplane.pb");
  if (path.empty()) GTEST_SKIP() << "../shared/references/tpu is absent";
  LoadedRun run = load_run({path}, load_options_for(default_classification()));
  WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
  const OpRow* scheduled = find_op(w.tables.ops, "Scheduled TfrtTpuLoadedExecutable::Execute");
  const OpRow* helper = find_op(w.tables.ops, "TfrtTpuLoadedExecutable::ExecuteHelperOnSingleDevice");
  ASSERT_TRUE(scheduled && helper);
  EXPECT_EQ(scheduled->host_self, 7'338'313'799);  // the script: 7,338,313.799 us of 228,623,991.644
  EXPECT_EQ(helper->host_self, 2'670);             // 2.67 us of 723.92
  expect_no_negative_self(w);
}

// command_buffer_1 [2,632.065 us in 6 calls] > command_buffer::execute (1,621.11) and ::update (974.7):
// 36.255 us of its own. command_buffer::execute: 244.293 us by the script, 12 ns more here, the 1 ns
// the reader leaves at each end of each of the 6 launches it slices.
TEST(HostSelfReal, ALaunchHoldingItsOpsIsNotTakenTwice) {
  LoadedRun run = load_run({std::string(PERFGATE_SOURCE_DIR) + "/tests/data/h100_jax_block.xplane.pb.gz"},
                           load_options_for(default_classification()));
  WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
  const OpRow* thunk = find_op(w.tables.ops, "command_buffer_1");
  const OpRow* execute = find_op(w.tables.ops, "command_buffer::execute");
  ASSERT_TRUE(thunk && execute);
  EXPECT_EQ(thunk->host_self, 36'255);
  EXPECT_EQ(execute->host_self, 244'293 + 12);
  expect_no_negative_self(w);
}

}  // namespace
}  // namespace perfgate::testing
