// The metric ids and the catalog agree (perfgate/metric_catalog.def): one id per row, in the rows'
// order, each the CamelCase of its row's name, and each name resolving to its id.
#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
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
#include "perfgate/metric_catalog.def"
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

// A value is held in a double's 8 bytes, an empty one as a NaN's bits (issue 78): every double stays
// a value, NaNs and infinities with it, whatever its bits, and equality is std::optional<double>'s.
TEST(MetricValues, EveryDoubleIsAValueAndEmptyIsNotOne) {
  MetricValues m;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  m.set(Metric::GpuUtilizationPct, nan);
  ASSERT_TRUE(m.get(Metric::GpuUtilizationPct));
  EXPECT_TRUE(std::isnan(*m.get(Metric::GpuUtilizationPct)));
  m.set(Metric::GpuBusyPct, -inf);
  EXPECT_EQ(m.get(Metric::GpuBusyPct), -inf);
  m.set(Metric::GpuIdlePct, -0.0);
  ASSERT_TRUE(m.get(Metric::GpuIdlePct));
  EXPECT_TRUE(std::signbit(*m.get(Metric::GpuIdlePct)));
  // Every NaN payload, signalling or quiet, either sign, stays a NaN value, never empty.
  for (std::uint64_t exponent_and_quiet : {0x7ff0ULL, 0x7ff4ULL, 0x7ff8ULL, 0xfff0ULL, 0xfff8ULL})
    for (std::uint64_t payload : {1ULL, 0x6e6f'6e65'0000ULL, 0x0000'ffff'ffffULL, 0x000f'ffff'ffff'ffffULL}) {
      std::uint64_t bits = (exponent_and_quiet << 48) | (payload & 0x000f'ffff'ffff'ffffULL);
      double value = std::bit_cast<double>(bits);
      if (!std::isnan(value)) continue;
      m.set(Metric::StepsCount, value);
      ASSERT_TRUE(m.get(Metric::StepsCount)) << std::hex << bits;
      EXPECT_TRUE(std::isnan(*m.get(Metric::StepsCount))) << std::hex << bits;
    }
  MetricValues a, b;
  EXPECT_EQ(a, b);
  a.set(Metric::StepsCount, 1.0);
  EXPECT_NE(a, b);
  b.set(Metric::StepsCount, 1.0);
  EXPECT_EQ(a, b);
  a.set(Metric::GpuCount, nan);
  b.set(Metric::GpuCount, nan);
  EXPECT_NE(a, b);  // a NaN equals nothing, as std::optional<double>'s
  a.set(Metric::GpuCount, std::nullopt);
  b.set(Metric::GpuCount, 0.0);
  EXPECT_NE(a, b);  // empty is not 0
}

}  // namespace
}  // namespace perfgate::testing
