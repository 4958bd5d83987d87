// E-divisive means on series whose answer is known: q̂ by hand, the fast split search against a
// brute-force one, a planted step, two steps, pure noise (and its false-alarm rate), constant
// series and the minimum segment.
#include <gtest/gtest.h>

#include <numeric>

#include "history/change_points.h"
#include "support/noise.h"

namespace perfgate::testing {
namespace {

double mean(const std::vector<double>& v, std::size_t begin, std::size_t end) {
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(begin),
                         v.begin() + static_cast<std::ptrdiff_t>(end), 0.0) /
         static_cast<double>(end - begin);
}

TEST(DivergenceQHat, HandComputedOnSmallSamples) {
  // X = {1, 2}, Y = {4, 6}: Σ|x-y| = 3 + 5 + 2 + 4 = 14, within X: 1, within Y: 2.
  // q̂ = (2·2 / 4) · (2·14 / (2·2) - 1 / C(2,2) - 2 / C(2,2)) = 1 · (7 - 1 - 2) = 4.
  std::vector<double> x = {1, 2}, y = {4, 6};
  EXPECT_DOUBLE_EQ(divergence_q_hat(x, y), 4.0);
  // A sample of one has no within term. X = {0}, Y = {3, 5}: Σ|x-y| = 8, within Y: 2.
  // q̂ = (1·2 / 3) · (2·8 / 2 - 2 / 1) = (2/3) · 6 = 4.
  std::vector<double> one = {0}, two = {3, 5};
  EXPECT_DOUBLE_EQ(divergence_q_hat(one, two), 4.0);
  // Two samples from the same values diverge less than nothing: X = {1, 3}, Y = {1, 3}:
  // Σ|x-y| = 0 + 2 + 2 + 0 = 4; q̂ = 1 · (2·4/4 - 2 - 2) = -2.
  std::vector<double> a = {1, 3};
  EXPECT_DOUBLE_EQ(divergence_q_hat(a, a), -2.0);
}

TEST(StrongestSplit, HandComputedOnAStep) {
  // {1,1,1,5,5,5} with segments of at least 3: the only split is tau = 3, kappa = 6.
  // Σ|x-y| = 9 · 4 = 36, no within distance: q̂ = (3·3 / 6) · (2·36 / 9) = 1.5 · 8 = 12.
  std::vector<double> s = {1, 1, 1, 5, 5, 5};
  auto split = strongest_split(s, 3);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->tau, 3u);
  EXPECT_EQ(split->kappa, 6u);
  EXPECT_DOUBLE_EQ(split->q_hat, 12.0);
  EXPECT_FALSE(strongest_split(std::vector<double>{1, 2, 3, 4, 5}, 3)) << "too short for two segments of 3";
}

TEST(StrongestSplit, SameAsABruteForceSearchOverTauAndKappa) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::size_t n = 6 + seed % 20, min_segment = 1 + seed % 3;
    std::vector<double> s = noisy_series(
        n, seed, [&](std::size_t i) { return i < n / 2 ? 50.0 : 53.0; }, 4);
    std::optional<Split> brute;
    for (std::size_t tau = min_segment; tau + min_segment <= n; ++tau)
      for (std::size_t kappa = tau + min_segment; kappa <= n; ++kappa) {
        std::span<const double> all(s);
        double q = divergence_q_hat(all.subspan(0, tau), all.subspan(tau, kappa - tau));
        if (!brute || q > brute->q_hat) brute = Split{tau, kappa, q};
      }
    auto fast = strongest_split(s, min_segment);
    ASSERT_TRUE(fast && brute) << "seed " << seed;
    EXPECT_EQ(fast->tau, brute->tau) << "seed " << seed;
    EXPECT_EQ(fast->kappa, brute->kappa) << "seed " << seed;
    EXPECT_NEAR(fast->q_hat, brute->q_hat, 1e-9 * std::fabs(brute->q_hat)) << "seed " << seed;
  }
}

