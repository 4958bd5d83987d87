// A step-time rule against the baseline: a regression must exceed the limit with significance — a
// one-sided Mann-Whitney U test on the per-step durations below alpha, and the bootstrap confidence
// interval of the ratio of medians (or means) wholly beyond the limit. Not confirmed, the rule is
// inconclusive when the samples are too small to reach significance, when a significant change
// has an interval that straddles the limit, or when the estimate is beyond the limit without
// significance; otherwise it passes.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "perfgate/report.h"
#include "perfgate/rules.h"

namespace perfgate {

struct StepComparison {
  FindingStatus status = FindingStatus::Pass;
  ReportStepTest test;
  std::string reason;
  const ChangeLimit* limit = nullptr;  // the limit crossed, else the nearest one
  double limit_value = 0;              // that limit in the metric's unit
};

StepComparison compare_steps(const Rule& rule, std::span<const double> current,
                             std::span<const double> baseline);

}  // namespace perfgate
