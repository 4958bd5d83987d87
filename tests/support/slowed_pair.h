// A training run whose steps carry `host_only_us` of host work without kernels more than its
// baseline's (the healthy TrainingRun, its elementwise kernels uneven from step to step so that
// the step test has a spread), gated against that baseline with the default rules: 2 ms fails
// regression.step-time (tests/gate/path_difference_test.cpp, AFailingStepTimeStatesIt).
#pragma once

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {

struct SlowedPair {
  ReportModel before;
  Baseline baseline;
  ReportModel after;  // gated against `baseline`
};

inline SlowedPair host_slowed_pair(double host_only_us = 2000) {
  TrainingRun base_run;
  base_run.extra_us = {0, 70, 30, 90, 10, 50, 80, 20};
  TrainingRun slow = base_run;
  slow.host_only_us = host_only_us;
  SlowedPair p{report_of_json(training_trace(base_run), default_book()), {}, {}};
  p.baseline = baseline_from_report(p.before, "before.json", "profile");
  p.after = report_of_json(training_trace(slow), default_book());
  apply_gate(p.after, default_rules(), &p.baseline, {});
  return p;
}

}  // namespace perfgate::testing
