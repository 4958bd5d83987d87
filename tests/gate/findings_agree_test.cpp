// Issue 72, item 8: findings that read the same idle time give advice that agrees. Where the GPUs
// had work queued (launched, not started) for most of their idle time, the host's calls waited for
// that work: host.runtime-share, gpu.low-utilization and critical-path.cpu-bound do not then tell
// the user to cut launch overhead or synchronising calls (gpu.idle and host.blocking-copy say that
// would not shorten the wait), and host.runtime-share's gain is the idle the host caused.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// An A100, one step of 510 ms. A kernel launched at 10 us is queued until it runs [500, 505] ms (a
// stream waiting on something no recorded work shows); a blocking cudaMemcpy [100 us, 505.02 ms]
// waits for it, then copies 60 bytes host to device [505.01, 505.02] ms. The GPU is idle 505.0 ms
// (99.0% of the step), with work queued 499.99 ms of it (99.0%): the host caused about 1% of the
// step's idle, where the runtime call covers 98.9% of the step with no GPU work running.
std::string queued_wait() {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, 108);
  t.step(1, 0, 510000);
  t.op("aten::mul", 5, 10, 1, 1);
  t.launch("vectorized_elementwise_kernel", 10, 500000, 5000, 1);
  t.op("aten::copy_", 90, 504940, 2, 1);
  t.runtime("cudaMemcpy", 100, 504920, 5000, 2);
  t.memcpy("Memcpy HtoD (Pageable -> Device)", 505010, 10, 5000, 0, 7, 60);
  return t.json();
}

TEST(FindingsAgree, QueuedWaitSilencesHostRemedies) {
  ReportModel report = report_of_json(queued_wait(), default_book());
  std::optional<double> idle = report.metric(Metric::GpuIdlePct);
  std::optional<double> queued = report.metric(Metric::GpuIdleQueuedPct);
  ASSERT_TRUE(idle && queued);
  EXPECT_NEAR(*idle, 100.0 * (510000 - 5010) / 510000, 0.05);
  EXPECT_GT(*queued, 98.0);
  apply_gate(report, default_rules(), nullptr, {});

  const ReportFinding* runtime = find_finding(report, "host.runtime-share");
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->status, FindingStatus::Warn) << runtime->reason;
  EXPECT_EQ(runtime->recommendation.find("CUDA graphs or torch.compile, and avoid"), std::string::npos)
      << runtime->recommendation;
  EXPECT_NE(runtime->recommendation.find("work queued"), std::string::npos) << runtime->recommendation;
  // The gain is the idle the host caused (about 1% of the step), not the runtime share (98.9%).
  ASSERT_TRUE(runtime->gain_pct);
  EXPECT_NEAR(*runtime->gain_pct, *idle * (100 - *queued) / 100, 1e-9);
  EXPECT_LT(*runtime->gain_pct, 2.0);

  const ReportFinding* low = find_finding(report, "gpu.low-utilization");
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(low->recommendation.find("Remove the largest non-GPU part"), std::string::npos)
      << low->recommendation;
  const ReportFinding* idle_finding = find_finding(report, "gpu.idle");
  ASSERT_NE(idle_finding, nullptr);
  EXPECT_NE(idle_finding->recommendation.find("will not shorten these gaps"), std::string::npos)
      << idle_finding->recommendation;
}

// Without queued work the same rules keep their host remedies: the same step with the kernel
// started at once and the host busy in the copy's call for a pageable copy that the GPU runs late.
TEST(FindingsAgree, HostCausedIdleKeepsTheHostRemedies) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, 108);
  t.step(1, 0, 510000);
  t.op("aten::mul", 5, 10, 1, 1);
  t.launch("vectorized_elementwise_kernel", 10, 20, 5000, 1);
  for (int i = 0; i < 1000; ++i) t.runtime("cudaStreamQuery", 6000 + 500 * i, 480, 6000 + i, 0);
  ReportModel report = report_of_json(t.json(), default_book());
  ASSERT_TRUE(report.metric(Metric::GpuIdleQueuedPct));
  EXPECT_LT(*report.metric(Metric::GpuIdleQueuedPct), 1.0);
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* runtime = find_finding(report, "host.runtime-share");
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->status, FindingStatus::Warn) << runtime->reason;
  EXPECT_NE(runtime->recommendation.find("use CUDA graphs or torch.compile"), std::string::npos)
      << runtime->recommendation;
  ASSERT_TRUE(runtime->gain_pct);
  EXPECT_NEAR(*runtime->gain_pct, *report.metric(Metric::BreakdownRuntimePct), 1e-9);
}

}  // namespace
}  // namespace perfgate::testing
