// The SVG charts' axes, read from the markup: tick labels a reader can use.
#include <gtest/gtest.h>

#include <cctype>
#include <regex>
#include <string>
#include <vector>

#include "render/html/bar_charts.h"
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

// Each text of a chart: its y and its content, in drawing order.
std::vector<std::pair<double, std::string>> texts_of(const std::string& svg) {
  std::vector<std::pair<double, std::string>> texts;
  std::regex text(R"re(<text x="[-\d.]+" y="([-\d.]+)"[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it)
    texts.emplace_back(std::stod((*it)[1]), (*it)[2]);
  return texts;
}

// Issue 76: the A100's fp32 and vector ceilings (both 19.5 TFLOP/s) were two labels drawn on each
// other. Ceilings of one value share a label; ceilings close in value (bf16 312 and fp16 330, 1.6 px
// apart on this chart) get labels 13 px apart, the higher one above.
TEST(Charts, RooflineCeilingLabelsNeverOverlap) {
  std::vector<RooflinePoint> points = {{1.0, 1.0, 0.5, true, "op"}, {100.0, 50.0, 0.5, false, "op2"}};
  std::vector<RooflineCeiling> ceilings = {
      {"fp32", 19.5}, {"vector", 19.5}, {"tf32", 156}, {"bf16", 312}, {"fp16", 330}};
  std::vector<std::string> ceiling_texts;
  std::vector<double> ys;
  for (const auto& [y, s] : texts_of(roofline_svg(points, ceilings, 1.555, "roofline")))
    if (s.find(' ') != std::string::npos && std::isalpha(static_cast<unsigned char>(s[0])) &&
        s.find('(') == std::string::npos && s != "achieved TFLOP/s") {
      ceiling_texts.push_back(s);
      ys.push_back(y);
    }
  ASSERT_EQ(ceiling_texts.size(), 4u) << ::testing::PrintToString(ceiling_texts);
  // Top to bottom: fp16 330, bf16 312, tf32 156, fp32/vector 19.5.
  EXPECT_EQ(ceiling_texts,
            (std::vector<std::string>{"fp16 330", "bf16 312", "tf32 156", "fp32/vector 19.5"}));
  for (std::size_t i = 1; i < ys.size(); ++i) EXPECT_GE(ys[i] - ys[i - 1], 13 - 1e-9) << ceiling_texts[i];
}

// Ranked bars: a name column cut so that no two names read the same, the bars, the values in a
// column of their own at the right; the longest bar spans the track.
TEST(Charts, RankedBarsKeepNamesAndValuesInTheirColumns) {
  std::vector<RankedBar> bars;
  for (int i = 0; i < 3; ++i)
    bars.push_back({"void at::native::elementwise_kernel<128, 4, lambda_" + std::to_string(i) + ">",
                    std::to_string(30 - i) + ".0 ms",
                    {30.0 - i},
                    "tip"});
  std::string svg = ranked_bars_svg(bars, {{"kernel time", 0, "#2f6fde"}}, "Top kernels");
  std::vector<std::string> names, values;
  std::regex name(R"re(<text x="202.0"[^>]*text-anchor="end"[^>]*>([^<]*)</text>)re"),
      value(R"re(<text x="596.0"[^>]*text-anchor="end"[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), name); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1]);
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), value); it != std::sregex_iterator(); ++it)
    values.push_back((*it)[1]);
  ASSERT_EQ(names.size(), 3u) << svg;
  EXPECT_EQ(values, (std::vector<std::string>{"30.0 ms", "29.0 ms", "28.0 ms"}));
  for (std::string n : names) {  // as drawn: the markup escapes '>'
    for (std::size_t at = n.find("&gt;"); at != std::string::npos; at = n.find("&gt;")) n.replace(at, 4, ">");
    EXPECT_LE(n.size(), 30u) << n;
  }
  EXPECT_NE(names[0], names[1]);
  EXPECT_NE(names[1], names[2]);
  // The first (longest) bar fills the track: 600 - 210 - 78 - 8 = 304 px at the drawn width, and
  // at any width (issue 93): from 0.3 of it + 30 px to 86 px before its end.
  EXPECT_NE(
      svg.find(
          R"(x="210.0" y="8.0" width="304.0" height="14.0" fill="#2f6fde" data-x="x 0.3 30;width 0.7 -116")"),
      std::string::npos)
      << svg;
}

}  // namespace
}  // namespace perfgate
