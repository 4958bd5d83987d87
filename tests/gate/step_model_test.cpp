// The step-time model. Expected values come from an independent computation in Python (the
// formulas written out with math.log, Student's t density integrated by Simpson's rule to t + 400
// plus the analytic tail beyond, quantiles by bisection): the two-sample t-test on log step times
// for one baseline, DerSimonian-Laird's between-run variance and Satterthwaite's df for three.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gate/step_model.h"

namespace perfgate {
namespace {

TEST(OutlierSteps, ModifiedZScoreOnLogs) {
  // Two warm-up steps of five (the V100 ns-resolution trace's steps, ms). Logs: 3.5588, 4.2778,
  // 4.5613, 4.5597, 4.5613; median 4.5613; deviations 1.0025, 0.2835, 0, 0.0016, 0; MAD 0.0016,
  // scale 0.0016 / 0.6745 = 0.00235; z = 427, 120, 0, 0.67, 0: the first two exceed 3.5.
  std::vector<double> logs;
  for (double v : {35.12, 72.08, 95.7, 95.55, 95.7}) logs.push_back(std::log(v));
  EXPECT_EQ(outlier_indices(logs, 3.5), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(outlier_indices(logs, kOutlierZ), (std::vector<std::size_t>{0, 1}));
}

TEST(OutlierSteps, MeanDeviationWhenTheMadIsZero) {
  // [10, 10, 10, 10, 20]: MAD 0; mean absolute deviation of the logs ln 2 / 5 = 0.1386, times
  // 1.2533 = 0.1737; the last step's z = 0.6931 / 0.1737 = 3.99 > 3.5.
  std::vector<double> logs;
  for (double v : {10, 10, 10, 10, 20}) logs.push_back(std::log(v));
  EXPECT_EQ(outlier_indices(logs, 3.5), (std::vector<std::size_t>{4}));
  EXPECT_TRUE(outlier_indices(logs, kOutlierZ).empty());  // 3.99 < 5
  // [10, 10, 10, 12]: z = 0.1823 / (1.2533 * 0.1823 / 4) = 3.19: kept.
  logs.clear();
  for (double v : {10, 10, 10, 12}) logs.push_back(std::log(v));
  EXPECT_TRUE(outlier_indices(logs, 3.5).empty());
  EXPECT_TRUE(outlier_indices(std::vector<double>{1, 1, 1}, 3.5).empty());  // no spread at all
  EXPECT_TRUE(outlier_indices(std::vector<double>{1, 9}, 3.5).empty());     // too few to tell
}

TEST(StepChange, TwoSampleTOnLogStepTimesForOneBaseline) {
  std::vector<double> now = {110, 112, 108, 111, 109};
  std::vector<std::vector<double>> base = {{100, 102, 98, 101, 99}};
  auto c = estimate_step_change(now, base, StepChangeOptions{});
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->log_change, 0.095327540567, 1e-9);
  EXPECT_NEAR(c->se, 0.009557423287, 1e-9);
  EXPECT_NEAR(c->df, 8, 1e-12);  // 5 + 5 - 2
  EXPECT_NEAR(c->ratio, 1.100019097005, 1e-9);
  EXPECT_NEAR(c->p_slower, 4.32676467e-06, 1e-12);
  EXPECT_NEAR(c->p_faster, 1 - 4.32676467e-06, 1e-12);
  EXPECT_NEAR(c->ci_low, 1.0760404812, 1e-6);
  EXPECT_NEAR(c->ci_high, 1.1245320552, 1e-6);
  EXPECT_EQ(c->current_steps, 5u);
  EXPECT_EQ(c->baseline_steps, 5u);
  EXPECT_EQ(c->baseline_runs, 1u);
  EXPECT_FALSE(c->between_sd);  // one run: no run-to-run estimate
  EXPECT_NEAR(c->within_sd, 0.0151116131, 1e-9);
  // Minimum detectable change: (t(0.95, df) + t(0.8, df)) * se.
  EXPECT_NEAR(c->mdc_log, 0.0262679811, 1e-7);
}

TEST(StepChange, RunToRunNoiseFromThreeBaselines) {
  // Three baseline runs whose levels differ by a few percent: DerSimonian-Laird gives tau = 3.36%,
  // which dominates the standard error, so a +9.3% run is not significant (p = 0.073).
  std::vector<double> now = {110, 112, 108, 111, 109};
  std::vector<std::vector<double>> base = {
      {100, 102, 98, 101, 99}, {104, 103, 105, 106, 104}, {97, 99, 98, 96, 98}};
  auto c = estimate_step_change(now, base, StepChangeOptions{});
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->between_sd);
  EXPECT_NEAR(*c->between_sd, 0.0336191140, 1e-8);
  EXPECT_NEAR(c->log_change, 0.089039372674, 1e-9);
  EXPECT_NEAR(c->se, 0.039427126609, 1e-9);
  EXPECT_NEAR(c->df, 2.0947865128, 1e-6);
  EXPECT_NEAR(c->p_slower, 7.33576725e-02, 1e-8);
  EXPECT_NEAR(c->within_sd, 0.0133470805, 1e-9);
  EXPECT_EQ(c->baseline_runs, 3u);
  EXPECT_EQ(c->baseline_steps, 15u);
}

TEST(StepChange, OutlierStepsAndRunsAreSetAside) {
  // The current run's two warm-up steps are set aside; the comparison uses the other three.
  std::vector<double> now = {35.12, 72.08, 114.8, 114.66, 114.8};
  std::vector<std::vector<double>> base = {{95.7, 95.55, 95.7, 95.6, 95.65}};
  auto c = estimate_step_change(now, base, StepChangeOptions{});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->current_outliers, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(c->current_steps, 3u);
  EXPECT_NEAR(c->ratio, 1.2, 0.001);
  EXPECT_LT(c->p_slower, 1e-6);
  // Six baseline runs at levels 1.00, 1.01, 0.99, 1.30, 1.005, 0.995: the log levels' median is
  // 0.0025, their MAD 0.00748 (scale 0.01109), and the 1.30 run's z-score 0.2599 / 0.01109 = 23:
  // it is set aside; the others (z < 1.2) agree with the current run to within 0.1%.
  std::vector<double> steps = {100, 101, 99, 100.5, 99.5};
  std::vector<std::vector<double>> runs;
  for (double level : {1.0, 1.01, 0.99, 1.3, 1.005, 0.995}) {
    runs.push_back(steps);
    for (double& v : runs.back()) v *= level;
  }
  auto pooled = estimate_step_change(steps, runs, StepChangeOptions{});
  ASSERT_TRUE(pooled);
  EXPECT_EQ(pooled->excluded_runs, (std::vector<std::size_t>{3}));
  EXPECT_EQ(pooled->baseline_runs, 5u);
  EXPECT_NEAR(pooled->ratio, 1.0, 1e-3);
}

// Issue 74, item 3: one outlier decision over both runs. A 3-step run {w, s1, s2} with its steady
// steps 0.5% apart against one whose steady steps are 6% apart, the same +21% warm-up first. Each
// run alone: the first z = 0.6745 x ln(121/100.5) / 0.005 = 25 (set aside), the second
// 0.6745 x ln(121/106) / ln(106/100) = 1.5 (kept) - the two sides compared different steps. Pooled:
// residuals |0.1856, 0.0050, 0, 0.1323, 0.0583, 0|, MAD (0.0050 + 0.0583) / 2 = 0.0317, scale
// 0.0469: z 3.96 and 2.82, neither set aside, on both sides alike.
TEST(StepChange, AWarmUpIsSetAsideOnBothSidesOrOnNeither) {
  std::vector<double> tight = {121, 100, 100.5}, loose = {121, 100, 106};
  for (const auto& [now, base] : {std::pair{tight, loose}, std::pair{loose, tight}}) {
    auto c = estimate_step_change(now, {base}, StepChangeOptions{});
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->current_outliers.empty());
    EXPECT_EQ(c->baseline_outlier_steps, std::vector<std::size_t>{0});
    EXPECT_EQ(c->current_steps, 3u);
  }
  // A +60% warm-up in one run only (z = ln(160/100.5) / 0.0469 = 9.9 with the same scale) is set
  // aside there, and the same position in the other run (its +12% first step, z 1.2, by position).
  std::vector<double> warm = {160, 100, 100.5}, mild = {112, 100, 106};
  for (const auto& [now, base] : {std::pair{warm, mild}, std::pair{mild, warm}}) {
    auto c = estimate_step_change(now, {base}, StepChangeOptions{});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->current_outliers, std::vector<std::size_t>{0});
    EXPECT_EQ(c->baseline_outlier_steps, std::vector<std::size_t>{1});
    EXPECT_EQ(c->current_steps, 2u);
    EXPECT_EQ(c->baseline_steps, 2u);
  }
  // The kept steps are the same for the rank test.
  std::vector<std::vector<double>> kept = kept_log_steps(warm, {mild}, kOutlierZ);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].size(), 2u);
  EXPECT_EQ(kept[1].size(), 2u);
  EXPECT_NEAR(kept[1][0], std::log(100.0), 1e-12);
}

