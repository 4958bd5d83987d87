#include "gate/step_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "gate/statistics.h"

namespace perfgate {
namespace {

// The steps of one run, on the log scale, with its outliers set aside.
struct RunSample {
  std::vector<double> kept;  // log step times
  std::size_t outliers = 0;
  std::vector<std::size_t> outlier_indices;
  double mean = 0;
  double sum_squares = 0;  // of deviations from the mean
  std::size_t n() const { return kept.size(); }
};

std::vector<double> logs_of(std::span<const double> us) {
  std::vector<double> logs;
  for (double v : us)
    if (v > 0 && std::isfinite(v)) logs.push_back(std::log(v));
  return logs;
}

// A run's log steps with the steps at `outliers` (sorted indices) set aside.
RunSample sample_of(const std::vector<double>& logs, std::vector<std::size_t> outliers) {
  RunSample s;
  s.outlier_indices = std::move(outliers);
  for (std::size_t i = 0, next = 0; i < logs.size(); ++i) {
    bool outlier = next < s.outlier_indices.size() && s.outlier_indices[next] == i;
    if (outlier)
      ++next;
    else
      s.kept.push_back(logs[i]);
  }
  s.outliers = s.outlier_indices.size();
  if (s.kept.empty()) return s;
  s.mean = std::accumulate(s.kept.begin(), s.kept.end(), 0.0) / static_cast<double>(s.n());
  for (double x : s.kept) s.sum_squares += (x - s.mean) * (x - s.mean);
  return s;
}

// A robust scale of `deviations` (absolute): their median over 0.6745, else (half of them or more
// equal) their mean times 1.2533; 0 when there is no spread at all.
double robust_scale(std::vector<double> deviations) {
  double scale = statistic(deviations, Statistic::Median) / 0.6745;
  if (scale == 0)
    scale = 1.253314 * std::accumulate(deviations.begin(), deviations.end(), 0.0) /
            static_cast<double>(deviations.size());
  return scale;
}

// The fewest residuals the pooled outlier test reads; below it each run is tested alone.
constexpr std::size_t kPooledResiduals = 6;

// Every run's outlier steps, decided once over all the runs compared (issue 74): the residuals of
// each run's log steps about its own median share one robust scale, so that whether a run's step
// is set aside no longer hangs on how close that run's other two steps happen to be; and leading
// steps set aside as slow in any run (a warm-up) are set aside by position in every run, so that
// both sides compare the same part of the loop.
std::vector<std::vector<std::size_t>> joint_outliers(const std::vector<std::vector<double>>& logs, double z) {
  std::vector<std::vector<std::size_t>> out(logs.size());
  if (z <= 0) return out;
  std::vector<std::vector<double>> residuals(logs.size());
  std::vector<double> pooled;
  for (std::size_t r = 0; r < logs.size(); ++r) {
    if (logs[r].size() < 3) continue;  // two steps are each other's outliers or neither
    double median = statistic(logs[r], Statistic::Median);
    for (double x : logs[r]) residuals[r].push_back(x - median), pooled.push_back(std::fabs(x - median));
  }
  if (pooled.size() < kPooledResiduals) {
    for (std::size_t r = 0; r < logs.size(); ++r) out[r] = outlier_indices(logs[r], z);
    return out;
  }
  double scale = robust_scale(pooled);
  if (scale == 0) return out;
  std::size_t leading = 0;  // slow outliers that open a run: a warm-up
  for (std::size_t r = 0; r < logs.size(); ++r) {
    std::size_t lead = 0;
    for (std::size_t i = 0; i < residuals[r].size(); ++i) {
      bool outlier = std::fabs(residuals[r][i]) / scale > z;
      if (outlier) out[r].push_back(i);
      if (outlier && residuals[r][i] > 0 && lead == i) ++lead;
    }
    leading = std::max(leading, lead);
  }
  for (std::size_t r = 0; r < logs.size(); ++r) {
    for (std::size_t i = 0; i < std::min(leading, logs[r].size()); ++i) out[r].push_back(i);
    std::sort(out[r].begin(), out[r].end());
    out[r].erase(std::unique(out[r].begin(), out[r].end()), out[r].end());
  }
  return out;
}

// The current run's sample first, then each baseline run's, with the outliers decided jointly.
std::vector<RunSample> samples_of(std::span<const double> current_us,
                                  const std::vector<std::vector<double>>& baseline_runs_us, double z) {
  std::vector<std::vector<double>> logs{logs_of(current_us)};
  for (const auto& run : baseline_runs_us) logs.push_back(logs_of(run));
  std::vector<std::vector<std::size_t>> outliers = joint_outliers(logs, z);
  std::vector<RunSample> out;
  for (std::size_t r = 0; r < logs.size(); ++r) out.push_back(sample_of(logs[r], std::move(outliers[r])));
  return out;
}

// DerSimonian-Laird: the between-run variance that makes the runs' spread around their
// inverse-variance mean match what their within-run variances `v` alone explain.
double between_run_variance(const std::vector<double>& means, const std::vector<double>& v) {
  double sw = 0, sw2 = 0, swm = 0;
  for (std::size_t r = 0; r < means.size(); ++r) {
    double w = 1 / v[r];
    sw += w;
    sw2 += w * w;
    swm += w * means[r];
  }
  double fixed = swm / sw, q = 0;
  for (std::size_t r = 0; r < means.size(); ++r) q += (means[r] - fixed) * (means[r] - fixed) / v[r];
  double k = static_cast<double>(means.size());
  return std::max(0.0, (q - (k - 1)) / (sw - sw2 / sw));
}

// Welch-Satterthwaite degrees of freedom of a + b, each variance with its own.
double satterthwaite(double a, double df_a, double b, double df_b) {
  double denominator = (df_a > 0 ? a * a / df_a : 0) + (df_b > 0 ? b * b / df_b : 0);
  return denominator > 0 ? (a + b) * (a + b) / denominator : df_a + df_b;
}

// The variance of the change and its degrees of freedom for given step counts and noise.
struct ChangeVariance {
  double variance = 0, df = 1;
};

ChangeVariance change_variance(double within_var, double within_df, double current_n,
                               const std::vector<double>& run_n, double tau2, std::size_t runs) {
  double sum_w = 0;
  for (double n : run_n) sum_w += within_var / n + tau2 > 0 ? 1 / (within_var / n + tau2) : 0;
  double a = within_var / current_n;
  double b = sum_w > 0 ? tau2 + 1 / sum_w : 0;
  if (tau2 == 0) return {a + b, within_df};  // both parts come from the within-run noise
  return {a + b, std::max(1.0, satterthwaite(a, within_df, b, static_cast<double>(runs) - 1))};
}

}  // namespace

double student_t_quantile(double p, double df) {
  if (df > 1e6) return boost::math::quantile(boost::math::normal(), p);
  return boost::math::quantile(boost::math::students_t(df), p);
}

double student_t_upper(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 0 : 1;
  if (df > 1e6) return boost::math::cdf(boost::math::complement(boost::math::normal(), t));
  return boost::math::cdf(boost::math::complement(boost::math::students_t(df), t));
}

std::vector<std::size_t> outlier_indices(std::span<const double> values, double threshold) {
  std::vector<std::size_t> out;
  if (values.size() < 3) return out;
  double median = statistic(values, Statistic::Median);
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::fabs(v - median));
  // MAD scaled to a standard deviation (0.6745 is the normal quantile at 0.75); the mean absolute
  // deviation when half the values or more are equal.
  double scale = robust_scale(deviations);
  if (scale == 0) return out;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (deviations[i] / scale > threshold) out.push_back(i);
  return out;
}

