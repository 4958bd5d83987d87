// The trend model of a run history: default metrics from the rules, series, band and change
// points named by their commits; unknown metric names.
#include <gtest/gtest.h>

#include <numeric>

#include "history/history_runs.h"
#include "perfgate/errors.h"
#include "perfgate/trend.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const MetricTrend* find_metric(const TrendReport& t, std::string_view name) {
  for (const MetricTrend& m : t.metrics)
    if (m.metric == name) return &m;
  return nullptr;
}

std::size_t change_count(const TrendReport& t) {
  std::size_t n = 0;
  for (const MetricTrend& m : t.metrics) n += m.change_points.size();
  return n;
}

TEST(Trend, DefaultMetricsAreThoseTheBaselineRulesRead) {
  // rules/default.yaml: regression.step-time, .gpu-utilization, .tensor-cores, .dataloader, .memory.
  EXPECT_EQ(gated_metrics(default_rules()),
            (std::vector<std::string>{"steps.median_us", "gpu.utilization_pct", "tensor_core.kernel_time_pct",
                                      "breakdown.dataloader_pct", "memory.peak_allocated_bytes"}));
  std::string file = write_text(temp_dir() + "/trend-rules.yaml", R"YAML(
rules:
  - id: regression.mfu
    title: MFU dropped
    metric: compute.mfu_pct
    compare: baseline
    better: higher
    warn: "-2 pts"
)YAML");
  RuleSet rules = load_rules({file});
  apply_rule_overrides(rules, {}, {"regression.memory"});
  std::vector<std::string> metrics = gated_metrics(rules);
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), "compute.mfu_pct"), 1);
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), "memory.peak_allocated_bytes"), 0) << "disabled rule";
}

TEST(Trend, PlantedStepIsNamedByItsCommits) {
  std::vector<HistoryRun> runs = planted_history(1, true);
  TrendReport t = build_trend(runs, default_rules(), {});
  EXPECT_EQ(t.runs, 30u);
  ASSERT_EQ(t.metrics.size(), 5u);
  const MetricTrend* steps = find_metric(t, "steps.median_us");
  ASSERT_TRUE(steps);
  EXPECT_EQ(steps->unit, "us");
  EXPECT_EQ(steps->rule, "regression.step-time");
  ASSERT_EQ(steps->points.size(), 30u);
  ASSERT_EQ(steps->change_points.size(), 1u);
  const TrendChangePoint& c = steps->change_points[0];
  EXPECT_EQ(c.index, kPlantedAt);
  EXPECT_EQ(c.before_commit, runs[kPlantedAt - 1].labels.commit);
  EXPECT_EQ(c.after_commit, runs[kPlantedAt].labels.commit);
  EXPECT_EQ(c.before_run_id, 17);
  EXPECT_EQ(c.after_run_id, 18);
  EXPECT_EQ(c.direction, "regression") << "slower steps, and lower is better";
  EXPECT_LE(c.p_value, 0.001);
  double before = 0, after = 0;
  for (std::size_t i = 0; i < 30; ++i)
    (i < kPlantedAt ? before : after) += *runs[i].data.metric("steps.median_us");
  before /= kPlantedAt;
  after /= 30 - kPlantedAt;
  EXPECT_NEAR(c.before_mean, before, 1e-6);
  EXPECT_NEAR(c.after_mean, after, 1e-6);
  EXPECT_NEAR(*c.change_pct, 100 * (after - before) / before, 1e-9);
  EXPECT_EQ(change_count(t), 1u) << "the other metrics are noise, and memory is constant";
}

TEST(Trend, PureNoiseHasNoChangePoint) {
  for (std::uint64_t seed : {2, 3, 4}) {
    TrendReport t = build_trend(planted_history(seed * 10, false), default_rules(), {});
    EXPECT_EQ(change_count(t), 0u) << "seed " << seed * 10;
  }
}

