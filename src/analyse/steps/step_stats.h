// Summary statistics of step durations.
#pragma once

#include <optional>
#include <vector>

namespace perfgate {

struct SummaryStats {
  std::size_t count = 0;
  double mean = 0;
  double median = 0;
  std::optional<double> stddev;  // sample standard deviation (n - 1); needs two values
  double min = 0;
  double max = 0;
  double p90 = 0;
  double p99 = 0;
};

// Percentile with linear interpolation between closest ranks (numpy's default); q in [0, 100].
double percentile(const std::vector<double>& sorted, double q);
std::optional<SummaryStats> summarize(std::vector<double> values);

// Values further than 3 scaled median absolute deviations (3 x 1.4826 x MAD) from the median:
// a robust 3-sigma rule that one slow step cannot hide. With a MAD of 0, any value off the median.
std::size_t robust_outliers(const std::vector<double>& values);

// Least-squares slope of the values against their index (change per step).
double trend_slope(const std::vector<double>& values);

}  // namespace perfgate
