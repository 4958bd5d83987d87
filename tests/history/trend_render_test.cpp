// The trend's outputs: the JSON in the issue's form (keys first, values checked against the
// series), the HTML page (self-contained, no script, every label escaped), Markdown and the
// terminal summary.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "history/history_runs.h"
#include "perfgate/trend.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

constexpr const char* kScriptCommit = "<script>alert(1)</script>";
constexpr const char* kAttributeBranch = "\"><img src=x onerror=alert(2)>";

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

std::vector<std::string> keys_of(const json::object& o) {
  std::vector<std::string> keys;
  for (const auto& kv : o) keys.emplace_back(kv.key());
  return keys;
}

TrendReport planted_trend(std::vector<HistoryRun>& runs) {
  runs = planted_history(1, true);
  TrendSettings settings;
  settings.source = "sqlite history.db";
  settings.branch = "main";
  return build_trend(runs, default_rules(), settings);
}

// The planted history with hostile labels on the runs around the change.
TrendReport hostile_trend() {
  std::vector<HistoryRun> runs = planted_history(1, true);
  runs[kPlantedAt - 1].labels.commit = kScriptCommit;
  runs[kPlantedAt].labels.commit = "a|b`c`_*d*[x](http://evil.example)";
  for (HistoryRun& r : runs) r.labels.branch = kAttributeBranch;
  TrendSettings settings;
  settings.source = "sqlite <b>history</b>.db";
  settings.branch = kAttributeBranch;
  return build_trend(runs, default_rules(), settings);
}

TEST(TrendJson, TheIssuesKeysFirstThenTheDetails) {
  std::vector<HistoryRun> runs;
  TrendReport trend = planted_trend(runs);
  json::object root = json::parse(render_trend_json(trend)).as_object();
  std::vector<std::string> top = keys_of(root);
  ASSERT_GE(top.size(), 2u);
  EXPECT_EQ(top[0], "change_points");
  EXPECT_EQ(top[1], "series");
  EXPECT_EQ(root.at("schema").as_string(), "perfgate-trend/1");

  const json::array& changes = root.at("change_points").as_array();
  ASSERT_EQ(changes.size(), 1u);
  const json::object& c = changes[0].as_object();
  std::vector<std::string> keys = keys_of(c);
  ASSERT_GE(keys.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + 5),
            (std::vector<std::string>{"metric", "before_commit", "after_commit", "change_pct", "p_value"}));
  EXPECT_EQ(c.at("metric").as_string(), "steps.median_us");
  EXPECT_EQ(c.at("before_commit").as_string(), runs[kPlantedAt - 1].labels.commit);
  EXPECT_EQ(c.at("after_commit").as_string(), runs[kPlantedAt].labels.commit);
  EXPECT_LE(c.at("p_value").to_number<double>(), 0.001);
  // The change from the series itself: the means of runs 0-16 and 17-29.
  double before = 0, after = 0;
  for (std::size_t i = 0; i < 30; ++i)
    (i < kPlantedAt ? before : after) += *runs[i].data.metric("steps.median_us");
  before /= kPlantedAt;
  after /= 30 - kPlantedAt;
  EXPECT_NEAR(c.at("change_pct").to_number<double>(), 100 * (after - before) / before, 1e-5);

  const json::object& series = root.at("series").as_object();
  EXPECT_EQ(keys_of(series), gated_metrics(default_rules()));
  const json::array& steps = series.at("steps.median_us").as_array();
  ASSERT_EQ(steps.size(), 30u);
  for (std::size_t i = 0; i < 30; ++i) {
    const json::object& p = steps[i].as_object();
    EXPECT_EQ(keys_of(p)[0], "commit");
    EXPECT_EQ(keys_of(p)[1], "value");
    EXPECT_EQ(p.at("commit").as_string(), runs[i].labels.commit);
    EXPECT_NEAR(p.at("value").to_number<double>(), *runs[i].data.metric("steps.median_us"), 1e-6);
  }
  const json::object& band = root.at("metrics").at("steps.median_us").at("band").as_object();
  EXPECT_EQ(band.at("kind").as_string(), "gate-limit");
  EXPECT_EQ(root.at("settings").at("permutations").to_number<int>(), 999);
}

