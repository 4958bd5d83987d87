// A rule's expressions, parsed once for its evaluation (gate/evaluate.cpp), and whether the rule
// reads the baseline.
#pragma once

#include <optional>

#include "gate/metric_expression.h"
#include "gate/rule_check.h"
#include "gate/rules.h"

namespace perfgate {

struct RuleExpressions {
  explicit RuleExpressions(const Rule& r);
  std::optional<MetricExpression> value, condition, applies_if, gain, saves, on_path, pass_needs;
  std::optional<MetricReference> metric;  // the rule's `metric`
};

// The rule reads the baseline: compares with it, or names baseline./delta./ratio. metrics.
bool needs_baseline(const Rule& r, const RuleExpressions& e);

}  // namespace perfgate
