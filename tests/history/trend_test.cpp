// The trend model of a run history: default metrics from the rules, series, band and change
// points named by their commits; unknown metric names.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "common/errors.h"
#include "engine/front_end_support.h"
#include "history/change_points.h"
#include "history/history_runs.h"
#include "report_model/trend.h"
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
  // rules/default.yaml: regression.step-time, .gpu-utilization, .tensor-cores, .dataloader,
  // .critical-path, .memory.
  EXPECT_EQ(gated_metrics(default_gated_metrics()),
            (std::vector<std::string>{"steps.median_us", "gpu.utilization_pct", "tensor_core.kernel_time_pct",
                                      "breakdown.dataloader_pct", "critical_path.length_us",
                                      "memory.peak_allocated_bytes"}));
  std::string file = write_text(temp_dir() + "/trend-rules.yaml", R"YAML(
rules:
  - id: regression.mfu
    title: MFU dropped
    metric: compute.mfu_pct
    compare: baseline
    better: higher
    warn: "-2 pts"
)YAML");
  RuleBook rules_book = load_rule_book({file});
  RuleSet& rules = rules_book.rules;
  apply_rule_overrides(rules, {}, {"regression.memory"});
  std::vector<std::string> metrics = gated_metrics(gated_metrics_of(rules_book));
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), "compute.mfu_pct"), 1);
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), "memory.peak_allocated_bytes"), 0) << "disabled rule";
}

const std::vector<std::string> kGpuSeries = {
    "steps.median_us",          "gpu.utilization_pct",     "tensor_core.kernel_time_pct",
    "breakdown.dataloader_pct", "critical_path.length_us", "memory.peak_allocated_bytes"};
const std::vector<std::string> kNeuronSeries = {"neuron.total_time_us", "neuron.active_time_pct",
                                                "neuron.spill.save_bytes"};

std::vector<HistoryRun> of_family(std::vector<HistoryRun> runs, DeviceFamily family) {
  for (HistoryRun& run : runs) run.data.families.add(family);
  return runs;
}

// The default metrics follow the families the runs recorded, whatever values they hold: a Neuron
// run's trend no longer needs its neuron.* values to be there (a run with none of them is still a
// Neuron run), and a run of a mixed job (Neuron and GPU profiles) shows both kinds.
TEST(Trend, DefaultMetricsFollowTheRecordedFamilies) {
  std::vector<HistoryRun> neuron =
      of_family(stepped_runs(2, 0, {{Metric::StepsMedianUs, 10, 10}}), DeviceFamily::Neuron);
  EXPECT_EQ(gated_metrics(default_gated_metrics(), neuron), kNeuronSeries);
  TrendReport t = build_trend(neuron, default_gated_metrics(), {});
  ASSERT_EQ(t.metrics.size(), 3u);
  EXPECT_EQ(t.metrics[0].metric, "neuron.total_time_us");
  EXPECT_EQ(t.metrics[0].runs_without_value, 2u);
  // A GPU run is a GPU run even where it holds a neuron.* value.
  std::vector<HistoryRun> gpu =
      of_family(stepped_runs(1, 0, {{Metric::NeuronTotalTimeUs, 5, 5}}), DeviceFamily::Gpu);
  EXPECT_EQ(gated_metrics(default_gated_metrics(), gpu), kGpuSeries);
  EXPECT_EQ(gated_metrics(default_gated_metrics(), of_family(gpu, DeviceFamily::CpuOnly)), kGpuSeries);
  std::vector<HistoryRun> mixed = of_family(neuron, DeviceFamily::Gpu);
  std::vector<std::string> both = kGpuSeries;
  both.insert(both.end(), kNeuronSeries.begin(), kNeuronSeries.end());
  EXPECT_EQ(gated_metrics(default_gated_metrics(), mixed), both);
  // A CPU-only history shows the trace rules' series, never the Neuron ones.
  EXPECT_EQ(gated_metrics(default_gated_metrics(), of_family(stepped_runs(1, 0, {}), DeviceFamily::CpuOnly)),
            kGpuSeries);
}

