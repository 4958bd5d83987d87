// The metric ids and the catalog agree (common/metric_catalog.def): one id per row, in the rows'
// order, each the CamelCase of its row's name, and each name resolving to its id.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "common/metrics.h"

namespace perfgate::testing {
namespace {

struct Row {
  std::string_view id;  // as written in the row
  std::string_view name;
  Metric metric;
};

// The rows read again here, with their ids as text: the spelling a row gives its id.
const Row kRows[] = {
#define PERFGATE_METRIC(id, name, ...) {#id, name, Metric::id},
#include "common/metric_catalog.def"
#undef PERFGATE_METRIC
};

// "neuron.dma.active_pct" -> "NeuronDmaActivePct"
std::string camel_case(std::string_view name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '.' || c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

TEST(MetricIds, OneIdPerCatalogRowInItsOrder) {
  ASSERT_EQ(std::size(kRows), kMetricCount);
  ASSERT_EQ(metric_catalog().size(), kMetricCount);
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    const Row& row = kRows[i];
    EXPECT_EQ(metric_position(row.metric), i) << row.name;
    EXPECT_EQ(metric_name(row.metric), row.name);
    EXPECT_EQ(metric_catalog()[i].name, row.name);
    EXPECT_EQ(&metric_info(row.metric), &metric_catalog()[i]) << row.name;
  }
}

TEST(MetricIds, EachIdIsItsNameInCamelCase) {
  for (const Row& row : kRows) EXPECT_EQ(row.id, camel_case(row.name)) << row.name;
  EXPECT_EQ(metric_name(Metric::GpuUtilizationPct), "gpu.utilization_pct");
  EXPECT_EQ(metric_name(Metric::NeuronDmaActivePct), "neuron.dma.active_pct");
}

TEST(MetricIds, EachNameResolvesToItsIdAndNoOther) {
  std::set<std::string_view> names;
  for (const Row& row : kRows) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " twice";
    EXPECT_EQ(metric_id(row.name), row.metric) << row.name;
  }
  EXPECT_EQ(metric_id("gpu.utilisation_pct"), std::nullopt);
  EXPECT_EQ(metric_id("gpu"), std::nullopt);
  EXPECT_EQ(metric_id(""), std::nullopt);
  EXPECT_EQ(metric_id("gpu.utilization_pct "), std::nullopt);
  EXPECT_EQ(metric_id("zzz.after_every_name"), std::nullopt);
}

TEST(MetricIds, ValuesAreSetAndReadById) {
  MetricValues m;
  ASSERT_EQ(m.size(), kMetricCount);
  for (std::size_t i = 0; i < m.size(); ++i) EXPECT_FALSE(m.at(i)) << "not applicable until set";
  m.set(Metric::GpuUtilizationPct, 50.0);
  m.set(Metric::NeuronWarningsCount, 2.0);
  EXPECT_EQ(m.get(Metric::GpuUtilizationPct), 50.0);
  EXPECT_EQ(m.at(metric_position(Metric::GpuUtilizationPct)), 50.0);
  EXPECT_EQ(m.at(kMetricCount - 1), 2.0);  // the last row
  EXPECT_FALSE(m.get(Metric::GpuBusyPct));
  m.set(Metric::GpuUtilizationPct, std::nullopt);
  EXPECT_FALSE(m.get(Metric::GpuUtilizationPct));
}

}  // namespace
}  // namespace perfgate::testing