std::vector<std::vector<double>> kept_log_steps(std::span<const double> current_us,
                                                const std::vector<std::vector<double>>& baseline_runs_us,
                                                double z) {
  std::vector<std::vector<double>> out;
  for (RunSample& s : samples_of(current_us, baseline_runs_us, z)) out.push_back(std::move(s.kept));
  return out;
}

std::optional<StepChange> estimate_step_change(std::span<const double> current_us,
                                               const std::vector<std::vector<double>>& baseline_runs_us,
                                               const StepChangeOptions& options,
                                               StepChangeShortfall* shortfall) {
  StepChange c;
  std::vector<RunSample> runs = samples_of(current_us, baseline_runs_us, options.outlier_z);
  RunSample now = std::move(runs.front());
  runs.erase(runs.begin());
  c.current_outliers = now.outlier_indices;
  for (const RunSample& run : runs) c.baseline_outlier_steps.push_back(run.outliers);
  // Outlier runs, by their level, when there are enough runs to tell.
  std::vector<double> levels;
  std::vector<std::size_t> level_run;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (runs[r].n() > 0) levels.push_back(runs[r].mean), level_run.push_back(r);
  if (options.outlier_z > 0 && levels.size() >= 5)
    for (std::size_t i : outlier_indices(levels, options.outlier_z)) c.excluded_runs.push_back(level_run[i]);
  std::vector<const RunSample*> used;
  double within_ss = 0, within_df = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].n() == 0 || std::count(c.excluded_runs.begin(), c.excluded_runs.end(), r)) continue;
    used.push_back(&runs[r]);
    c.baseline_steps += runs[r].n();
    within_ss += runs[r].sum_squares;
    within_df += static_cast<double>(runs[r].n()) - 1;
  }
  c.current_steps = now.n();
  c.baseline_runs = used.size();
  if (now.n() < 2 || within_df < 1) {
    if (shortfall) *shortfall = {c.current_steps, c.baseline_steps};
    return std::nullopt;
  }
  // The baseline runs' within-run variance weighs them; the test's noise pools every run's steps,
  // the current run's too: its own few steps alone would estimate it poorly.
  double baseline_within_var = within_ss / within_df;
  double current_n = static_cast<double>(now.n());
  double pooled_df = within_df + current_n - 1;
  double within_var = (within_ss + now.sum_squares) / pooled_df;
  c.within_sd = std::sqrt(within_var);

  std::vector<double> means, v, run_n;
  for (const RunSample* s : used) {
    means.push_back(s->mean);
    run_n.push_back(static_cast<double>(s->n()));
    v.push_back(baseline_within_var / static_cast<double>(s->n()));
  }
  double tau2 = 0;
  if (used.size() >= 3 && baseline_within_var > 0) {
    tau2 = between_run_variance(means, v);
    c.between_sd = std::sqrt(tau2);
  }
  double sum_w = 0, sum_wm = 0;
  for (std::size_t r = 0; r < means.size(); ++r) {
    double w = v[r] + tau2 > 0 ? 1 / (v[r] + tau2) : 1;
    sum_w += w;
    sum_wm += w * means[r];
  }
  c.log_change = now.mean - sum_wm / sum_w;
  ChangeVariance cv = change_variance(within_var, pooled_df, current_n, run_n, tau2, used.size());
  c.se = std::sqrt(cv.variance);
  c.df = cv.df;
  c.ratio = std::exp(c.log_change);
  double half = c.se > 0 ? student_t_quantile((1 + options.confidence) / 2, c.df) * c.se : 0;
  c.ci_low = std::exp(c.log_change - half);
  c.ci_high = std::exp(c.log_change + half);
  if (c.se > 0) {
    c.p_slower = student_t_upper(c.log_change / c.se, c.df);
    c.p_faster = student_t_upper(-c.log_change / c.se, c.df);
  } else {  // no noise at all: any difference is certain, none is no evidence
    c.p_slower = c.log_change > 0 ? 0 : 1;
    c.p_faster = c.log_change < 0 ? 0 : 1;
  }
  c.mdc_log = (student_t_quantile(1 - options.alpha, c.df) + student_t_quantile(options.power, c.df)) * c.se;
  return c;
}

std::optional<std::size_t> steps_to_detect(const StepChange& change, double log_limit,
                                           const StepChangeOptions& options) {
  double within_var = change.within_sd * change.within_sd;
  double tau2 = change.between_sd ? *change.between_sd * *change.between_sd : 0;
  std::size_t runs = std::max<std::size_t>(1, change.baseline_runs);
  for (std::size_t n = 2; n <= 10000; n += n < 64 ? 1 : n / 16) {
    double steps = static_cast<double>(n);
    std::vector<double> run_n(runs, steps);
    double within_df = static_cast<double>(runs + 1) * (steps - 1);
    ChangeVariance cv = change_variance(within_var, within_df, steps, run_n, tau2, runs);
    double mdc = (student_t_quantile(1 - options.alpha, cv.df) + student_t_quantile(options.power, cv.df)) *
                 std::sqrt(cv.variance);
    if (mdc <= log_limit) return n;
  }
  return std::nullopt;
}

}  // namespace perfgate
