#include "analyse/steps/step_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace perfgate {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
  auto lower = static_cast<std::size_t>(std::floor(rank));
  std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

std::optional<SummaryStats> summarize(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  SummaryStats s;
  s.count = values.size();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(s.count);
  s.median = percentile(values, 50);
  s.min = values.front();
  s.max = values.back();
  s.p90 = percentile(values, 90);
  s.p99 = percentile(values, 99);
  if (s.count >= 2) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  return s;
}

std::size_t robust_outliers(const std::vector<double>& values) {
  if (values.empty()) return 0;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  double median = percentile(sorted, 50);
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::fabs(v - median));
  std::sort(deviations.begin(), deviations.end());
  double limit = 3 * 1.4826 * percentile(deviations, 50);
  std::size_t n = 0;
  for (double d : deviations) n += d > limit;
  return n;
}

double trend_slope(const std::vector<double>& values) {
  double n = static_cast<double>(values.size());
  if (values.size() < 2) return 0;
  double mean_x = (n - 1) / 2, mean_y = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double covariance = 0, variance = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    double dx = static_cast<double>(i) - mean_x;
    covariance += dx * (values[i] - mean_y);
    variance += dx * dx;
  }
  return covariance / variance;
}

}  // namespace perfgate
