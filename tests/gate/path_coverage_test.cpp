// Issue 52, items 3 to 5: the critical path's shares divide the step as perfgate analyses it, a
// gain is bounded by the path only where the path covers most of the step, and the
// communication-bound finding of one rank's trace gives no advice that assumes transfer. Times in
// the comments are microseconds.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

constexpr double kUs = 1000.0;

ReportModel gated(const std::string& json) {
  ReportModel report = report_of_json(json, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

// A serving step: its host annotation [0,2000) replays a captured graph (cudaGraphLaunch [10,20))
// whose 4 kernels run back to back for 8,000, [100,8100). The path is the replay, 8,000 of GPU
// compute (kernel-gap edges of 0 between the kernels; the graph launch is no launch call, so the
// replay joins no host work); the host's op is 2,000. The step as perfgate analyses it runs from
// its host start to the end of its GPU work: 8,100, so the path covers 8,000 / 8,100 = 98.77% of
// it. Shares of the host range alone were 8,000 / 2,000 = 400%.
TEST(PathCoverage, AServingStepsSharesDivideItsGpuWorkToo) {
  TraceBuilder t;
  t.step(1, 0, 2000).op("execute_model", 0, 2000).runtime("cudaGraphLaunch", 10, 10, 7);
  for (int k = 0; k < 4; ++k) t.kernel("decode_kernel", 100 + 2000 * k, 2000, 7);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.critical_path.steps.size(), 1u);
  const CriticalPathStep& s = w.critical_path.steps[0];
  EXPECT_EQ(s.length, 8000 * kUs);
  EXPECT_EQ(s.span, 8100 * kUs);
  EXPECT_NEAR(*w.metrics.get(Metric::CriticalPathGpuComputeBoundStepPct), 100.0 * 8000 / 8100, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::CriticalPathCoveragePct), 100.0 * 8000 / 8100, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::CriticalPathUncoveredStepPct), 100.0 * 100 / 8100, 1e-9);
}

// One rank's 500 of an all-reduce no computation hides in a 1,000 step (communication.high: a gain
// of 50% of the step), launched at [1,3) from op A [0,host): through the GPU 1 + 4 (launch delay)
// + 500 = 505, shorter than the host's op, so the path is A, all CPU, and the all-reduce is off it.
std::string host_bound_step(double host_us) {
  TraceBuilder t;
  t.step(1, 0, 1000).op("A", 0, host_us).runtime("cudaLaunchKernel", 1, 2, 1);
  t.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 5, 500, 1);
  return t.json();
}

// A = 900: the path covers 900 / 1,000 = 90% of the step, at least rules' critical_path
// .min_coverage_pct (80): the gain is the communication's time on the path (0) plus the step's
// time no path covers (10%): 10%, and the finding says the path bounds it.
TEST(PathCoverage, APathThatCoversTheStepBoundsTheGain) {
  ReportModel report = gated(host_bound_step(900));
  const ReportFinding* f = find_finding(report, "communication.high");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn) << f->reason;
  EXPECT_NEAR(*f->gain_pct, 10.0, 1e-9);
  EXPECT_TRUE(f->gain_bounded_by_path);
  EXPECT_FALSE(f->gain_path_too_short);
  EXPECT_NEAR(*f->path_coverage_pct, 90.0, 1e-9);
  std::string terminal = render_terminal(report, {.color = false});
  EXPECT_NE(terminal.find("(its time on the critical path, which covers 90.0% of the step)"),
            std::string::npos)
      << terminal;
  EXPECT_NE(terminal.find("covering 90.0% of the step"), std::string::npos) << terminal;
}

// A = 750: the path covers 75% of the step, under the threshold: it leaves too much unexplained to
// bound anything, so the gain stays the communication's 50% (not 0 + 25%), and the finding says
// the path covers only 75%.
TEST(PathCoverage, APathThatMissesMuchOfTheStepBoundsNothing) {
  ReportModel report = gated(host_bound_step(750));
  const ReportFinding* f = find_finding(report, "communication.high");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn) << f->reason;
  EXPECT_NEAR(*f->gain_pct, 50.0, 1e-9);
  EXPECT_FALSE(f->gain_bounded_by_path);
  EXPECT_TRUE(f->gain_path_too_short);
  EXPECT_NEAR(*f->path_coverage_pct, 75.0, 1e-9);
  std::string terminal = render_terminal(report, {.color = false});
  EXPECT_NE(terminal.find("(not bounded by the critical path, which covers only 75.0% of the step)"),
            std::string::npos)
      << terminal;
  std::string page = render_html(report).page;
  EXPECT_NE(page.find("not bounded by the critical path, which covers only 75.0% of the step"),
            std::string::npos);
}

// One rank's trace whose path is bound by a 20 ms collective after 9 ms of compute (as
// DefaultRules' critical-path.communication-bound case): it cannot tell waiting for a peer from
// moving data, so no advice that assumes transfer (gradient compression); it says what is needed.
TEST(PathCoverage, OneRanksCommunicationBoundPathGetsNoCompressionAdvice) {
  TrainingRun run;
  run.communication_us = 20000;
  run.overlap_communication = false;
  ReportModel report = gated(training_trace(run));
  EXPECT_EQ(report.metrics.get(Metric::CollectivesRanksTimed), 1);
  const ReportFinding* f = find_finding(report, "critical-path.communication-bound");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn) << f->reason;
  EXPECT_EQ(f->recommendation.find("compression"), std::string::npos) << f->recommendation;
  EXPECT_NE(f->recommendation.find("cannot be told from one rank's trace"), std::string::npos)
      << f->recommendation;
}

}  // namespace
}  // namespace perfgate::testing