// Runs whose families were not recorded (a history before schema 3, imports of older reports):
// a GPU history shows no neuron.* series (GPU runs never have them), a Neuron history only the
// Neuron ones, a mixed one both.
TEST(Trend, DefaultMetricsFollowTheProfilesOfAnOlderHistory) {
  const std::vector<std::string> gpu = {
      "steps.median_us",          "gpu.utilization_pct",     "tensor_core.kernel_time_pct",
      "breakdown.dataloader_pct", "critical_path.length_us", "memory.peak_allocated_bytes"};
  const std::vector<std::string> neuron = {"neuron.total_time_us", "neuron.active_time_pct",
                                           "neuron.spill.save_bytes"};
  std::vector<HistoryRun> gpu_runs = planted_history(1, false);
  EXPECT_EQ(gated_metrics(default_gated_metrics(), gpu_runs), gpu);
  // Two Neuron runs: 100 then 110 us, 60% active, no spills.
  std::vector<HistoryRun> neuron_runs = stepped_runs(1, 1,
                                                     {{Metric::NeuronTotalTimeUs, 100, 110},
                                                      {Metric::NeuronActiveTimePct, 60, 60},
                                                      {Metric::NeuronSpillSaveBytes, 0, 0}});
  EXPECT_EQ(gated_metrics(default_gated_metrics(), neuron_runs), neuron);
  TrendReport t = build_trend(neuron_runs, default_gated_metrics(), {});
  ASSERT_EQ(t.metrics.size(), 3u);
  EXPECT_EQ(t.metrics[0].metric, "neuron.total_time_us");
  EXPECT_EQ(t.metrics[0].rule, "regression.neuron-total-time");
  ASSERT_EQ(t.metrics[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(t.metrics[0].points[1].value, 110.0);
  std::vector<HistoryRun> mixed = gpu_runs;
  mixed.push_back(neuron_runs[0]);
  std::vector<std::string> both = gpu;
  both.insert(both.end(), neuron.begin(), neuron.end());
  EXPECT_EQ(gated_metrics(default_gated_metrics(), mixed), both);
}

TEST(Trend, PlantedStepIsNamedByItsCommits) {
  std::vector<HistoryRun> runs = planted_history(1, true);
  TrendReport t = build_trend(runs, default_gated_metrics(), {});
  EXPECT_EQ(t.runs, 30u);
  ASSERT_EQ(t.metrics.size(), 6u);
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
    (i < kPlantedAt ? before : after) += *runs[i].data.metric(Metric::StepsMedianUs);
  before /= kPlantedAt;
  after /= 30 - kPlantedAt;
  EXPECT_NEAR(c.before_mean, before, 1e-6);
  EXPECT_NEAR(c.after_mean, after, 1e-6);
  EXPECT_NEAR(*c.change_pct, 100 * (after - before) / before, 1e-9);
  EXPECT_EQ(change_count(t), 1u) << "the other metrics are noise, and memory is constant";
}

TEST(Trend, PureNoiseHasNoChangePoint) {
  for (std::uint64_t seed : {2, 3, 4}) {
    TrendReport t = build_trend(planted_history(seed * 10, false), default_gated_metrics(), {});
    EXPECT_EQ(change_count(t), 0u) << "seed " << seed * 10;
  }
}

TEST(Trend, BandIsTheMedianOfTheLastRunsAndTheGateLimit) {
  // 12 runs: median step 100..111 us, GPU utilization 50..61%, data loader 1.0..2.1%.
  std::vector<HistoryRun> runs;
  for (int i = 0; i < 12; ++i)
    runs.push_back(history_run(i + 1, fmt::format("c{}", i),
                               {{Metric::StepsMedianUs, 100.0 + i},
                                {Metric::StepsMeanUs, 100.0 + i},
                                {Metric::GpuUtilizationPct, 50.0 + i},
                                {Metric::BreakdownDataloaderPct, 1.0 + 0.1 * i}}));
  TrendSettings settings;
  settings.metrics = {"steps.median_us", "gpu.utilization_pct", "steps.mean_us", "breakdown.dataloader_pct"};
  // The band across the ramp: at the default level 0.01 a ramp of 1% a run is a change (its halves
  // differ by 5.9%, t = 5.6 on 10 degrees of freedom, p = 0.0034 corrected), and the band would be
  // of the runs since it; at 0.001 it is none.
  settings.detection.max_p_value = 0.001;
  TrendReport t = build_trend(runs, default_gated_metrics(), settings);
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

TEST(Trend, BandIsOfTheRunsSinceTheLastChange) {
  // 15 runs of a 100 us step, then 5 of 140: the change at run index 15 is found (2 / C(20, 5) =
  // 2 / 15504 = 0.00013). The last 10 runs straddle it (5 of 100, 5 of 140: median 120, a band of
  // 116.4 to 123.6 that holds none of them); the band is of the 5 runs since: 140 ± 3% = 135.8 to 144.2.
  TrendReport t =
      build_trend(stepped_runs(15, 5, {{Metric::StepsMedianUs, 100, 140}}), default_gated_metrics(), {});
  const MetricTrend& m = *find_metric(t, "steps.median_us");
  ASSERT_EQ(m.change_points.size(), 1u);
  EXPECT_EQ(m.change_points[0].index, 15u);
  const TrendBand& band = *m.band;
  EXPECT_EQ(band.runs, 5u);
  EXPECT_DOUBLE_EQ(band.center, 140);
  EXPECT_DOUBLE_EQ(band.low, 135.8);
  EXPECT_DOUBLE_EQ(band.high, 144.2);
  EXPECT_TRUE(band.since_change);
  EXPECT_EQ(band.since_index, 15u);
  EXPECT_EQ(band.since_run_id, 16);
  EXPECT_EQ(band.since_commit, "c15");
  // Without a change the band is of the last --band-runs runs: 100 ± 3 of runs 10-19 of 20.
  TrendReport flat =
      build_trend(stepped_runs(20, 0, {{Metric::StepsMedianUs, 100, 100}}), default_gated_metrics(), {});
  const TrendBand& same = *find_metric(flat, "steps.median_us")->band;
  EXPECT_EQ(same.runs, 10u);
  EXPECT_FALSE(same.since_change);
  EXPECT_EQ(same.since_index, 10u);
  EXPECT_EQ(same.since_run_id, 11);
}

TEST(Trend, AChangeBelowTheRulesLimitIsNoChangePoint) {
  // Peak memory 2.8 GB for 8 runs, then 131,072 bytes more for 8: 131072 / 2.8e9 = 0.0047%, far
  // below regression.memory's warning of +10%. The test alone finds it (two constant levels).
  auto runs = stepped_runs(8, 8, {{Metric::MemoryPeakAllocatedBytes, 2.8e9, 2.8e9 + 131072}});
  TrendReport t = build_trend(runs, default_gated_metrics(), {});
  const MetricTrend& memory = *find_metric(t, "memory.peak_allocated_bytes");
  EXPECT_TRUE(memory.change_points.empty());
  ASSERT_TRUE(memory.min_effect);
  EXPECT_TRUE(memory.min_effect->relative);
  EXPECT_DOUBLE_EQ(memory.min_effect->amount, 0.10);
  EXPECT_EQ(memory.min_effect->text, "+10%");
  // Its band is then of all its last 10 runs: their median is 2.8e9 + 131072 (8 of the 10), ± 10%.
  EXPECT_DOUBLE_EQ(memory.band->center, 2.8e9 + 131072);
  // 2.8 GB to 3.2 GB is +14.3%: a change point.
  auto grown = stepped_runs(8, 8, {{Metric::MemoryPeakAllocatedBytes, 2.8e9, 3.2e9}});
  EXPECT_EQ(find_metric(build_trend(grown, default_gated_metrics(), {}), "memory.peak_allocated_bytes")
                ->change_points.size(),
            1u);
  // A metric no baseline rule reads has no minimum: the 131 kB step is a change point.
  TrendSettings any;
  any.metrics = {"memory.peak_reserved_bytes"};
  auto reserved = stepped_runs(8, 8, {{Metric::MemoryPeakReservedBytes, 2.8e9, 2.8e9 + 131072}});
  TrendReport reserved_trend = build_trend(reserved, default_gated_metrics(), any);
  const MetricTrend& r = reserved_trend.metrics.at(0);
  EXPECT_FALSE(r.min_effect);
  EXPECT_EQ(r.change_points.size(), 1u);
}

TEST(Trend, SharesChangeInPoints) {
  // The data loader's share from 0.57% to 33.4% of the step: +32.83 points (a relative change of
  // 100 · 32.83 / 0.57 = +5759.6% says nothing a reader can use); GPU utilization 70.3% -> 55.5%:
  // -14.8 points. regression.dataloader warns at +5 pts, regression.gpu-utilization at -5 pts.
  auto runs = stepped_runs(8, 8,
                           {{Metric::BreakdownDataloaderPct, 0.57, 33.4},
                            {Metric::GpuUtilizationPct, 70.3, 55.5},
                            {Metric::StepsMedianUs, 126680, 177440}});
  TrendReport t = build_trend(runs, default_gated_metrics(), {});
  const TrendChangePoint& loader = find_metric(t, "breakdown.dataloader_pct")->change_points.at(0);
  ASSERT_TRUE(loader.change_pts);
  EXPECT_NEAR(*loader.change_pts, 32.83, 1e-9);
  EXPECT_EQ(find_metric(t, "breakdown.dataloader_pct")->min_effect->text, "+5 pts");
  const TrendChangePoint& util = find_metric(t, "gpu.utilization_pct")->change_points.at(0);
  EXPECT_NEAR(*util.change_pts, -14.8, 1e-9);
  // A duration is no share: its change stays in percent, 100 · 50760 / 126680 = +40.07%.
  const TrendChangePoint& steps = find_metric(t, "steps.median_us")->change_points.at(0);
  EXPECT_FALSE(steps.change_pts);
  EXPECT_NEAR(*steps.change_pct, 100.0 * 50760 / 126680, 1e-9);
}

TEST(Trend, EachSeriesSaysWhatItCanSee) {
  // 10 runs, 5 at 100 and 5 at 140: two parts of the minimum segment (3) are possible, so a
  // change can show, and two constant levels are a change (issue 74: the permutation test needed 14
  // runs for any change at 0.001). GPU utilization has a value in 5 of the runs only: too few.
  std::vector<HistoryRun> runs = stepped_runs(5, 5, {{Metric::StepsMedianUs, 100, 140}});
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (i < 5)
      runs[i].data.metrics.set(Metric::GpuUtilizationPct, std::nullopt);
    else
      runs[i].data.metrics.set(Metric::GpuUtilizationPct, 60.0 + static_cast<double>(i));
  TrendReport t = build_trend(runs, default_gated_metrics(), {});
  EXPECT_EQ(t.detection.runs, 10u);
  EXPECT_TRUE(t.detection.detectable);
  EXPECT_EQ(t.detection.runs_needed, 6u);
  EXPECT_EQ(t.detection.runs_each_side, 3u);
  EXPECT_FALSE(t.detection.noise_pct) << "the history's summary is of no one metric";
  const MetricTrend& steps = *find_metric(t, "steps.median_us");
  ASSERT_EQ(steps.change_points.size(), 1u);
  EXPECT_EQ(steps.change_points[0].index, 5u);
  EXPECT_DOUBLE_EQ(steps.change_points[0].p_value, 0.0) << "no noise to mistake for it";
  EXPECT_TRUE(steps.detection.detectable);
  EXPECT_DOUBLE_EQ(*steps.detection.noise_pct, 0.0) << "constant within its segments";
  const MetricTrend& util = *find_metric(t, "gpu.utilization_pct");
  EXPECT_EQ(util.detection.runs, 5u);
  EXPECT_FALSE(util.detection.detectable);
  EXPECT_EQ(util.detection.runs_needed, 6u);
  // 60 + 5 ... 60 + 9: sd sqrt(2.5) = 1.581 around 67: 2.36% noise; with 5 runs before and 5
  // after, a shift shows at 80% power from the one computed for those counts.
  ASSERT_TRUE(util.detection.noise_pct);
  EXPECT_NEAR(*util.detection.noise_pct, 100 * std::sqrt(2.5) / 67, 1e-9);
  ChangePointOptions o;
  EXPECT_NEAR(*util.detection.detectable_shift_pct, 100 * *detectable_shift(5, 5, std::sqrt(2.5), o) / 67,
              1e-9);
  // 30 runs at 2% noise, +10% at run 17: after the change the noise is pooled within the two
  // segments, about 2%, and 13 runs since it.
  TrendReport planted = build_trend(planted_history(1, true), default_gated_metrics(), {});
  EXPECT_TRUE(planted.detection.detectable);
  EXPECT_EQ(planted.detection.runs_each_side, 3u);
  const MetricTrend& planted_steps = *find_metric(planted, "steps.median_us");
  ASSERT_EQ(planted_steps.change_points.size(), 1u);
  EXPECT_NEAR(*planted_steps.detection.noise_pct, 2.0, 0.6);
  EXPECT_GT(*planted_steps.detection.detectable_shift_pct, 4.0);
  EXPECT_LT(*planted_steps.detection.detectable_shift_pct, 10.0);
}

TEST(Trend, RunsWithoutTheMetricAreLeftOut) {
  std::vector<HistoryRun> runs = {history_run(1, "a", {{Metric::StepsMedianUs, 10.0}}),
                                  history_run(2, "b", {{Metric::StepsMedianUs, std::nullopt}}),
                                  history_run(3, "c", {}),
                                  history_run(4, "d", {{Metric::StepsMedianUs, 12.0}})};
  TrendSettings settings;
  settings.metrics = {"steps.median_us"};
  TrendReport t = build_trend(runs, default_gated_metrics(), settings);
  const MetricTrend& m = t.metrics.at(0);
  ASSERT_EQ(m.points.size(), 2u);
  EXPECT_EQ(m.points[0].commit, "a");
  EXPECT_EQ(m.points[1].commit, "d");
  EXPECT_EQ(m.runs_without_value, 2u);
  EXPECT_TRUE(m.change_points.empty()) << "too few runs for two segments";
}

TEST(Trend, EmptyHistoryHasEmptySeries) {
  TrendReport t = build_trend({}, default_gated_metrics(), {});
  EXPECT_EQ(t.runs, 0u);
  ASSERT_EQ(t.metrics.size(), 6u);
  for (const MetricTrend& m : t.metrics) {
    EXPECT_TRUE(m.points.empty());
    EXPECT_FALSE(m.band);
  }
}

TEST(Trend, UnknownMetricIsAConfigErrorWithASuggestion) {
  TrendSettings settings;
  settings.metrics = {"steps.median_uss"};
  try {
    build_trend({}, default_gated_metrics(), settings);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("steps.median_us'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace perfgate::testing
