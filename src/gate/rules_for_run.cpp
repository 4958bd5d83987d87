#include "gate/rules_for_run.h"

#include <algorithm>

namespace perfgate {

bool rule_applies(const Rule& rule, const DeviceFamilies& run) {
  if (rule.families.empty() || run.empty()) return true;
  return std::any_of(rule.families.begin(), rule.families.end(), [&](DeviceFamily f) { return run.has(f); });
}

RuleSet rules_for_run(const RuleSet& rules, const ReportModel& report) {
  RuleSet out;
  out.classification = rules.classification;
  out.sources = rules.sources;
  for (const Rule& r : rules.rules)
    if (rule_applies(r, report.families)) out.rules.push_back(r);
  return out;
}

}  // namespace perfgate