TEST(Trend, BandIsTheMedianOfTheLastRunsAndTheGateLimit) {
  // 12 runs: median step 100..111 us, GPU utilization 50..61%, data loader 1.0..2.1%.
  std::vector<HistoryRun> runs;
  for (int i = 0; i < 12; ++i)
    runs.push_back(history_run(i + 1, fmt::format("c{}", i),
                               {{"steps.median_us", 100.0 + i},
                                {"steps.mean_us", 100.0 + i},
                                {"gpu.utilization_pct", 50.0 + i},
                                {"breakdown.dataloader_pct", 1.0 + 0.1 * i}}));
  TrendSettings settings;
  settings.metrics = {"steps.median_us", "gpu.utilization_pct", "steps.mean_us", "breakdown.dataloader_pct"};
  TrendReport t = build_trend(runs, default_rules(), settings);
  // The last 10 steps are 102..111: median (106 + 107) / 2 = 106.5; regression.step-time warns at
  // +3%: 106.5 ± 3.195.
  const TrendBand& steps = *find_metric(t, "steps.median_us")->band;
  EXPECT_EQ(steps.kind, "gate-limit");
  EXPECT_EQ(steps.runs, 10u);
  EXPECT_DOUBLE_EQ(steps.center, 106.5);
  EXPECT_NEAR(steps.low, 103.305, 1e-9);
  EXPECT_NEAR(steps.high, 109.695, 1e-9);
  EXPECT_EQ(steps.rule, "regression.step-time");
  EXPECT_EQ(steps.limit, "+3%");
  // Utilization 52..61: median 56.5; regression.gpu-utilization warns at -5 pts: 51.5 to 61.5.
  const TrendBand& util = *find_metric(t, "gpu.utilization_pct")->band;
  EXPECT_DOUBLE_EQ(util.center, 56.5);
  EXPECT_DOUBLE_EQ(util.low, 51.5);
  EXPECT_DOUBLE_EQ(util.high, 61.5);
  // No baseline rule reads steps.mean_us: quartiles of 102..111, at positions 0.25·9 = 2.25 and
  // 0.75·9 = 6.75 of the sorted values: 104.25 and 108.75.
  const MetricTrend* mean = find_metric(t, "steps.mean_us");
  EXPECT_TRUE(mean->rule.empty());
  EXPECT_EQ(mean->band->kind, "interquartile");
  EXPECT_DOUBLE_EQ(mean->band->low, 104.25);
  EXPECT_DOUBLE_EQ(mean->band->high, 108.75);
  EXPECT_DOUBLE_EQ(mean->band->center, 106.5);
  // Data loader 1.2..2.1%: median 1.65, regression.dataloader warns at +5 pts; a share is never
  // negative, so the band starts at 0, not at -3.35.
  const TrendBand& loader = *find_metric(t, "breakdown.dataloader_pct")->band;
  EXPECT_DOUBLE_EQ(loader.center, 1.65);
  EXPECT_DOUBLE_EQ(loader.low, 0);
  EXPECT_DOUBLE_EQ(loader.high, 6.65);
}

TEST(Trend, RunsWithoutTheMetricAreLeftOut) {
  std::vector<HistoryRun> runs = {history_run(1, "a", {{"steps.median_us", 10.0}}),
                                  history_run(2, "b", {{"steps.median_us", std::nullopt}}),
                                  history_run(3, "c", {}), history_run(4, "d", {{"steps.median_us", 12.0}})};
  TrendSettings settings;
  settings.metrics = {"steps.median_us"};
  TrendReport t = build_trend(runs, default_rules(), settings);
  const MetricTrend& m = t.metrics.at(0);
  ASSERT_EQ(m.points.size(), 2u);
  EXPECT_EQ(m.points[0].commit, "a");
  EXPECT_EQ(m.points[1].commit, "d");
  EXPECT_EQ(m.runs_without_value, 2u);
  EXPECT_TRUE(m.change_points.empty()) << "too few runs for two segments";
}

TEST(Trend, EmptyHistoryHasEmptySeries) {
  TrendReport t = build_trend({}, default_rules(), {});
  EXPECT_EQ(t.runs, 0u);
  ASSERT_EQ(t.metrics.size(), 5u);
  for (const MetricTrend& m : t.metrics) {
    EXPECT_TRUE(m.points.empty());
    EXPECT_FALSE(m.band);
  }
}

TEST(Trend, UnknownMetricIsAConfigErrorWithASuggestion) {
  TrendSettings settings;
  settings.metrics = {"steps.median_uss"};
  try {
    build_trend({}, default_rules(), settings);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("steps.median_us'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace perfgate::testing
