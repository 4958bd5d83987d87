// Issue 29, items 1 and 4: findings follow the evidence. What a finding names as the cause is what
// its metric counted; its estimated gain is bounded by the time removing the cause could save.
#include <gtest/gtest.h>

#include "perfgate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// An A100 step [0,1000] us: aten::mm runs twice, once on a Tensor Core kernel (40 us) and once on
// an FP32 SIMT kernel (60 us). By name the op "uses Tensor Cores", but one of its calls did not:
// tensor_core.eligible_ops_not_using_tc counts it, so the finding must name it with that call's 60 us.
TEST(FindingEvidence, TheEligibleOpsFindingNamesTheOpsItCounts) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80LL << 30, 108);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 50, 1).launch("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", 11, 100, 40, 1);
  t.op("aten::mm", 200, 50, 2).launch("sgemm_128x64_nn", 201, 300, 60, 2);
  ReportModel report = report_of_json(t.json(), default_rules());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* f = find_finding(report, "tensor-cores.eligible-ops");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn);
  EXPECT_EQ(*f->value, 1);
  ASSERT_EQ(f->offenders.size(), 1u) << f->problem;
  EXPECT_EQ(f->offenders[0].label, "aten::mm");
  EXPECT_DOUBLE_EQ(*f->offenders[0].value, 60);
  EXPECT_EQ(f->problem.find("none"), std::string::npos) << f->problem;
}

}  // namespace
}  // namespace perfgate::testing
