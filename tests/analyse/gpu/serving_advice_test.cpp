// Issue 53, item 2: serving-aware advice. No CUDA-graph remedy where graph replays already hold
// most kernel time; idle time with work queued on the GPU is not the host's; a blocking copy named
// for what it is.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TimeNs cause(const std::array<TimeNs, kIdleCauses>& by, IdleCause c) {
  return by[static_cast<std::size_t>(c)];
}

// One step [0, 1000] us: a cudaGraphLaunch [0, 10] replays three kernels [20, 220], [220, 420],
// [420, 620] (all kernel time in graph replays: 100%), then a cudaStreamSynchronize [700, 900] on an
// idle GPU. Runtime time with no GPU work: [0, 10] + [700, 900] = 210 us, 21% of the step, over
// host.runtime-share's 10%.
TEST(ServingAdvice, NoCudaGraphRemedyWhereGraphReplaysHoldTheKernelTime) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.runtime("cudaGraphLaunch", 0, 10, 1);
  t.kernel("graph_kernel_a", 20, 200, 1)
      .kernel("graph_kernel_b", 220, 200, 1)
      .kernel("graph_kernel_c", 420, 200, 1);
  t.runtime("cudaStreamSynchronize", 700, 200, 2);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_DOUBLE_EQ(*report.metric(Metric::KernelsGraphReplayPct), 100);
  const ReportFinding* runtime = find_finding(report, "host.runtime-share");
  ASSERT_NE(runtime, nullptr);
  ASSERT_EQ(runtime->status, FindingStatus::Warn) << runtime->reason;
  EXPECT_NE(runtime->recommendation.find("already runs in device graph replays"), std::string::npos)
      << runtime->recommendation;
  for (const ReportFinding& f : report.findings)
    EXPECT_EQ(f.recommendation.find("CUDA graphs"), std::string::npos) << f.id << ": " << f.recommendation;
}

// SGLang's decode wait in small: one step [0, 463500] us. Four kernels launched at 100, 110, 120,
// 130 (calls of 1 us) start only at 463380 (5 us each, to 463400): queued behind something the trace
// does not show. A blocking cudaMemcpy [140, 463415] makes a 256-byte device-to-host copy
// [463405, 463410]. The GPU's idle stretches:
//   [0, 463380]       463380: queued [101, 463380] 463279, launch [100, 101] 1, nothing [0, 100] 100
//   [463400, 463405]       5: a short gap
//   [463410, 463500]      90: the copy's call (a sync call) [463410, 463415] 5, nothing 85
// Queued 463279 of 463475 us idle (463500 - 25 busy): 99.9577%.
// The copy: it held the host 463275 us, 99.95% of the 463500-us step; the GPU ran 25 us inside it
// (kernels 20, copy 5), idle 463250 us = 99.9946% of it; 4 kernels were queued when it began.
std::string queued_wait_trace() {
  TraceBuilder t;
  t.step(1, 0, 463500);
  for (int i = 0; i < 4; ++i)
    t.runtime("cudaLaunchKernel", 100 + 10 * i, 1, 1 + i)
        .kernel("resolve_" + std::to_string(i), 463380 + 5 * i, 5, 1 + i);
  t.runtime("cudaMemcpy", 140, 463275, 9).memcpy("Memcpy DtoH (Device -> Pinned)", 463405, 5, 9, 0, 7, 256);
  return t.json();
}

TEST(ServingAdvice, IdleTimeWithWorkQueuedIsNotTheHosts) {
  WorkerAnalysis w = analyse_json(queued_wait_trace());
  const auto& by = w.idle.by_cause;
  EXPECT_EQ(cause(by, IdleCause::Queued), 463279'000);
  EXPECT_EQ(cause(by, IdleCause::Launch), 1'000);
  EXPECT_EQ(cause(by, IdleCause::Sync), 5'000);
  EXPECT_EQ(cause(by, IdleCause::Unrecorded), 185'000);
  EXPECT_EQ(cause(by, IdleCause::ShortGap), 5'000);
  EXPECT_NEAR(*w.metrics.get(Metric::GpuIdleQueuedPct), 100.0 * 463279 / 463475, 1e-9);
  ReportModel report = report_of_json(queued_wait_trace(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* idle = find_finding(report, "gpu.idle");
  ASSERT_NE(idle, nullptr);
  ASSERT_EQ(idle->status, FindingStatus::Warn);
  EXPECT_NE(idle->recommendation.find("with work queued on them"), std::string::npos) << idle->recommendation;
  EXPECT_EQ(idle->recommendation.find(".item()"), std::string::npos) << idle->recommendation;
}

TEST(ServingAdvice, ABlockingCopyIsNamedForWhatItIs) {
  WorkerAnalysis w = analyse_json(queued_wait_trace());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::HostBlockingCopyUs), 463275);
  EXPECT_NEAR(*w.metrics.get(Metric::HostBlockingCopyPct), 100.0 * 463275 / 463500, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::HostBlockingCopyGpuIdlePct), 100.0 * 463250 / 463275, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::HostBlockingCopyQueued), 4);
  EXPECT_TRUE(has_line(w.warnings,
                       "blocking copy: cudaMemcpy at 0.140 ms into the window copied 256 B device to "
                       "host and held the host 463.275 ms; the GPU was idle 463.250 ms of that; 4 GPU "
                       "activities launched before it had not started when it began"))
      << (w.warnings.empty() ? "" : note_text(w.warnings.back()));
  ReportModel report = report_of_json(queued_wait_trace(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* copy = find_finding(report, "host.blocking-copy");
  ASSERT_NE(copy, nullptr);
  ASSERT_EQ(copy->status, FindingStatus::Warn) << copy->reason;
  EXPECT_NE(copy->recommendation.find("waited for GPU work that was queued"), std::string::npos)
      << copy->recommendation;
}

}  // namespace
}  // namespace perfgate::testing
