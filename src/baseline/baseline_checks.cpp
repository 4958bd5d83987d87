#include "baseline/baseline_checks.h"

#include <cmath>

#include <fmt/format.h>

namespace perfgate {

std::string step_duration_problem(std::size_t number, double duration_us) {
  if (duration_us > 0 && duration_us <= kMaxStepUs) return "";
  return fmt::format("step {} has a duration of {} us: it must be positive and at most 30 days", number,
                     duration_us);
}

std::string metric_value_problem(std::string_view name, double value) {
  return measurement_problem(fmt::format("metric '{}'", name), value);
}

std::string measurement_problem(std::string_view what, double value) {
  if (std::fabs(value) <= kMaxMetric) return "";  // false for NaN too
  return fmt::format("{} is {}, beyond any real measurement (at most {:g})", what, value, kMaxMetric);
}

}  // namespace perfgate