TEST(TrendJson, NoChangePointIsAnEmptyList) {
  TrendReport trend = build_trend(planted_history(20, false), default_rules(), {});
  json::object root = json::parse(render_trend_json(trend)).as_object();
  EXPECT_TRUE(root.at("change_points").as_array().empty());
  EXPECT_EQ(root.at("series").at("memory.peak_allocated_bytes").as_array().size(), 30u);
}

TEST(TrendHtml, SelfContainedWithoutScriptAndWellFormed) {
  std::vector<HistoryRun> runs;
  std::string page = render_trend_html(planted_trend(runs));
  EXPECT_EQ(page.find("<script"), std::string::npos) << "no script at all";
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(count(page, "http"), count(page, "http://www.w3.org/2000/svg"))
      << "no address but SVG's namespace";
  for (const char* tag : {"section", "table", "svg", "figure", "details", "tbody", "tr", "td"})
    EXPECT_EQ(count(page, fmt::format("<{}", tag)), count(page, fmt::format("</{}>", tag))) << tag;
  // A chart per metric (the legends' colour swatches are small SVGs without the namespace).
  EXPECT_EQ(count(page, "<svg xmlns"), 5u);
  EXPECT_NE(page.find("regression.step-time"), std::string::npos);
  EXPECT_NE(page.find("1 change point in 5 metrics over 30 runs"), std::string::npos);
  // The change is marked on the chart and listed with its commits (cut to 10 hex digits).
  EXPECT_NE(page.find(runs[kPlantedAt - 1].labels.commit.substr(0, 10) + "</td>"), std::string::npos);
  EXPECT_NE(page.find(runs[kPlantedAt].labels.commit.substr(0, 10) + "</td>"), std::string::npos);
  EXPECT_NE(page.find("stroke-dasharray=\"5 3\""), std::string::npos) << "the change point's line";
}

TEST(TrendHtml, EveryLabelIsEscaped) {
  std::string page = render_trend_html(hostile_trend());
  EXPECT_EQ(page.find(kScriptCommit), std::string::npos);
  EXPECT_EQ(page.find(kAttributeBranch), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>history"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
}

TEST(TrendMarkdown, ChangePointsAndSeriesEscaped) {
  std::string md = render_trend_markdown(hostile_trend());
  EXPECT_EQ(md.find(kScriptCommit), std::string::npos);
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_EQ(md.find("a|b"), std::string::npos) << "a pipe would split the table cell";
  EXPECT_NE(md.find("a\\|b\\`c\\`\\_\\*d\\*\\[x\\](http://evil.example)"), std::string::npos);
  EXPECT_NE(md.find("### steps.median\\_us"), std::string::npos);
  EXPECT_NE(md.find("(regression)"), std::string::npos);
  EXPECT_EQ(count(md, "No change point in 30 runs."), 4u) << "the four noisy or constant metrics";
  EXPECT_EQ(count(md, "<details>"), 5u);
  EXPECT_EQ(count(md, "</details>"), 5u);
}

TEST(TrendTerminal, ALinePerMetricAndPerChange) {
  std::vector<HistoryRun> runs;
  TrendReport trend = planted_trend(runs);
  std::string text = render_trend_terminal(trend);
  EXPECT_NE(text.find("History      sqlite history.db · branch main · 30 runs"), std::string::npos) << text;
  EXPECT_NE(text.find("steps.median_us"), std::string::npos);
  EXPECT_NE(text.find("1 change point\n"), std::string::npos);
  std::string range = fmt::format("between {} and {}", runs[kPlantedAt - 1].labels.commit.substr(0, 10),
                                  runs[kPlantedAt].labels.commit.substr(0, 10));
  EXPECT_NE(text.find(range), std::string::npos) << text;
  EXPECT_EQ(count(text, "no change point"), 4u);
  EXPECT_NE(text.find("Trend        1 change point in 5 metrics over 30 runs"), std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
