// The checks a baseline's numbers pass whatever they were read from (a JSON report, a run
// history): a value no real run could have is refused, never compared.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace perfgate {

// A step longer than 30 days is absurd (the Kineto reader's limit for a duration); a metric beyond
// 1e30 (in any unit) is too, and its delta or square would overflow.
inline constexpr double kMaxStepUs = 30.0 * 24 * 3600 * 1e6;
inline constexpr double kMaxMetric = 1e30;

// "" when the duration of step `number` (1-based) is usable; else why not: "step 3 has a duration
// of -5 us: it must be positive and at most 30 days".
std::string step_duration_problem(std::size_t number, double duration_us);

// "" when the value of metric `name` is usable; else why not: "metric 'x' is inf, beyond any real
// measurement (at most 1e+30)". `what` names the value another way ("kernel 'k' gpu_us").
std::string metric_value_problem(std::string_view name, double value);
std::string measurement_problem(std::string_view what, double value);

}  // namespace perfgate
