#include <gtest/gtest.h>

#include <numeric>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

double part_us(const Step& s, BreakdownPart p) {
  return static_cast<double>(s.breakdown[static_cast<std::size_t>(p)]) / 1000.0;
}

// One step [0,100] µs:
//   [0,5] CPU op   [5,9] runtime calls   [9,10] nothing   [10,40] kernels on two streams
//   [40,50] memcpy [50,55] memset        [55,60] nothing  [60,70] data loader
//   [70,80] CPU op [80,100] nothing, with a zero-length runtime call at 90.
std::string one_step_trace() {
  TraceBuilder t;
  t.step(1, 0, 100);
  t.op("aten::add", 0, 5);
  t.runtime("cudaLaunchKernel", 5, 1, 1).kernel("k_stream7", 10, 20, 1, 0, 7);
  t.runtime("cudaLaunchKernel", 6, 1, 2).kernel("k_stream8", 20, 20, 2, 0, 8);
  t.runtime("cudaMemcpyAsync", 7, 1, 3).memcpy("Memcpy HtoD (Pinned -> Device)", 35, 15, 3);
  t.runtime("cudaMemsetAsync", 8, 1, 4).memset(45, 10, 4);
  t.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 60, 10);
  t.op("aten::mul", 65, 15);
  t.runtime("cudaGetDevice", 90, 0, 5);
  return t.json();
}

TEST(Breakdown, SplitsAStepExclusivelyInPriorityOrder) {
  WorkerAnalysis w = analyse_json(one_step_trace());
  ASSERT_EQ(w.steps.steps.size(), 1u);
  const Step& s = w.steps.steps[0];
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Kernel), 30);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Memcpy), 10);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Memset), 5);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Communication), 0);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Runtime), 4);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::DataLoader), 10);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::CpuExec), 15);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Other), 26);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::BreakdownKernelPct), 30);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::BreakdownOtherUs), 26);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::BreakdownDataloaderPct), 10);
}

TEST(Breakdown, PartsSumToTheStepInBothSchemas) {
  for (Schema schema : {Schema::Current, Schema::Legacy}) {
    TraceBuilder t(schema);
    for (int i = 0; i < 3; ++i) {
      double base = i * 1000.0;
      t.step(i, base, 700).op("aten::conv2d", base + 10, 300, 100 + i);
      t.launch("k", base + 20, base + 200, 600, 100 + i);
      t.op("aten::relu", base + 400, 30);
    }
    WorkerAnalysis w = analyse_json(t.json());
    for (const Step& s : w.steps.steps) {
      TimeNs sum = std::accumulate(s.breakdown.begin(), s.breakdown.end(), TimeNs{0});
      EXPECT_EQ(sum, s.duration());
    }
    double pct = 0;
    for (Metric share :
         {Metric::BreakdownKernelPct, Metric::BreakdownMemcpyPct, Metric::BreakdownMemsetPct,
          Metric::BreakdownCommunicationPct, Metric::BreakdownRuntimePct, Metric::BreakdownDataloaderPct,
          Metric::BreakdownCpuExecPct, Metric::BreakdownOtherPct})
      pct += w.metrics.get(share).value_or(0);
    EXPECT_NEAR(pct, 100, 1e-9);
  }
}

// A kernel launched by a call that straddles the end of step 1 is in no step's GPU work, so it
// does not extend step 1: its time splits across the boundary at 100.
TEST(Breakdown, AKernelSpanningAStepBoundarySplitsAcrossBothSteps) {
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 100);
  t.launch("in_step_1", 10, 20, 10);
  t.runtime("cudaLaunchKernel", 99, 2, 900).kernel("straddling", 95, 15, 900, 0, 8);
  t.launch("in_step_2", 150, 160, 10);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(part_us(w.steps.steps[0], BreakdownPart::Kernel), 15);  // [20,30] + [95,100]
  EXPECT_DOUBLE_EQ(part_us(w.steps.steps[1], BreakdownPart::Kernel), 20);  // [100,110] + [160,170]
}

TEST(Breakdown, NestedOpsCountOnce) {
  TraceBuilder t;
  t.step(1, 0, 100).op("aten::linear", 10, 50).op("aten::t", 12, 5).op("aten::addmm", 20, 30);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(part_us(w.steps.steps[0], BreakdownPart::CpuExec), 50);
}

// record_param_comms [10,15] launches an NCCL kernel [20,50]; nccl:all_reduce [60,65] (ext id 8)
// launches a copy kernel [70,80]. Default rules: both kernels are communication, 30 + 10 = 40 µs;
// the ops' own host time is host time (issue 72, item 6: before, 5 + 30 + 5 + 10 = 50 µs), less
// their two 1-µs launch calls, runtime: 4 + 4 µs of CPU exec. The plugin's rules: only
// nccl:all_reduce and the kernel it launched (15 µs); the NCCL kernel is an ordinary kernel (30 µs).
TEST(Breakdown, CommunicationKernelsByNameOrByTheirOp) {
  TraceBuilder t;
  t.step(1, 0, 100);
  t.op("record_param_comms", 10, 5, 7).launch("ncclKernel_AllReduce_RING_LL_Sum_float", 11, 20, 30, 7);
  t.annotation("nccl:all_reduce", 60, 5, 8).op("aten::copy_", 60, 4, 9).launch("copy_kernel", 61, 70, 10, 8);
  WorkerAnalysis w = analyse_json(t.json());
  const Step& s = w.steps.steps[0];
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Communication), 40);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Kernel), 0);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::Runtime), 2);
  EXPECT_DOUBLE_EQ(part_us(s, BreakdownPart::CpuExec), 8);
  WorkerAnalysis plugin = analyse_json(t.json(), {}, {"tb-plugin"});
  EXPECT_DOUBLE_EQ(part_us(plugin.steps.steps[0], BreakdownPart::Kernel), 30);
  EXPECT_DOUBLE_EQ(part_us(plugin.steps.steps[0], BreakdownPart::Communication), 15);
  EXPECT_DOUBLE_EQ(part_us(plugin.steps.steps[0], BreakdownPart::Runtime), 1);
}

}  // namespace
}  // namespace perfgate::testing
