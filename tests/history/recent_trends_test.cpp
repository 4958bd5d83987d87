// The recent trend next to a finding when the baseline comes from a history: built from the runs
// and the current report, and shown by the HTML, Markdown, terminal and JSON outputs (report
// models built by hand).
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "history/history_runs.h"
#include "render/render.h"
#include "report_model/trend.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// 12 history runs with median steps of 12.0, 12.1, ... 13.1 ms and no GPU utilization.
std::vector<HistoryRun> twelve_runs() {
  std::vector<HistoryRun> runs;
  for (int i = 0; i < 12; ++i)
    runs.push_back(
        history_run(i + 1, fmt::format("commit{}", i), {{Metric::StepsMedianUs, 12000.0 + 100 * i}}));
  return runs;
}

ReportModel current_run(double median_us) {
  ReportModel r;
  r.metrics.set(Metric::StepsMedianUs, median_us);
  r.metrics.set(Metric::GpuUtilizationPct, 70.0);
  return r;
}

TEST(RecentTrends, TheLastRunsThenTheCurrentOne) {
  std::vector<ReportMetricTrend> trends =
      recent_trends(twelve_runs(), current_run(14500), default_gated_metrics(), "feature-sha", 10);
  // Only the step time: the history has no value of the other gated metrics.
  ASSERT_EQ(trends.size(), 1u);
  const ReportMetricTrend& t = trends[0];
  EXPECT_EQ(t.metric, "steps.median_us");
  EXPECT_EQ(t.unit, "us");
  ASSERT_EQ(t.points.size(), 10u);
  for (std::size_t i = 0; i < 9; ++i) {  // runs 3..11 of the history
    EXPECT_EQ(t.points[i].commit, fmt::format("commit{}", i + 3));
    EXPECT_DOUBLE_EQ(t.points[i].value, 12300.0 + 100 * static_cast<double>(i));
    EXPECT_FALSE(t.points[i].is_current);
  }
  EXPECT_EQ(t.points[9].commit, "feature-sha");
  EXPECT_DOUBLE_EQ(t.points[9].value, 14500);
  EXPECT_TRUE(t.points[9].is_current);
}

TEST(RecentTrends, RunsWithoutAValueAreSkippedAndAMissingCurrentValueIsLeftOut) {
  std::vector<HistoryRun> runs = twelve_runs();
  runs[11].data.metrics.set(Metric::StepsMedianUs, std::nullopt);
  ReportModel current;  // no metric values
  std::vector<ReportMetricTrend> trends = recent_trends(runs, current, default_gated_metrics(), "x", 4);
  ASSERT_EQ(trends.size(), 1u);
  ASSERT_EQ(trends[0].points.size(), 3u) << "max_points - 1 history runs, and no current value";
  EXPECT_EQ(trends[0].points.back().commit, "commit10");
  EXPECT_FALSE(trends[0].points.back().is_current);
  EXPECT_TRUE(recent_trends({}, current_run(1), default_gated_metrics(), "x").empty())
      << "no history, no trend";
}

// A run gated against a history whose step time failed, with its recent values 12.1, 12.0, 12.3
// and 13.4 ms (this run).
ReportModel failed_report() {
  ReportModel r = current_run(13400);
  ReportBaseline b;
  b.path = "sqlite history.db";
  b.kind = "history";
  b.runs = 3;
  b.trends.push_back(
      {"steps.median_us",
       "us",
       {{"a1", 12100, false}, {"a2", 12000, false}, {"a3", 12300, false}, {"mine", 13400, true}}});
  r.baseline = b;
  ReportFinding f;
  f.id = "regression.step-time";
  f.title = "Step time regressed";
  f.severity = "error";
  f.status = FindingStatus::Fail;
  f.counts_as = "error";
  f.metric = "steps.median_us";
  f.unit = "us";
  f.value = 13400;
  f.threshold = 5;
  f.threshold_text = "+5% over the baseline (12.10 ms)";
  f.problem = "The median step takes 13.40 ms.";
  r.findings.push_back(f);
  ReportFinding other = f;
  other.id = "gpu.low-utilization";
  other.metric = "gpu.utilization_pct";
  other.status = FindingStatus::Warn;
  r.findings.push_back(other);
  ReportVerdict v;
  v.status = "fail";
  v.exit_code = 1;
  v.failures = 1;
  v.warnings = 1;
  r.verdict = v;
  return r;
}

TEST(RecentTrends, MarkdownShowsTheRecentValuesWithTheCurrentOneInBold) {
  std::string md = render_markdown(failed_report());
  EXPECT_NE(md.find("<br>recent: 12.10 → 12.00 → 12.30 → **13.40 ms**"), std::string::npos) << md;
  EXPECT_EQ(md.find("recent:"), md.rfind("recent:")) << "only the finding that reads the metric";
  std::string comment = render_markdown(failed_report(), MarkdownOptions{true, kPrCommentBudget});
  EXPECT_NE(comment.find("recent: 12.10 → 12.00 → 12.30 → **13.40 ms**"), std::string::npos);
}

TEST(RecentTrends, TerminalShowsOneLine) {
  std::string text = render_terminal(failed_report());
  EXPECT_NE(text.find("        recent: 12.10 → 12.00 → 12.30 → 13.40 ms (this run)\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("recent:"), text.rfind("recent:"));
}

TEST(RecentTrends, HtmlShowsASparklineInTheFinding) {
  std::string page = render_html(failed_report()).page;
  std::size_t finding = page.find("<article class=\"finding fail\" id=\"finding-");
  ASSERT_NE(finding, std::string::npos);
  std::size_t end = page.find("</article>", finding);
  std::string article = page.substr(finding, end - finding);
  EXPECT_NE(article.find("<p class=\"trend\"><svg"), std::string::npos) << article;
  EXPECT_NE(article.find("<polyline points=\""), std::string::npos);
  EXPECT_NE(article.find("fill=\"#c8322d\""), std::string::npos) << "the current run, marked as failing";
  EXPECT_NE(article.find("Recent runs: 12.10 → 12.00 → 12.30 → 13.40 ms (this run last)"), std::string::npos);
  // Four points 112 / 3 = 37.33 px apart from x = 4; y = 24 - 20 (v - 12.0 ms) / 1.4 ms in the
  // 28-pixel box with 4 pixels of padding: 12.1 -> 22.57, 12.0 -> 24, 12.3 -> 19.71, 13.4 -> 4.
  EXPECT_NE(article.find("points=\"4.0,22.6 41.3,24.0 78.7,19.7 116.0,4.0\""), std::string::npos) << article;
  EXPECT_EQ(page.find("class=\"trend\""), page.rfind("class=\"trend\"")) << "only the finding that reads it";
}

TEST(RecentTrends, JsonHasThemUnderTheBaseline) {
  boost::json::object root = boost::json::parse(render_json(failed_report())).as_object();
  const boost::json::array& trends = root.at("baseline").at("trends").as_array();
  ASSERT_EQ(trends.size(), 1u);
  const boost::json::object& t = trends[0].as_object();
  EXPECT_EQ(t.at("metric").as_string(), "steps.median_us");
  EXPECT_EQ(t.at("unit").as_string(), "us");
  const boost::json::array& points = t.at("points").as_array();
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[3].at("commit").as_string(), "mine");
  EXPECT_EQ(points[3].at("value").to_number<double>(), 13400);
  EXPECT_TRUE(points[3].at("is_current").as_bool());
  EXPECT_FALSE(points[0].at("is_current").as_bool());
}

}  // namespace
}  // namespace perfgate::testing
