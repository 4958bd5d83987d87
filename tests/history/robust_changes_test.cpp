// Issue 95: change points that one outlier cannot hide, measured on seeded simulated histories (no
// timing): an early outlier before a sustained shift, a +10% shift after 6 of 12 runs, 30 runs of
// noise; and the outlier screen's own answers on series whose outliers are known.
#include <gtest/gtest.h>

#include <cstdlib>

#include "history/change_points.h"
#include "support/noise.h"

namespace perfgate::testing {
namespace {

struct Rates {
  std::size_t series = 0, at_the_run = 0, one_at_the_run = 0, any_change = 0, outlier_named = 0,
              outlier_as_change = 0;
};

// 13 runs of 100 at `noise_pct` noise: run 2 is +40% (a noisy machine), runs 7 to 12 a sustained +40%.
std::vector<double> outlier_then_shift(std::uint64_t seed, double noise_pct) {
  return noisy_series(
      13, seed, [](std::size_t i) { return i == 2 || i >= 7 ? 140.0 : 100.0; }, noise_pct);
}

Rates early_outlier_rates(std::uint64_t first_seed, std::size_t seeds, double noise_pct,
                          const ChangePointOptions& o) {
  Rates r;
  for (std::uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    SeriesChanges c = find_changes(outlier_then_shift(seed, noise_pct), o);
    ++r.series;
    r.any_change += !c.change_points.empty();
    r.one_at_the_run += c.change_points.size() == 1 && c.change_points[0].index == 7;
    for (const ChangePoint& p : c.change_points) r.at_the_run += p.index == 7;
    r.outlier_named += c.outliers.size() == 1 && c.outliers[0].index == 2;
    for (const ChangePoint& p : c.change_points) r.outlier_as_change += p.index == 2 || p.index == 3;
  }
  return r;
}

Rates shift_rates(std::uint64_t first_seed, std::size_t seeds, std::size_t runs, std::size_t at,
                  double shift_pct, double noise_pct, const ChangePointOptions& o) {
  Rates r;
  for (std::uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    SeriesChanges c = find_changes(
        noisy_series(
            runs, seed, [&](std::size_t i) { return i < at ? 100.0 : 100.0 + shift_pct; }, noise_pct),
        o);
    ++r.series;
    r.any_change += !c.change_points.empty();
    r.at_the_run += c.change_points.size() == 1 && c.change_points[0].index == at;
    r.one_at_the_run = r.at_the_run;
    r.outlier_named += !c.outliers.empty();
  }
  return r;
}

TEST(RobustChangePoints, AnEarlyOutlierDoesNotHideALastingShift) {
  // The issue's history, 2% noise, noise seeds 9500001 to 9500200. Measured: the shift at run 7 in
  // all 200 (the only change point in 197: 9500164 has two more at p 0.004 and 0.006), run 2 named the
  // one outlier in 198 (in 9500041 and 9500086 the noise of the runs is large enough to hide it: the
  // shift is found at run 7 all the same), never a change point.
  Rates r = early_outlier_rates(9500001, 200, 2, {});
  EXPECT_EQ(r.at_the_run, r.series) << "the shift found at run 7";
  EXPECT_GE(r.one_at_the_run, 195u) << "and only it";
  EXPECT_GE(r.outlier_named, 196u) << "run 2 named the one outlier";
  EXPECT_EQ(r.outlier_as_change, 0u);
  // Without the screen (the series as it is), run 3's variance hides the shift at Apache Otava's
  // level 0.001 in most series (measured: found in 19 of 200; with the screen in 199); at 0.01 it is
  // found in 192, at p about 0.003 where the screened series gives about 1e-11.
  ChangePointOptions otava;
  otava.max_p_value = 0.001;
  std::size_t unscreened = 0, screened = 0;
  for (std::uint64_t seed = 9500001; seed <= 9500200; ++seed) {
    unscreened += !find_change_points(outlier_then_shift(seed, 2), otava).empty();
    for (const ChangePoint& p : find_changes(outlier_then_shift(seed, 2), otava).change_points)
      screened += p.index == 7;
  }
  EXPECT_LT(unscreened, 40u) << "the outlier hides the shift: found in " << unscreened << " of 200";
  EXPECT_GE(screened, 195u) << "the screen is what finds it: " << screened << " of 200";
}

TEST(RobustChangePoints, TheIssuesOwnSeriesNamesItsOutlierAndItsShift) {
  std::vector<double> s = {100, 101, 140, 99, 100, 102, 98, 141, 139, 140, 142, 138, 140};
  SeriesChanges c = find_changes(s);
  ASSERT_EQ(c.outliers.size(), 1u);
  EXPECT_EQ(c.outliers[0].index, 2u);
  EXPECT_DOUBLE_EQ(c.outliers[0].level, 100.5);  // the median of 100 and 101 (the two runs before it)
  ASSERT_TRUE(c.outliers[0].change_pct);
  EXPECT_DOUBLE_EQ(*c.outliers[0].change_pct, 100 * 39.5 / 100.5);
  ASSERT_EQ(c.change_points.size(), 1u);
  const ChangePoint& p = c.change_points[0];
  EXPECT_EQ(p.index, 7u);
  EXPECT_EQ(p.before_index, 6u);
  EXPECT_EQ(p.runs_before, 6u) << "7 runs before it, less the outlier";
  EXPECT_EQ(p.runs_after, 6u);
  EXPECT_DOUBLE_EQ(p.before_mean, 100);  // (100 + 101 + 99 + 100 + 102 + 98) / 6
  EXPECT_DOUBLE_EQ(p.after_mean, 140);
  EXPECT_DOUBLE_EQ(*p.change_pct, 40);
}

TEST(RobustChangePoints, ATenPercentShiftAfterSixOfTwelveRunsIsFound) {
  ChangePointOptions o;
  // Noise seeds 9600001 to 9600200 at 2% and at 3% of the level. Measured: at 2%, a change point in
  // all 200, at run 6 (and only there) in 195; at 3% (a shift of 3.3 noise widths, 6 runs a side), in
  // 145, at run 6 in 131.
  Rates two = shift_rates(9600001, 200, 12, 6, 10, 2, o);
  Rates three = shift_rates(9600001, 200, 12, 6, 10, 3, o);
  EXPECT_EQ(two.any_change, 200u);
  EXPECT_GE(two.at_the_run, 190u) << "at 2% noise: " << two.at_the_run << " of 200 at run 6";
  EXPECT_GE(three.at_the_run, 120u) << "at 3% noise: " << three.at_the_run << " of 200 at run 6";
  if (std::getenv("PERFGATE_PRINT_RATES"))
    std::printf("+10%% after 6 of 12: at 2%% %zu/200 (any %zu), at 3%% %zu/200 (any %zu)\n", two.at_the_run,
                two.any_change, three.at_the_run, three.any_change);
}

TEST(RobustChangePoints, ThirtyRunsOfNoiseHaveNoChangePointInAtLeast95PercentOfSeeds) {
  // Noise seeds 9700001 to 9701000, 2% Gaussian noise. Measured: a change point in 4 of 1000 series,
  // an outlier named in 7 (a run 5 robust noise widths off: Gaussian tails with a noise estimated
  // from 29 differences).
  Rates r = shift_rates(9700001, 1000, 30, 30, 0, 2, {});
  EXPECT_LE(r.any_change, 50u) << r.any_change << " of 1000 series of noise with a change point";
  EXPECT_LE(r.outlier_named, 50u) << r.outlier_named << " of 1000 with an outlier named";
  if (std::getenv("PERFGATE_PRINT_RATES"))
    std::printf("noise, 30 runs: change point in %zu/1000, an outlier in %zu/1000\n", r.any_change,
                r.outlier_named);
}

TEST(RobustChangePoints, TheStartOfAShiftAndAShortChangeAreNoOutliers) {
  // A shift: its first run is at the level of the runs after it.
  std::vector<double> shift = {100, 101, 99, 100, 102, 98, 130, 131, 129, 130, 132, 128};
  EXPECT_TRUE(isolated_outliers(shift, 3).empty());
  // Three runs at a level of their own are a short change (a segment), not three outliers.
  std::vector<double> plateau = {100, 101, 99, 100, 130, 131, 129, 100, 102, 98, 100, 101};
  EXPECT_TRUE(isolated_outliers(plateau, 3).empty());
  // Two are outliers, each.
  std::vector<double> pair = {100, 101, 99, 100, 130, 131, 100, 102, 98, 100, 101};
  std::vector<Outlier> two = isolated_outliers(pair, 3);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].index, 4u);
  EXPECT_EQ(two[1].index, 5u);
  // The last run may be the first of a change: never an outlier. The first run can be one.
  std::vector<double> ends = {140, 100, 101, 99, 100, 102, 98, 100, 140};
  std::vector<Outlier> first = isolated_outliers(ends, 3);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].index, 0u);
  EXPECT_DOUBLE_EQ(first[0].level, 100) << "the median of the 3 runs after it (100, 101, 99)";
  // A fast run is an outlier too.
  std::vector<double> fast = {100, 101, 99, 60, 100, 102, 98, 100};
  ASSERT_EQ(isolated_outliers(fast, 3).size(), 1u);
  EXPECT_TRUE(isolated_outliers(fast, 1).empty()) << "a run alone can be a segment";
}

TEST(RobustChangePoints, RobustNoiseIgnoresAShiftAndAnOutlier) {
  // Differences 1, 1, 1, 1, 1, 1, 41, 1, 1, 1: median 1.
  std::vector<double> s = {100, 101, 100, 101, 100, 101, 100, 141, 140, 141, 140};
  EXPECT_NEAR(robust_noise(s), 1.4826 / std::sqrt(2.0), 1e-12);
  EXPECT_DOUBLE_EQ(robust_noise(std::vector<double>{5.0}), 0);
  EXPECT_NEAR(robust_noise(std::vector<double>(6, 2e6)), 2e-3, 1e-12) << "1e-9 of the level";
}

}  // namespace
}  // namespace perfgate::testing
