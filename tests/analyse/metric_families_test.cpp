// The ids of the metrics set per part of a split (analyse/metric_values.h) follow the parts' enums:
// each is its family's "<part>_us", "_pct" or "_step_pct" by the part's own name, so a table out of
// order, or a part added without its metrics, fails here.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analyse/metric_values.h"
#include "analyse/neuron/neuron_metrics.h"
#include "render/format.h"

namespace perfgate::testing {
namespace {

TEST(MetricFamilies, EachPartsMetricsAreNamedByThePart) {
  for (std::size_t i = 0; i < kBreakdownParts; ++i) {
    std::string part = breakdown_part_name(static_cast<BreakdownPart>(i));
    EXPECT_EQ(metric_name(kBreakdownMetrics[i].us), "breakdown." + part + "_us");
    EXPECT_EQ(metric_name(kBreakdownMetrics[i].pct), "breakdown." + part + "_pct");
  }
  for (std::size_t i = 0; i < kResourceParts; ++i) {
    std::string part = resource_part_name(static_cast<ResourcePart>(i));
    EXPECT_EQ(metric_name(kResourceMetrics[i].us), "resources." + part + "_us");
    EXPECT_EQ(metric_name(kResourceMetrics[i].pct), "resources." + part + "_pct");
  }
  for (std::size_t i = 0; i < kPathBounds; ++i) {
    std::string bound = path_bound_name(static_cast<PathBound>(i));
    EXPECT_EQ(metric_name(kPathBoundMetrics[i].of_path), "critical_path." + bound + "_pct");
    EXPECT_EQ(metric_name(kPathBoundMetrics[i].of_steps), "critical_path." + bound + "_step_pct");
  }
  for (std::size_t i = 0; i < kIdleCauses; ++i)
    EXPECT_EQ(metric_name(kIdleCauseMetrics[i]),
              "gpu.idle_" + std::string(idle_cause_name(static_cast<IdleCause>(i))) + "_pct");
}

TEST(MetricFamilies, TheRenderersSharesAreTheSplitsShares) {
  for (std::size_t i = 0; i < kBreakdownParts; ++i) EXPECT_EQ(kBreakdownShares[i], kBreakdownMetrics[i].pct);
  for (std::size_t i = 0; i < kResourceParts; ++i) EXPECT_EQ(kResourceShares[i], kResourceMetrics[i].pct);
}

// Each summed Neuron value sets its own catalog metric, and every neuron.* metric has one.
TEST(MetricFamilies, NeuronValuesSetEveryNeuronMetricOnce) {
  std::set<Metric> set_by_values, neuron;
  for (std::size_t i = 0; i < kNeuronMetrics; ++i)
    EXPECT_TRUE(set_by_values.insert(neuron_metric_info(static_cast<NeuronMetric>(i)).metric).second) << i;
  for (std::size_t i = 0; i < kMetricCount; ++i)
    if (kMetricNames[i].starts_with("neuron.")) neuron.insert(static_cast<Metric>(i));
  EXPECT_EQ(set_by_values, neuron);
}

}  // namespace
}  // namespace perfgate::testing
