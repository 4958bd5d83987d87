#include "rules/step_comparison.h"

#include <fmt/format.h>

#include "rules/statistics.h"

namespace perfgate {
namespace {

// The limit as a ratio of the statistic: 1.05 for "+5%", (base + 3 ms) / base for "+3 ms".
double limit_ratio(const ChangeLimit& limit, Better better, double base) {
  double change = limit.relative ? limit.amount : limit.amount / base;
  return better == Better::Lower ? 1 + change : 1 - change;
}

std::string pct_change(double ratio) {
  return fmt::format("{:+.1f}%", 100 * (ratio - 1));
}

}  // namespace

StepComparison compare_steps(const Rule& rule, std::span<const double> current,
                             std::span<const double> baseline) {
  StepComparison out;
  Better better = rule.better.value_or(Better::Lower);
  Statistic stat = rule.metric == "steps.mean_us" ? Statistic::Mean : Statistic::Median;
  ReportStepTest& t = out.test;
  t.current_steps = current.size();
  t.baseline_steps = baseline.size();
  t.confidence = rule.confidence;
  t.alpha = rule.alpha;
  const ChangeLimit* nearest = rule.warn_change   ? &*rule.warn_change
                               : rule.fail_change ? &*rule.fail_change
                                                  : nullptr;
  out.limit = nearest;
  double base = statistic(baseline, stat);
  if (nearest && base > 0) out.limit_value = base * limit_ratio(*nearest, better, base);
  if (current.size() < 2 || baseline.size() < 2 || base <= 0 ||
      smallest_exact_p(current.size(), baseline.size()) > rule.alpha) {
    out.status = FindingStatus::Inconclusive;
    out.reason = fmt::format(
        "too few steps to compare ({} and {} in the baseline): the test cannot reach "
        "significance at alpha {}; profile more steps",
        current.size(), baseline.size(), rule.alpha);
    return out;
  }
  MannWhitney mw = better == Better::Lower ? mann_whitney_greater(current, baseline)
                                           : mann_whitney_greater(baseline, current);
  RatioInterval ci = bootstrap_ratio(current, baseline, stat, rule.confidence, rule.resamples);
  t.method = mw.exact ? "mann-whitney exact" : "mann-whitney normal";
  t.p_value = mw.p_value;
  t.ratio = ci.estimate;
  t.ci_low = ci.low;
  t.ci_high = ci.high;
  std::string summary =
      fmt::format("{} {} ({:.0f}% interval {} to {}), p = {:.3g}",
                  stat == Statistic::Median ? "median step" : "mean step", pct_change(ci.estimate),
                  100 * rule.confidence, pct_change(ci.low), pct_change(ci.high), mw.p_value);
  for (const auto& [limit, status] : {std::pair{&rule.fail_change, FindingStatus::Fail},
                                      std::pair{&rule.warn_change, FindingStatus::Warn}}) {
    if (!*limit) continue;
    double l = limit_ratio(**limit, better, base);
    bool beyond = better == Better::Lower ? ci.low > l : ci.high < l;
    if (beyond && mw.p_value < rule.alpha) {
      out.status = status;
      out.limit = &**limit;
      out.limit_value = base * l;
      out.reason = fmt::format("{}: beyond the limit {} with significance (alpha {})", summary,
                               (*limit)->text, rule.alpha);
      return out;
    }
  }
  // Not confirmed. Inconclusive when there is evidence of a change whose size the interval cannot
  // place on either side of the nearest limit, or an effect beyond it that is not significant.
  double l = nearest ? limit_ratio(*nearest, better, base) : 1;
  bool significant = mw.p_value < rule.alpha;
  bool straddles = better == Better::Lower ? ci.high > l : ci.low < l;
  bool estimate_beyond = better == Better::Lower ? ci.estimate > l : ci.estimate < l;
  if (nearest && significant && straddles) {
    out.status = FindingStatus::Inconclusive;
    out.reason =
        fmt::format("{}: a significant change whose interval straddles the limit {}", summary, nearest->text);
  } else if (nearest && !significant && estimate_beyond) {
    out.status = FindingStatus::Inconclusive;
    out.reason = fmt::format("{}: beyond the limit {} but not significant (alpha {}); profile more steps",
                             summary, nearest->text, rule.alpha);
  } else {
    out.status = FindingStatus::Pass;
    out.reason = summary + (significant ? ": within the limits" : ": no significant change");
  }
  return out;
}

}  // namespace perfgate
