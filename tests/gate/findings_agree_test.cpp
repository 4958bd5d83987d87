// Issue 72, item 8: findings that read the same idle time give advice that agrees. Where the GPUs
// had work queued (launched, not started) for most of their idle time, the host's calls waited for
// that work: host.runtime-share, gpu.low-utilization and critical-path.cpu-bound do not then tell
// the user to cut launch overhead or synchronising calls (gpu.idle and host.blocking-copy say that
// would not shorten the wait), and host.runtime-share's gain is the idle the host caused.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "gate/gate.h"
#include "gate/rules.h"
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
  // cudaStreamQuery launches nothing: the host remedy is the one for runtime calls that launch no
  // work, never CUDA graphs (issue 89).
  EXPECT_NE(runtime->recommendation.find("calls that launch no work"), std::string::npos)
      << runtime->recommendation;
  EXPECT_EQ(runtime->recommendation.find("Launch overhead or synchronisation dominates"), std::string::npos)
      << runtime->recommendation;
  ASSERT_TRUE(runtime->gain_pct);
  EXPECT_NEAR(*runtime->gain_pct, *report.metric(Metric::BreakdownRuntimePct), 1e-9);
  EXPECT_FALSE(runtime->recommendation.starts_with("Deferred to")) << runtime->recommendation;
}

// The post-pass for every cause (gate/agreement.h): queued work is the main cause of the idle time,
// but under the 90% at which host.runtime-share words itself for it. An A100, one step of 100 ms: a
// kernel launched at 10 us runs at once [20, 30] (the clocks agree); a second, launched at 45 us, is
// queued until it runs [60000, 60100]; then the host polls in 79 cudaStreamQuery calls [60200 + 500 i,
// +480]. The GPU is idle 99,890 us (99.89%: [0, 20], [30, 60000], [60100, 100000]), with work queued
// 59,954 us of it (from the launch call's return at 46 us): 60.02% of the idle, 59.96% of the window,
// against the 37.9% the host spent in runtime calls. gpu.idle says the queued work waited on
// something other than the host; host.runtime-share's host remedies (CUDA graphs, fewer syncs)
// claim the same idle time with weaker evidence: it defers to gpu.idle, says so, and its gain is
// withheld.
TEST(FindingsAgree, TheWeakerOfTwoOpposedCausesDefers) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, 108);
  t.step(1, 0, 100000);
  t.op("aten::mul", 5, 10, 1, 1);
  t.launch("vectorized_elementwise_kernel", 10, 20, 10, 1);
  t.op("aten::add", 40, 10, 2, 1);
  t.launch("vectorized_elementwise_kernel", 45, 60000, 100, 2);
  for (int i = 0; i < 79; ++i) t.runtime("cudaStreamQuery", 60200 + 500 * i, 480, 5000 + i, 0);
  ReportModel report = report_of_json(t.json(), default_book());
  std::optional<double> idle = report.metric(Metric::GpuIdlePct);
  std::optional<double> queued = report.metric(Metric::GpuIdleQueuedPct);
  ASSERT_TRUE(idle && queued);
  EXPECT_NEAR(*idle, 99.89, 1e-6);
  EXPECT_NEAR(*queued, 100.0 * 59954 / 99890, 1e-4);
  apply_gate(report, default_rules(), nullptr, {});

  const ReportFinding* idle_finding = find_finding(report, "gpu.idle");
  ASSERT_NE(idle_finding, nullptr);
  EXPECT_NE(idle_finding->recommendation.find("The GPUs sat idle with work queued"), std::string::npos)
      << idle_finding->recommendation;
  const ReportFinding* runtime = find_finding(report, "host.runtime-share");
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->status, FindingStatus::Warn) << runtime->reason;
  std::string expected = fmt::format(
      "Deferred to gpu.idle: it explains this idle time as queued-gpu-wait ({:.1f}% of "
      "the window)",
      *idle * *queued / 100);
  EXPECT_TRUE(runtime->recommendation.starts_with(expected)) << runtime->recommendation;
  EXPECT_EQ(runtime->recommendation.find("use CUDA graphs"), std::string::npos);
  EXPECT_FALSE(runtime->gain_pct);
  EXPECT_FALSE(runtime->fix_first);
}

// A rule file may claim only the causes `advice: idle_causes` lists, and lists them with evidence
// over the run's metrics; --print-effective-rules writes both back.
TEST(FindingsAgree, RuleFilesClaimKnownCauses) {
  auto load = [](const std::string& text) {
    return load_rule_book({write_text(temp_dir() + "/findings_agree.yaml", text)});
  };
  RuleBook book = load("rules:\n  - id: host.sync-calls\n    claims: host-runtime\n");
  std::string written = effective_rules_yaml(book.knowledge, book.rules);
  EXPECT_NE(written.find("claims: host-runtime"), std::string::npos);
  EXPECT_NE(written.find("name: queued-gpu-wait"), std::string::npos);
  EXPECT_THROW((void)load("rules:\n  - id: host.sync-calls\n    claims: gpu-launch\n"), ConfigError);
  EXPECT_THROW(
      (void)load("advice:\n  idle_causes:\n    - {name: x, host: true, evidence: \"gpu.nothing_pct\"}\n"),
      ConfigError);
}

}  // namespace
}  // namespace perfgate::testing
