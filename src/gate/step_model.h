// The step-time model of the gate. Step durations are compared on a log scale (a change is a
// ratio, and step noise is multiplicative). Outlier steps within a run, and outlier runs among
// five or more baselines, are set aside by the modified z-score (Iglewicz & Hoaglin 1993). What is
// left follows a random-effects model: a run's mean log step is the workload's level plus a
// run-to-run effect (variance tau^2, estimated by DerSimonian & Laird 1986 from three or more
// baseline runs) plus within-run step noise, pooled over every run. The change is the current
// run's mean log step minus the baselines' weighted mean, tested one-sided with Student's t
// (Satterthwaite's degrees of freedom when run-to-run noise enters); with one baseline this is the
// two-sample t-test on log step times. docs/rules.md, "The step-time test", states the model.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace perfgate {

// Indices of the values whose modified z-score, 0.6745 |x - median| / MAD, exceeds `threshold`
// (Iglewicz & Hoaglin suggest 3.5 to flag). When the MAD is 0 the mean absolute deviation scaled by
// 1.2533 takes its place; when that is 0 too, nothing is an outlier. Fewer than 3 values: none.
std::vector<std::size_t> outlier_indices(std::span<const double> values, double threshold);

// The z-score beyond which the gate sets a step aside. Stricter than 3.5: setting steps aside
// shrinks the noise estimate, and in simulations of 5 normal steps at 8% noise a 3.5 cut raised
// the false-fail rate from 4.7% to 7.9%, a 5 cut to 6.6% (docs/rules.md); warm-up and stalled
// steps are far beyond either.
inline constexpr double kOutlierZ = 5;

// Outlier steps are decided once over every run compared (issue 74): each run's log steps less its
// own median, one robust scale (MAD) over all of them (per run alone below 6 such residuals), z
// beyond `z`; and slow outliers that open a run (a warm-up) set aside by position in every run.
// The logs of each run's steps left, in order: the current run's first, then each baseline run's
// (z <= 0: every step).
std::vector<std::vector<double>> kept_log_steps(std::span<const double> current_us,
                                                const std::vector<std::vector<double>>& baseline_runs_us,
                                                double z);

struct StepChangeOptions {
  double confidence = 0.95;      // of the interval
  double alpha = 0.05;           // of the one-sided test
  double power = 0.8;            // for the minimum detectable change
  double outlier_z = kOutlierZ;  // 0: keep every step
};

struct StepChange {
  double log_change = 0;                      // current minus baseline level, in log units (ratio = exp)
  double se = 0;                              // its standard error
  double df = 0;                              // of the t distribution (Satterthwaite with run-to-run noise)
  double ratio = 1, ci_low = 1, ci_high = 1;  // of step times, current / baseline
  double p_slower = 1;                        // one-sided p of H1: the current run is slower
  double p_faster = 1;                        // one-sided p of H1: the current run is faster
  double within_sd = 0;                       // within-run SD of log step times (~ cv), pooled over every run
  std::optional<double> between_sd;           // run-to-run SD (tau), from >= 3 baseline runs
  double mdc_log = 0;  // the change this comparison detects with `power` at `alpha`, log units
  std::size_t current_steps = 0, baseline_steps = 0;  // kept after outlier rejection
  std::size_t baseline_runs = 0;                      // kept after outlier rejection
  std::vector<std::size_t> current_outliers;          // indices into the current steps
  std::vector<std::size_t> baseline_outlier_steps;    // how many set aside, per baseline run
  std::vector<std::size_t> excluded_runs;             // indices of baseline runs set aside
};

// Why no change could be estimated.
struct StepChangeShortfall {
  std::size_t current_steps = 0, baseline_steps = 0;  // kept after outlier rejection
};

// The change of the current run's step times against one or several baseline runs. Empty when a
// side has too few steps to estimate its noise: fewer than 2 steps in the current run, or no
// baseline run with 2 steps (then `shortfall` says what was kept).
std::optional<StepChange> estimate_step_change(std::span<const double> current_us,
                                               const std::vector<std::vector<double>>& baseline_runs_us,
                                               const StepChangeOptions& options,
                                               StepChangeShortfall* shortfall = nullptr);

// The steps per run (both sides) at which `change` would detect a change of `log_limit` with the
// options' power, assuming its noise; empty when run-to-run noise alone prevents it, or beyond
// 10,000 steps.
std::optional<std::size_t> steps_to_detect(const StepChange& change, double log_limit,
                                           const StepChangeOptions& options);

// Quantile of Student's t with (real) `df` degrees of freedom; the normal one beyond 1e6.
double student_t_quantile(double p, double df);
// P(T > t).
double student_t_upper(double t, double df);

}  // namespace perfgate
