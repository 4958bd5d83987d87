#include "gate/rule_expressions.h"

namespace perfgate {

RuleExpressions::RuleExpressions(const Rule& r) {
  auto parse = [](const std::string& text) {
    return text.empty() ? std::nullopt : std::optional<MetricExpression>(text);
  };
  value = parse(r.value);
  condition = parse(r.condition);
  applies_if = parse(r.applies_if);
  gain = parse(r.gain);
  saves = parse(r.saves);
  on_path = parse(r.on_path);
  pass_needs = parse(r.pass_needs);
  if (!r.metric.empty()) metric = metric_reference(r.metric);
}

bool needs_baseline(const Rule& r, const RuleExpressions& e) {
  auto of_baseline = [](const std::optional<MetricReference>& m) {
    return m && m->of != MetricReference::Of::Current;
  };
  if (r.compare_baseline || of_baseline(e.metric)) return true;
  for (const auto* x : {&e.value, &e.condition, &e.applies_if, &e.gain, &e.saves, &e.on_path, &e.pass_needs})
    if (*x)
      for (const auto& reference : (*x)->references())
        if (of_baseline(reference)) return true;
  return false;
}

}  // namespace perfgate
