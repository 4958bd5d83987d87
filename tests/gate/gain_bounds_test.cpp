// Issue 72, item 4: a finding's gain is at most what its cause could save. A blocking copy that is
// itself the GPU's work (the GPU ran the copy while the host waited) frees the host, not the GPU:
// its gain is the GPU idle time while it held the host, not its whole duration.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// P4 of the plan: an A100, one 570 ms step. 99 aten::mul launch 990 us kernels every 1,000 us from
// 1 ms; then aten::copy_ calls cudaMemcpy [100,010, 372,010] us, whose device-to-host copy of 2 GiB
// into pageable memory runs [100,500, 371,700] on the GPU; 190 more muls from 372.3 ms, every
// 1,040 us. The copy holds the host 272 ms (47.72% of the step); the GPU is idle 490 + 310 = 800 us
// of it (0.294%): removing the wait could save at most 47.72 x 0.294% = 0.140% of the step.
std::string copy_that_is_gpu_work() {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, 108);
  t.step(1, 0, 570000);
  const char* args = R"("Input Dims": [[1024, 1024], [1024, 1024]], "Input type": ["float", "float"])";
  std::int64_t ext = 1;
  for (int i = 0; i < 99; ++i, ++ext) {
    t.op("aten::mul", 990 + 1000 * i, 8, ext, 1, args);
    t.launch("vectorized_elementwise_kernel", 992 + 1000 * i, 1000 + 1000 * i, 990, ext);
  }
  t.op("aten::copy_", 100000, 272100, ext, 1);
  t.runtime("cudaMemcpy", 100010, 272000, 5000, ext);
  t.memcpy("Memcpy DtoH (Device -> Pageable)", 100500, 271200, 5000, 0, 7, 2147483648LL);
  t.runtime("cudaStreamSynchronize", 372020, 5, 5001);
  ++ext;
  for (int i = 0; i < 190; ++i, ++ext) {
    t.op("aten::mul", 372200 + 1040 * i, 8, ext, 1, args);
    t.launch("vectorized_elementwise_kernel", 372202 + 1040 * i, 372300 + 1040 * i, 990, ext);
  }
  return t.json();
}

TEST(GainBounds, BlockingCopyThatIsGpuWorkGainsOnlyItsIdle) {
  ReportModel report = report_of_json(copy_that_is_gpu_work(), default_book());
  ASSERT_NEAR(*report.metric(Metric::HostBlockingCopyPct), 100.0 * 272000 / 570000, 0.01);
  ASSERT_NEAR(*report.metric(Metric::HostBlockingCopyGpuIdlePct), 100.0 * 800 / 272000, 0.01);
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* copy = find_finding(report, "host.blocking-copy");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->status, FindingStatus::Warn) << copy->reason;
  ASSERT_TRUE(copy->gain_pct);
  EXPECT_NEAR(*copy->gain_pct, 100.0 * 272000 / 570000 * 800 / 272000, 0.01);  // 0.140%, not 47.7%
  EXPECT_NE(copy->recommendation.find("frees the host, not the GPU"), std::string::npos)
      << copy->recommendation;
}

}  // namespace
}  // namespace perfgate::testing