TEST(ChangePoints, PlantedStepIsFoundAtItsIndex) {
  // 30 runs of 100 with 2% noise, 10% slower from run index 17 on.
  std::vector<double> s = noisy_series(
      30, 11, [](std::size_t i) { return i < 17 ? 100.0 : 110.0; }, 2);
  std::vector<ChangePoint> found = find_change_points(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 17u);
  EXPECT_LE(found[0].p_value, 0.001);
  EXPECT_GE(found[0].p_value, 1.0 / 1000) << "never below 1 / (permutations + 1)";
  double before = mean(s, 0, 17), after = mean(s, 17, 30);
  EXPECT_DOUBLE_EQ(found[0].before_mean, before);
  EXPECT_DOUBLE_EQ(found[0].after_mean, after);
  ASSERT_TRUE(found[0].change_pct);
  EXPECT_NEAR(*found[0].change_pct, 100 * (after - before) / before, 1e-9);
  EXPECT_NEAR(*found[0].change_pct, 10, 2.5);
}

TEST(ChangePoints, PlantedStepIsFoundWhateverTheNoise) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::vector<double> s = noisy_series(
        30, seed, [](std::size_t i) { return i < 17 ? 100.0 : 110.0; }, 2);
    std::vector<ChangePoint> found = find_change_points(s);
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    EXPECT_EQ(found[0].index, 17u) << "seed " << seed;
  }
}

TEST(ChangePoints, PureNoiseHasNone) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::vector<double> s = noisy_series(
        30, 100 + seed, [](std::size_t) { return 100.0; }, 2);
    EXPECT_TRUE(find_change_points(s).empty()) << "seed " << 100 + seed;
  }
}

// The permutation test is exact under exchangeable noise: the share of pure-noise series with a
// change point is at most the level, plus sampling error (3 standard errors of 300 series). At
// MongoDB's level 0.05 with 199 permutations, so that the rate can be seen in 300 series.
TEST(ChangePoints, FalseAlarmsOfPureNoiseStayWithinTheLevel) {
  constexpr std::size_t kSeries = 300;
  ChangePointOptions options;
  options.max_p_value = 0.05;
  options.permutations = 199;
  std::size_t alarms = 0;
  for (std::uint64_t seed = 1; seed <= kSeries; ++seed)
    alarms += !find_change_points(noisy_series(
                                      30, 1000 + seed, [](std::size_t) { return 100.0; }, 2),
                                  options)
                   .empty();
  double rate = static_cast<double>(alarms) / kSeries;
  EXPECT_LE(rate, 0.05 + 3 * std::sqrt(0.05 * 0.95 / kSeries)) << alarms << " of " << kSeries;
  EXPECT_GT(alarms, 0u) << "a level of 0.05 does raise false alarms: the test can see them";
}

// Issue 74, item 5: 10 runs then K at +10% (two constant levels): the exact bound 2 / C(10 + K, K)
// is below 0.001 for every K from 5 (2 / 3003), yet K = 6 and 7 were missed, at the fixed seed, by
// a shuffle that rebuilt the step in the other order and counted as "as strong". Those shuffles
// are the bound's own arrangements: each K is now found at index 10, on any seed.
TEST(ChangePoints, ACleanSustainedShiftAfterFiveRunsIsFound) {
  for (std::size_t after = 5; after <= 9; ++after)
    for (std::uint64_t seed : {20140101ull, 1ull, 2ull}) {
      std::vector<double> s(10, 100.0);
      s.insert(s.end(), after, 110.0);
      ChangePointOptions o;
      o.seed = seed;
      std::vector<ChangePoint> found = find_change_points(s, o);
      ASSERT_EQ(found.size(), 1u) << after << " after, seed " << seed;
      EXPECT_EQ(found[0].index, 10u);
      EXPECT_LE(found[0].p_value, 0.001);
    }
  // Generated series, 10 runs at 100 and 5 at 110 with 1% noise (10 sd apart: every arrangement as
  // strong rebuilds the step): found at index 10 in all 20. (At +5%, 5 sd, some series overlap and
  // other arrangements are as strong: 16 of these 20 are found with 999 shuffles, 18 with 9,999 —
  // docs/trends.md.)
  std::size_t found_at_10 = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::vector<double> s = noisy_series(
        15, 500 + seed, [](std::size_t i) { return i < 10 ? 100.0 : 110.0; }, 1);
    std::vector<ChangePoint> found = find_change_points(s);
    found_at_10 += found.size() == 1 && found[0].index == 10;
  }
  EXPECT_EQ(found_at_10, 20u);
}

