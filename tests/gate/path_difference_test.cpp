// A step-time regression explained along the critical path (issue 74, item 6): the two runs' paths
// per step by bound, what grew, moved onto the path, left it or shrank, adding up to the path's change.
#include <gtest/gtest.h>

#include <numeric>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "gate/path_difference.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

MetricValues path(double length_us, double cpu, double data, double launch, double gaps, double compute,
                  double communication, double uncovered) {
  MetricValues m;
  m.set(Metric::CriticalPathLengthUs, length_us);
  m.set(Metric::CriticalPathCpuBoundPct, cpu);
  m.set(Metric::CriticalPathDataLoadingPct, data);
  m.set(Metric::CriticalPathGpuKernelLaunchOverheadPct, launch);
  m.set(Metric::CriticalPathGpuKernelKernelOverheadPct, gaps);
  m.set(Metric::CriticalPathGpuComputeBoundPct, compute);
  m.set(Metric::CriticalPathGpuCommunicationBoundPct, communication);
  m.set(Metric::CriticalPathUncoveredStepPct, uncovered);
  return m;
}

// Before: a 9000 us path, 10% host (900 us), 2% data loading (180), 5% launch delays (450), 5% gaps
// (450), 78% GPU compute (7020), no communication; 10% of the span off the path (9000 x 10/90 =
// 1000 us). After: 10000 us, 20% host (2000: +1100), no data loading (-180: left the path), 4.5%
// launch delays and gaps (450 each: unchanged), 67% compute (6700: -320), 4% communication (400:
// moved onto the path, a collective no longer hidden); 20% off the path (10000 x 20/80 = 2500).
// +1100 - 180 - 320 + 400 = +1000 us, the path's change.
TEST(PathDifference, WhatGrewMovedOntoAndLeftThePathAddsUpToItsChange) {
  MetricValues before = path(9000, 10, 2, 5, 5, 78, 0, 10);
  MetricValues after = path(10000, 20, 0, 4.5, 4.5, 67, 4, 20);
  std::optional<PathDifference> d = path_difference(before, after);
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->baseline_off_us, 1000, 1e-9);
  EXPECT_NEAR(d->off_us, 2500, 1e-9);
  double sum = 0;
  for (const PathBoundChange& b : d->bounds) sum += b.delta();
  EXPECT_NEAR(sum, 1000, 1e-9);
  ASSERT_EQ(d->bounds.size(), 6u);
  EXPECT_EQ(d->bounds.front().what, "host ops and runtime calls");
  EXPECT_NEAR(d->bounds.front().delta(), 1100, 1e-9);
  EXPECT_EQ(
      path_difference_sentence(*d),
      "On the critical path per step, 9.00 ms → 10.00 ms (+1.00 ms): grew host ops and runtime calls "
      "+1.10 ms (900.0 us → 2.00 ms); moved onto the path communication +400.0 us (0.0 us → 400.0 us); "
      "left the path data loading -180.0 us (180.0 us → 0.0 us); shrank GPU compute -320.0 us (7.02 ms → "
      "6.70 ms). Off the path (step time no path explains) 1.00 ms → 2.50 ms (+1.50 ms).");

  // Either run without a path (no critical-path metrics, or none covering its steps): nothing to say.
  EXPECT_FALSE(path_difference(MetricValues{}, after));
  EXPECT_FALSE(path_difference(before, path(10000, 20, 0, 4.5, 4.5, 67, 4, 100)));
}

// A failing step-time finding states the difference: 2 ms of host work without kernels at each
// step's start (the GPU idle meanwhile) puts about those 2 ms of host time onto the path.
TEST(PathDifference, AFailingStepTimeStatesIt) {
  TrainingRun base_run;
  base_run.extra_us = {0, 70, 30, 90, 10, 50, 80, 20};
  TrainingRun slow = base_run;
  slow.host_only_us = 2000;
  ReportModel before = report_of_json(training_trace(base_run), default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel after = report_of_json(training_trace(slow), default_book());
  apply_gate(after, default_rules(), &base, {});
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Fail) << f->reason;
  std::optional<PathDifference> d = path_difference(before.metrics, after.metrics);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->bounds.front().what, "host ops and runtime calls");
  EXPECT_NEAR(d->bounds.front().delta(), 2000, 100);
  EXPECT_NE(f->problem.find(path_difference_sentence(*d)), std::string::npos) << f->problem;
  // The baseline's host bound is about 1 us on the path: the 2 ms moved onto it.
  EXPECT_NE(f->problem.find("moved onto the path host ops and runtime calls +2.00 ms"), std::string::npos)
      << f->problem;
}

}  // namespace
}  // namespace perfgate::testing
