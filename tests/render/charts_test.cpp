// The SVG charts' axes, read from the markup: tick labels a reader can use.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "render/html/charts.h"

namespace perfgate {
namespace {

// The value axis's tick labels of a trend chart (the text anchored at its end, left of the plot).
std::vector<std::string> value_labels(const std::string& svg) {
  std::vector<std::string> labels;
  std::regex tick(R"re(<text [^>]*text-anchor="end" fill="currentColor">([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it)
    labels.push_back((*it)[1]);
  return labels;
}

TrendChart flat_chart(double value, const std::string& unit) {
  TrendChart c;
  c.title = "flat";
  c.unit = unit;
  for (int i = 0; i < 6; ++i) c.points.push_back({"run", "", value});
  return c;
}

// A metric that is 0 in every run (the Tensor Core share of a run without Tensor Cores) gets an
// axis from 0 to 1 of its unit: padded by 8% (-0.08 to 1.08), a quarter of that is 0.29, whose
// first step of 1, 2 or 5 times a power of ten past 3/4 of it (0.2175) is 0.5: ticks 0, 0.5, 1.
// It was "-0.000000%" and "0.000000%", a billionth apart.
TEST(Charts, AnAllZeroSeriesHasAnAxisFromZeroToOne) {
  EXPECT_EQ(value_labels(trend_chart_svg(flat_chart(0, "%"))),
            (std::vector<std::string>{"0.0%", "0.5%", "1.0%"}));
  EXPECT_EQ(value_labels(trend_chart_svg(flat_chart(0, "us"))),
            (std::vector<std::string>{"0.0 us", "0.5 us", "1.0 us"}));
}

// A constant that is not 0 keeps an axis 2% either side of it: 8 GB gives 7.84 to 8.16 GB; a quarter
// of 0.32 GB is 0.08 GB, whose first round step past 3/4 of it (0.06) is 0.1 GB: 7.9, 8.0, 8.1 GB.
TEST(Charts, AConstantSeriesHasAnAxisAroundIt) {
  EXPECT_EQ(value_labels(trend_chart_svg(flat_chart(8e9, "bytes"))),
            (std::vector<std::string>{"7.9 GB", "8.0 GB", "8.1 GB"}));
}

}  // namespace
}  // namespace perfgate