// With the rebuilding shuffles no longer counted, pure noise still stays within the level: 15 runs
// at 2% noise, 300 series, at the default level 0.001 (at most 0.3 + 3 x sqrt(0.3) = 1.9 expected).
TEST(ChangePoints, FalseAlarmsOfShortPureNoiseStayWithinTheDefaultLevel) {
  std::size_t alarms = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed)
    alarms += !find_change_points(noisy_series(
                                      15, 3000 + seed, [](std::size_t) { return 100.0; }, 2))
                   .empty();
  EXPECT_LE(alarms, 1u) << alarms << " of 300";
}

TEST(ChangePoints, TwoStepsAreBothFound) {
  // +12% at 15, then -7.1% (112 -> 104) at 30.
  std::vector<double> s = noisy_series(
      45, 3, [](std::size_t i) { return i < 15   ? 100.0
                                        : i < 30 ? 112.0
                                                 : 104.0; }, 2);
  std::vector<ChangePoint> found = find_change_points(s);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].index, 15u);
  EXPECT_EQ(found[1].index, 30u);
  // Each change compares the segments on either side of it, up to the other change.
  EXPECT_DOUBLE_EQ(found[0].before_mean, mean(s, 0, 15));
  EXPECT_DOUBLE_EQ(found[0].after_mean, mean(s, 15, 30));
  EXPECT_DOUBLE_EQ(found[1].before_mean, mean(s, 15, 30));
  EXPECT_DOUBLE_EQ(found[1].after_mean, mean(s, 30, 45));
  EXPECT_GT(*found[0].change_pct, 8);
  EXPECT_LT(*found[1].change_pct, -4);
}

TEST(ChangePoints, ConstantSeriesHaveNone) {
  EXPECT_TRUE(find_change_points(std::vector<double>(30, 42.0)).empty());
  EXPECT_TRUE(find_change_points(std::vector<double>(30, 0.0)).empty());
  EXPECT_TRUE(find_change_points(std::vector<double>{}).empty());
  EXPECT_TRUE(find_change_points(std::vector<double>{7}).empty());
}

TEST(ChangePoints, AStepFromZeroHasNoPercentage) {
  std::vector<double> s(30, 0.0);
  for (std::size_t i = 20; i < 30; ++i) s[i] = 5;
  std::vector<ChangePoint> found = find_change_points(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 20u);
  EXPECT_EQ(found[0].before_mean, 0);
  EXPECT_EQ(found[0].after_mean, 5);
  EXPECT_FALSE(found[0].change_pct) << "no percentage of 0";
}

TEST(ChangePoints, MinimumSegmentKeepsChangesAwayFromTheEnds) {
  // 10% slower for the last 3 of 30 runs.
  std::vector<double> s = noisy_series(
      30, 7, [](std::size_t i) { return i < 27 ? 100.0 : 110.0; }, 2);
  std::vector<ChangePoint> found = find_change_points(s);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 27u) << "3 runs after the step: the default minimum";
  ChangePointOptions four;
  four.min_segment = 4;
  for (const ChangePoint& c : find_change_points(s, four)) {
    EXPECT_GE(c.index, 4u);
    EXPECT_LE(c.index, 26u);
  }
}

TEST(ChangePoints, SameSeriesSameAnswer) {
  std::vector<double> s = noisy_series(
      40, 5, [](std::size_t i) { return i < 22 ? 100.0 : 103.0; }, 2);
  std::vector<ChangePoint> a = find_change_points(s), b = find_change_points(s);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
}

}  // namespace
}  // namespace perfgate::testing
