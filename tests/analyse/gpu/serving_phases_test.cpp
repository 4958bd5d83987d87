// Issue 53, item 2: the phase of a serving step from the framework's own annotation (rules:
// serving_phases), and decode judged by memory bandwidth (MBU), not MFU.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// SGLang's execute annotations as serving steps: a decode batch [0, 1000] us (context 0, generation
// 32) and a prefill batch [1000, 1300] (context 64, generation 0), each with one kernel inside.
// Decode 1000 of 1300 us: 76.923%; prefill 300 us: 23.077%; mixed 0.
TEST(ServingPhases, TheExecuteAnnotationNamesEachStepsPhase) {
  TraceBuilder t;
  t.annotation("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk100sqsq32sqsk100)", 0, 1000);
  t.launch("decode_kernel", 10, 20, 500);
  t.annotation("execute_64_context_64(sq64sk64sqsq64sqsk64)_generation_0(sq0sk0sqsq0sqsk0)", 1000, 300);
  t.launch("prefill_kernel", 1010, 1020, 200);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.window.steps.size(), 2u);
  EXPECT_NEAR(*w.metrics.get(Metric::ServingDecodePct), 100.0 * 1000 / 1300, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::ServingPrefillPct), 100.0 * 300 / 1300, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ServingMixedPct), 0);
}

// One SGLang decode step step[DECODE bs=32] [0, 1000] us on an H100 SXM (memory 3,350 GB/s): an
// aten::add of two [4096, 4096] BF16 tensors, a 100 us kernel, moves 3 x 4096^2 x 2 = 100,663,296
// bytes = 30.0487 us at the bandwidth. The roofline table models all the kernel time (coverage
// 100%), so MBU = 30.0487 / 1000 us = 3.0049%. MFU does not judge a decode step; MBU does.
std::string decode_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.annotation("step[DECODE bs=32]", 0, 1000);
  t.op("aten::add", 100, 30, 2, 1,
       std::string(R"("Input Dims": [[4096, 4096], [4096, 4096], []], )") +
           R"("Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  t.launch("vectorized_elementwise_kernel", 110, 300, 100, 2);
  return t.json();
}

TEST(ServingPhases, DecodeIsJudgedByBandwidthNotFlops) {
  WorkerAnalysis w = analyse_json(decode_trace());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ServingDecodePct), 100);
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMbuPct), 100.0 * (100663296.0 / 3350e9) / 1000e-6, 1e-6);
  ReportModel report = report_of_json(decode_trace(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* mfu = find_finding(report, "compute.low-mfu");
  ASSERT_NE(mfu, nullptr);
  EXPECT_EQ(mfu->status, FindingStatus::NotApplicable);
  const ReportFinding* mbu = find_finding(report, "compute.low-mbu");
  ASSERT_NE(mbu, nullptr);
  EXPECT_EQ(mbu->status, FindingStatus::Warn) << mbu->reason;
  EXPECT_NE(mbu->problem.find("Decode steps are 100.0% of the window"), std::string::npos) << mbu->problem;
}

}  // namespace
}  // namespace perfgate::testing
