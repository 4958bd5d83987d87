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
};

// Percentile with linear interpolation between closest ranks (numpy's default); q in [0, 100].
double percentile(const std::vector<double>& sorted, double q);
std::optional<SummaryStats> summarize(std::vector<double> values);

}  // namespace perfgate
