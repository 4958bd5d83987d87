#include "gate/rules_for_run.h"

#include <algorithm>

namespace perfgate {

bool rule_applies(const Rule& rule, const DeviceFamilies& run) {
  if (rule.families.empty() || run.empty()) return true;
  return std::any_of(rule.families.begin(), rule.families.end(), [&](DeviceFamily f) { return run.has(f); });
}

bool rule_fits_frameworks(const Rule& rule, const std::vector<CaptureFramework>& capture) {
  if (rule.frameworks.empty() || capture.empty()) return true;
  return std::any_of(capture.begin(), capture.end(), [&](const CaptureFramework& f) {
    return std::find(rule.frameworks.begin(), rule.frameworks.end(), f.name) != rule.frameworks.end();
  });
}

RuleSet rules_for_run(const RuleSet& rules, const ReportModel& report) {
  RuleSet out;
  out.fix_first_min_gain_pct = rules.fix_first_min_gain_pct;
  out.idle_causes = rules.idle_causes;
  out.words = rules.words;
  out.framework_terms = rules.framework_terms;
  out.critical_path_min_coverage_pct = rules.critical_path_min_coverage_pct;
  out.min_flops_coverage_pct = rules.min_flops_coverage_pct;
  out.sources = rules.sources;
  for (const Rule& r : rules.rules)
    if (rule_applies(r, report.families) && rule_fits_frameworks(r, report.capture.frameworks))
      out.rules.push_back(r);
  return out;
}

}  // namespace perfgate