TEST(StepChange, TooFewStepsGiveNoEstimate) {
  StepChangeShortfall shortfall;
  EXPECT_FALSE(estimate_step_change(std::vector<double>{100}, {{100, 101}}, StepChangeOptions{}, &shortfall));
  EXPECT_EQ(shortfall.current_steps, 1u);
  EXPECT_EQ(shortfall.baseline_steps, 2u);
  // Baseline runs of one step each cannot give the step noise.
  EXPECT_FALSE(estimate_step_change(std::vector<double>{100, 101}, {{100}, {101}}, StepChangeOptions{}));
}

TEST(StepChange, StepsToDetectShrinkWithTheLimit) {
  // 3% step noise: SE with n steps on each side is 0.03 sqrt(2 / n); detecting 5% at 80% power
  // needs (t95 + t80) * 0.03 sqrt(2 / n) <= ln 1.05 with 2n - 2 df: n = 5 gives (1.860 + 0.889) *
  // 0.01897 = 0.0522 > 0.0488, n = 6 gives (1.812 + 0.879) * 0.01732 = 0.0466: 6. For 3% (ln 1.03
  // = 0.02956): n = 13 gives 2.568 * 0.01177 = 0.0302, n = 14 gives 2.562 * 0.01134 = 0.0291: 14.
  StepChange c;
  c.within_sd = 0.03;
  c.baseline_runs = 1;
  StepChangeOptions options;
  auto five = steps_to_detect(c, std::log(1.05), options);
  auto three = steps_to_detect(c, std::log(1.03), options);
  ASSERT_TRUE(five && three);
  EXPECT_EQ(*five, 6u);
  EXPECT_EQ(*three, 14u);
  // Run-to-run noise of 5% cannot be beaten by more steps when the limit is 3%.
  c.between_sd = 0.05;
  c.baseline_runs = 10;
  EXPECT_FALSE(steps_to_detect(c, std::log(1.03), options));
}

}  // namespace
}  // namespace perfgate
