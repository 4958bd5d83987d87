// The gate's statistics. Expected p-values come from an independent computation in Python: full
// enumeration of the splits of the pooled sample for the small cases, a counting recurrence over
// C(m+n, m) splits for 12 against 15, and the textbook normal formula for the tied case.
#include <gtest/gtest.h>

#include <vector>

#include "gate/statistics.h"

namespace perfgate {
namespace {

TEST(MannWhitney, ExactPValuesOfSmallSamples) {
  struct Case {
    std::vector<double> x, y;
    double u, p;
  };
  const Case cases[] = {
      {{4, 5, 6}, {1, 2, 3}, 9, 0.05},  // every x above every y: 1 / C(6, 3)
      {{1, 2, 3}, {4, 5, 6}, 0, 1.0},
      {{1.5, 3.2, 4.8, 6.1}, {1.0, 2.1, 3.0}, 10, 0.11428571428571428},
      {{10, 12, 14, 9, 13}, {8, 11, 7, 6, 9.5}, 22, 0.027777777777777776},
      {{3.1, 1.2, 5.5, 2.2, 4.4, 6.6}, {2.5, 1.1, 3.3, 0.9, 5.0}, 21, 0.1645021645021645},
  };
  for (const Case& c : cases) {
    MannWhitney r = mann_whitney_greater(c.x, c.y);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, c.u);
    EXPECT_NEAR(r.p_value, c.p, 1e-12);
  }
}

TEST(MannWhitney, ExactForLargerSamplesWithoutTies) {
  std::vector<double> x = {11.295, 10.603, 12.604, 10.29,  12.144, 11.463,
                           10.232, 12.03,  10.15,  11.735, 10.279, 10.363};
  std::vector<double> y = {10.698, 12.307, 9.495,  9.893,  11.51, 12.791, 11.308, 10.587,
                           12.905, 9.186,  12.434, 10.158, 9.577, 9.471,  10.234};
  MannWhitney r = mann_whitney_greater(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 105);
  EXPECT_NEAR(r.p_value, 0.24280993979472915, 1e-12);
}

TEST(MannWhitney, TiesUseTheNormalApproximationWithTieCorrection) {
  std::vector<double> x = {10, 11, 11, 12, 13, 13, 14, 15, 15, 16};
  std::vector<double> y = {9, 10, 10, 11, 12, 12, 13, 13, 14, 14};
  MannWhitney r = mann_whitney_greater(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 67);
  EXPECT_NEAR(r.p_value, 0.10380956998984107, 1e-12);  // the exact permutation p is 0.1054
}

TEST(MannWhitney, SmallestExactPValue) {
  EXPECT_DOUBLE_EQ(smallest_exact_p(3, 3), 1.0 / 20);
  EXPECT_DOUBLE_EQ(smallest_exact_p(8, 8), 1.0 / 12870);
  EXPECT_DOUBLE_EQ(smallest_exact_p(1, 8), 1.0 / 9);
}

TEST(Statistic, MedianAndMean) {
  std::vector<double> odd = {5, 1, 3}, even = {4, 1, 3, 2};
  EXPECT_EQ(statistic(odd, Statistic::Median), 3);
  EXPECT_EQ(statistic(even, Statistic::Median), 2.5);
  EXPECT_EQ(statistic(even, Statistic::Mean), 2.5);
}

}  // namespace
}  // namespace perfgate
