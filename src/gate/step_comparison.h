// A step-time rule against the baseline. Two questions, answered apart: is the run slower
// (a one-sided test at the rule's alpha), and by more than the limit (the estimated change against
// the warn and fail limits). A clear change beyond a limit fails or warns; one beyond the fail
// limit that the test cannot confirm is inconclusive, and so is a comparison with too few steps or
// one too weak to see the limit whose interval does not rule it out; everything else passes. Every
// outcome states the comparison's minimum detectable change (docs/rules.md, "The step-time test").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

// A comparison passes only where its interval rules the limit out, or where it could see a change of
// this many times its worst limit (its minimum detectable change at most that) and its interval
// rules that change out: 2 x +5% is about what 5 to 6 steps a side at 3% step noise can see; 3-step
// windows at 15% noise (57.6%) cannot.
inline constexpr double kPassMdcFactor = 2;

struct StepComparison {
  FindingStatus status = FindingStatus::Pass;
  ReportStepTest test;
  std::string reason;
  // The limit crossed, else the nearest one: a copy, so that the result outlives the rule it came
  // from (a pointer into a temporary rule was read after its end; ASan found it).
  std::optional<ChangeLimit> limit;
  double limit_value = 0;  // that limit in the metric's unit
};

// Where the run's work per step differs from the baseline's and a unit measures it (issue 74: a
// batch x2 doubles the FLOPs a step): the run's steps are divided by `ratio` (its work per step over
// the baseline's), so that the test compares the time per `unit`.
struct StepWorkBasis {
  std::string unit;  // "FLOP"
  double ratio = 1;
};

// `current_us` and `current_names`: the run's window steps; `baseline_runs_us`: each baseline run's
// window steps (one run, or several pooled). With `work`, the time per unit of work compares, and
// the limits stand on this run's step time at the baseline's time per unit.
StepComparison compare_steps(const Rule& rule, std::span<const double> current_us,
                             std::span<const std::string> current_names,
                             const std::vector<std::vector<double>>& baseline_runs_us,
                             const StepWorkBasis* work = nullptr);

// Units matched one to one (the same inferred unit, "blocks.8", on both sides; each baseline run's
// units in the order of `current_us`): the paired t-test on the log ratios of the pairs (method
// "paired-t-log"; a pool's unit: the geometric mean of its runs'), with the same decision as
// compare_steps. Fewer than 3 pairs: inconclusive.
StepComparison compare_paired_steps(const Rule& rule, std::span<const double> current_us,
                                    const std::vector<std::vector<double>>& baseline_runs_us);

}  // namespace perfgate
