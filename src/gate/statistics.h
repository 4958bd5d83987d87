// Rank statistics of the step-time gate: a one-sided Mann-Whitney U test (`test: mann-whitney`),
// and the median or mean a step-time rule reads.
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

}  // namespace perfgate
