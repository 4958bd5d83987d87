// Issue 95, item 3: the trend names an outlier apart from its change points, and says of each change
// point the runs before and after it, its size and its confidence, in every output. The history is
// the issue's: 13 runs of the median step, run 3 (c2) +40% on its own, the last 6 a sustained +40%.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "history/history_runs.h"
#include "render/render.h"
#include "report_model/trend.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

TrendReport outlier_then_shift_trend() {
  const std::vector<double> ms = {100, 101, 140, 99, 100, 102, 98, 141, 139, 140, 142, 138, 140};
  std::vector<HistoryRun> runs;
  for (std::size_t i = 0; i < ms.size(); ++i)
    runs.push_back(history_run(static_cast<std::int64_t>(i + 1), fmt::format("c{}", i),
                               {{Metric::StepsMedianUs, ms[i] * 1000}}));
  TrendSettings settings;
  settings.source = "sqlite history.db";
  settings.metrics = {"steps.median_us"};
  return build_trend(runs, default_gated_metrics(), settings);
}

TEST(TrendOutliers, TheOutlierIsNamedAndTheShiftIsFoundAtItsRun) {
  TrendReport t = outlier_then_shift_trend();
  ASSERT_EQ(t.metrics.size(), 1u);
  const MetricTrend& m = t.metrics[0];
  ASSERT_EQ(m.change_points.size(), 1u);
  const TrendChangePoint& c = m.change_points[0];
  EXPECT_EQ(c.index, 7u);
  EXPECT_EQ(c.before_commit, "c6");
  EXPECT_EQ(c.after_commit, "c7");
  EXPECT_EQ(c.runs_before, 6u) << "7 runs before the change, less the outlier";
  EXPECT_EQ(c.runs_after, 6u);
  EXPECT_DOUBLE_EQ(c.before_mean, 100000);  // (100 + 101 + 99 + 100 + 102 + 98) / 6 ms
  EXPECT_DOUBLE_EQ(c.after_mean, 140000);   // (141 + 139 + 140 + 142 + 138 + 140) / 6 ms
  ASSERT_TRUE(c.change_pct);
  EXPECT_DOUBLE_EQ(*c.change_pct, 40);
  EXPECT_EQ(c.direction, "regression");
  // Student's t between the 6 and 6 runs: 40 / (sqrt 2 · sqrt(1/3)) = 48.99 on 10 degrees of freedom,
  // two-sided p 3.0323e-13 (mpmath), over the split's share of the level (1 / 14 of 12 runs' splits to
  // the end): 4.2452e-12.
  EXPECT_NEAR(c.p_value / 4.2452e-12, 1, 1e-3);
  EXPECT_DOUBLE_EQ(c.confidence_pct, 100 * (1 - c.p_value));
  ASSERT_EQ(m.outliers.size(), 1u);
  const TrendOutlier& o = m.outliers[0];
  EXPECT_EQ(o.index, 2u);
  EXPECT_EQ(o.commit, "c2");
  EXPECT_EQ(o.run_id, 3);
  EXPECT_DOUBLE_EQ(o.value, 140000);
  EXPECT_DOUBLE_EQ(o.level, 100500);  // the median of the two runs before it
  ASSERT_TRUE(o.change_pct);
  EXPECT_DOUBLE_EQ(*o.change_pct, 100 * 39500.0 / 100500);
  EXPECT_EQ(o.direction, "regression");
  // The noise is of the runs the search weighs: without run 3, about 1.4 ms on 140 ms.
  ASSERT_TRUE(m.detection.noise_pct);
  EXPECT_LT(*m.detection.noise_pct, 2.0);
}

TEST(TrendOutliers, EveryOutputMarksTheOutlierApartFromTheChangePoint) {
  TrendReport t = outlier_then_shift_trend();
  std::string terminal = render_trend_terminal(t);
  EXPECT_NE(terminal.find("1 change point · 1 outlier\n"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("    change point +40.0% ("), std::string::npos) << terminal;
  EXPECT_NE(terminal.find(" between c6 and c7: 6 runs before, 6 after; p "), std::string::npos) << terminal;
  EXPECT_NE(terminal.find(", confidence ≥ 99.99%, regression\n"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("    outlier      c2 at "), std::string::npos) << terminal;
  EXPECT_NE(terminal.find(", +39.3% on the "), std::string::npos) << terminal;
  EXPECT_NE(terminal.find(" around it: one run, set aside, not a change point\n"), std::string::npos)
      << terminal;
  EXPECT_NE(terminal.find("1 change point and 1 outlier in 1 metric over 13 runs"), std::string::npos)
      << terminal;

  json::object root = json::parse(render_trend_json(t)).as_object();
  const json::object& c = root.at("change_points").as_array().at(0).as_object();
  EXPECT_EQ(c.at("runs_before").to_number<int>(), 6);
  EXPECT_EQ(c.at("runs_after").to_number<int>(), 6);
  EXPECT_EQ(c.at("before_index").to_number<int>(), 6);
  EXPECT_EQ(c.at("index").to_number<int>(), 7);
  EXPECT_GT(c.at("confidence_pct").to_number<double>(), 99.99);
  const json::array& outliers = root.at("outliers").as_array();
  ASSERT_EQ(outliers.size(), 1u);
  const json::object& o = outliers.at(0).as_object();
  EXPECT_EQ(o.at("metric").as_string(), "steps.median_us");
  EXPECT_EQ(o.at("index").to_number<int>(), 2);
  EXPECT_EQ(o.at("commit").as_string(), "c2");
  EXPECT_DOUBLE_EQ(o.at("level").to_number<double>(), 100500);
  EXPECT_NEAR(o.at("change_pct").to_number<double>(), 39.303483, 1e-6);
  EXPECT_EQ(o.at("direction").as_string(), "regression");

  std::string page = render_trend_html(t);
  EXPECT_EQ(count(page, "class=\"outlier\""), 1u) << "one ring, on run 3";
  EXPECT_EQ(count(page, "stroke-dasharray=\"5 3\""), 1u) << "one change point's line";
  EXPECT_NE(page.find("Outliers of steps.median_us"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">6</td><td class=\"num\">6</td>"), std::string::npos)
      << "the runs before and after the change point";
  EXPECT_NE(page.find("≥ 99.99%"), std::string::npos);

  std::string md = render_trend_markdown(t);
  EXPECT_NE(md.find("| c6 | c7 | 6 / 6 | "), std::string::npos) << md;
  EXPECT_NE(md.find("Outliers (one run each, set aside; not change points):"), std::string::npos) << md;
  EXPECT_NE(md.find("| c2 | "), std::string::npos) << md;
}

}  // namespace
}  // namespace perfgate::testing
