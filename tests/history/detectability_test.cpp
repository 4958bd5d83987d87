// What the permutation test can see in a few runs, by hand: a step is rebuilt by 2 of the
// C(n, k) ways to shuffle it, so its p-value is at least 2 / C(n, k); the runs a level needs; the
// reported p-value never below that bound; and changes smaller than a rule's limit merged away.
#include <gtest/gtest.h>

#include <bit>

#include "history/change_points.h"

namespace perfgate::testing {
namespace {

std::vector<double> step_series(std::size_t before, double low, std::size_t after, double high) {
  std::vector<double> s(before, low);
  s.insert(s.end(), after, high);
  return s;
}

TEST(Detectability, AStepIsRebuiltByTwoOfItsArrangements) {
  // 5 runs of 0 then 5 of 1. Its best split is the step itself: X = the 0s, Y = the 1s,
  // Σ|x-y| = 25, no distance within: q̂ = (5·5 / 10) · (2·25 / 25) = 2.5 · 2 = 5.
  std::vector<double> step = step_series(5, 0, 5, 1);
  auto observed = strongest_split(step, 3);
  ASSERT_TRUE(observed);
  EXPECT_DOUBLE_EQ(observed->q_hat, 5.0);
  // Every way to place the five 1s among 10 runs: C(10, 5) = 252. Only 00000 11111 and 11111 00000
  // give a split as strong; every other one mixes its groups.
  std::size_t arrangements = 0, as_strong = 0;
  for (unsigned mask = 0; mask < 1024; ++mask) {
    if (std::popcount(mask) != 5) continue;
    ++arrangements;
    std::vector<double> s(10);
    for (std::size_t i = 0; i < 10; ++i) s[i] = (mask >> i) & 1u;
    as_strong += strongest_split(s, 3)->q_hat >= observed->q_hat - 1e-12;
  }
  EXPECT_EQ(arrangements, 252u);
  EXPECT_EQ(as_strong, 2u);
  EXPECT_DOUBLE_EQ(p_value_floor(10, 5, 10), 2.0 / 252);
}

TEST(Detectability, TheTestsEstimateMeetsTheBound) {
  // The same step with 9,999 shuffles and no early stop: each one rebuilds it with chance
  // 2/252 = 0.00794, so about 79 of them do, and p = (1 + 79.4) / 10,000 = 0.0080. The count's
  // standard deviation is sqrt(9999 · 0.00794 · 0.992) = 8.9: 4 of them are 0.0036 of p.
  ChangePointOptions o;
  o.permutations = 9999;
  o.max_p_value = 0.5;
  std::vector<ChangePoint> found = find_change_points(step_series(5, 0, 5, 1), o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 5u);
  EXPECT_NEAR(found[0].p_value, (1 + 9999 * 2.0 / 252) / 10000, 0.0036);
}

TEST(Detectability, FloorOfASplitThatDoesNotReachTheEnd) {
  // A segment of 10 with X = 3 runs and Y = 3 runs, 4 after: 10! / (3! 3! 4!) = 4200 placements,
  // 2 of them rebuild X and Y: 2 / 4200.
  EXPECT_DOUBLE_EQ(p_value_floor(10, 3, 6), 2.0 / 4200);
  // 30 runs split 17 | 13: 2 / C(30, 13) = 2 / 119,759,850.
  EXPECT_DOUBLE_EQ(p_value_floor(30, 17, 30), 2.0 / 119759850);
}

TEST(Detectability, SmallestPValueOfASeries) {
  ChangePointOptions o;  // p <= 0.001, 999 permutations, segments of at least 3
  // 10 runs: a change in the middle, 2 / C(10, 5) = 2 / 252 = 0.0079 (the "about 0.009"
  // is the test's estimate of it, (1 + 999 · 0.0079) / 1000 = 0.0089).
  EXPECT_DOUBLE_EQ(smallest_p_value(10, o), 2.0 / 252);
  // 13 runs: 2 / C(13, 6) = 2 / 1716 = 0.00117, still above 0.001.
  EXPECT_DOUBLE_EQ(smallest_p_value(13, o), 2.0 / 1716);
  // 14 runs: 2 / C(14, 7) = 2 / 3432 = 0.00058, below what 999 shuffles resolve: 1 / 1000.
  EXPECT_DOUBLE_EQ(smallest_p_value(14, o), 0.001);
  // With 9,999 shuffles the arrangements are the floor: 0.00058.
  ChangePointOptions more = o;
  more.permutations = 9999;
  EXPECT_DOUBLE_EQ(smallest_p_value(14, more), 2.0 / 3432);
  // 5 runs: not two segments of 3, nothing to test.
  EXPECT_DOUBLE_EQ(smallest_p_value(5, o), 1.0);
  EXPECT_DOUBLE_EQ(smallest_p_value(0, o), 1.0);
}

TEST(Detectability, RunsNeededForALevel) {
  ChangePointOptions o;
  // p <= 0.001: C(n, n/2) >= 2 / 0.001 = 2000: C(13, 6) = 1716, C(14, 7) = 3432.
  EXPECT_EQ(runs_for_p_value(o), 14u);
  // p <= 0.01: C >= 200: C(9, 4) = 126, C(10, 5) = 252.
  o.max_p_value = 0.01;
  EXPECT_EQ(runs_for_p_value(o), 10u);
  // MongoDB's p <= 0.05 with 199 permutations: C >= 40: C(7, 3) = 35, C(8, 4) = 70.
  o.max_p_value = 0.05;
  o.permutations = 199;
  EXPECT_EQ(runs_for_p_value(o), 8u);
  // Segments of at least 5 need 10 runs, whatever the level allows.
  o.min_segment = 5;
  EXPECT_EQ(runs_for_p_value(o), 10u);
  // p <= 0.0005 with 999 shuffles: below 1 / 1000, no count of runs reaches it.
  ChangePointOptions fine;
  fine.max_p_value = 0.0005;
  EXPECT_FALSE(runs_for_p_value(fine));
}

TEST(Detectability, RunsAChangeNeedsOnEachSide) {
  ChangePointOptions o;
  // 16 runs: 2 / C(16, 4) = 2 / 1820 = 0.0011 > 0.001; 2 / C(16, 5) = 2 / 4368 = 0.00046.
  EXPECT_EQ(runs_each_side(16, o), 5u);
  // 14 runs: 2 / C(14, 4) = 2 / 1001 = 0.002; 2 / C(14, 5) = 2 / 2002 = 0.000999.
  EXPECT_EQ(runs_each_side(14, o), 5u);
  // 30 runs: 2 / C(30, 3) = 2 / 4060 = 0.00049: the minimum segment is enough.
  EXPECT_EQ(runs_each_side(30, o), 3u);
  // 10 runs: even 5 | 5 gives 0.0079.
  EXPECT_FALSE(runs_each_side(10, o));
}

TEST(ChangePoints, ReportedPValueIsNeverBelowTheExactBound) {
  // 6 runs of 100 then 7 of 140: 2 of the C(13, 6) = 1716 placements rebuild the step, so its
  // p-value is at least 2 / 1716 = 0.00117. 999 shuffles miss both with chance
  // (1 - 2/1716)^999 = 0.31 and would then report 1/1000 = 0.001: a change point at p <= 0.001
  // that 13 runs cannot show. Over 12 seeds that happens about 4 times.
  std::vector<double> s = step_series(6, 100, 7, 140);
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    ChangePointOptions o;
    o.seed = seed;
    EXPECT_TRUE(find_change_points(s, o).empty()) << "seed " << seed;
    o.max_p_value = 0.5;
    std::vector<ChangePoint> found = find_change_points(s, o);
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    EXPECT_GE(found[0].p_value, 2.0 / 1716) << "seed " << seed;
  }
}

TEST(ChangePoints, ChangesBelowTheMinimumEffectAreMerged) {
  // 10 runs of 100, 10 of 101, 10 of 130: +1% at 10, then +28.7% at 20; both are found.
  std::vector<double> s = step_series(10, 100, 10, 101);
  s.insert(s.end(), 10, 130);
  std::vector<ChangePoint> all = find_change_points(s);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].index, 10u);
  EXPECT_EQ(all[1].index, 20u);
  // With a minimum of 3% (the step-time rule's warning), the +1% step is no change: its segments
  // merge, and the change at 20 is from the mean of runs 0-19, (10·100 + 10·101) / 20 = 100.5,
  // to 130: 100 · 29.5 / 100.5 = +29.353%.
  std::vector<ChangePoint> kept = find_change_points(s, {}, MinEffect{0.03, true});
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].index, 20u);
  EXPECT_DOUBLE_EQ(kept[0].before_mean, 100.5);
  EXPECT_DOUBLE_EQ(kept[0].after_mean, 130);
  EXPECT_NEAR(*kept[0].change_pct, 100 * 29.5 / 100.5, 1e-9);
  // A minimum of 30% leaves nothing; a minimum of exactly the change keeps it.
  EXPECT_TRUE(find_change_points(s, {}, MinEffect{0.30, true}).empty());
  EXPECT_EQ(find_change_points(s, {}, MinEffect{29.5 / 100.5, true}).size(), 1u);
}

TEST(ChangePoints, AnAbsoluteMinimumEffectIsInTheMetricsUnit) {
  // A share: 8 runs at 0.57%, 8 at 33.4%: +32.83 points, more than 5.
  std::vector<double> share = step_series(8, 0.57, 8, 33.4);
  EXPECT_EQ(find_change_points(share, {}, MinEffect{5, false}).size(), 1u);
  // 50% to 52%: 2 points, less than 5 (though 4% of 50).
  std::vector<double> small = step_series(8, 50, 8, 52);
  EXPECT_EQ(find_change_points(small).size(), 1u);
  EXPECT_TRUE(find_change_points(small, {}, MinEffect{5, false}).empty());
  // From 0, any change is infinitely large relative to it.
  EXPECT_EQ(find_change_points(step_series(8, 0, 8, 1), {}, MinEffect{0.10, true}).size(), 1u);
}

}  // namespace
}  // namespace perfgate::testing
