// The statistics of the step-time gate: a one-sided Mann-Whitney U test and a bootstrap
// confidence interval of the ratio of two samples' medians (or means).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace perfgate {

struct MannWhitney {
  double u = 0;        // pairs (x, y) with x > y, ties counting one half
  double p_value = 1;  // P(U >= u) when both samples come from one distribution
  bool exact = false;  // exact distribution (no ties, small samples) or the normal approximation
};

// H1: values of `x` tend to be larger than those of `y`.
MannWhitney mann_whitney_greater(std::span<const double> x, std::span<const double> y);

// The smallest p-value the test can give for these sample sizes (exact, no ties): 1 / C(m+n, m).
double smallest_exact_p(std::size_t m, std::size_t n);

enum class Statistic { Median, Mean };
double statistic(std::span<const double> values, Statistic s);

struct RatioInterval {
  double estimate = 0;  // statistic(x) / statistic(y)
  double low = 0;
  double high = 0;
};

// Percentile bootstrap: each sample resampled with replacement, `resamples` times, from a fixed
// seed so that a report is reproducible.
RatioInterval bootstrap_ratio(std::span<const double> x, std::span<const double> y, Statistic s,
                              double confidence, int resamples, std::uint64_t seed = 0x5eed2026);

}  // namespace perfgate
