// The trend's outputs: the JSON in the issue's form (keys first, values checked against the
// series), the HTML page (self-contained, no script, every label escaped), Markdown and the
// terminal summary.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "history/history_runs.h"
#include "render/render.h"
#include "report_model/trend.h"
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
  return build_trend(runs, default_gated_metrics(), settings);
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
  return build_trend(runs, default_gated_metrics(), settings);
}

TEST(TrendJson, TheIssuesKeysFirstThenTheDetails) {
  std::vector<HistoryRun> runs;
  TrendReport trend = planted_trend(runs);
  json::object root = json::parse(render_trend_json(trend)).as_object();
  std::vector<std::string> top = keys_of(root);
  ASSERT_GE(top.size(), 2u);
  EXPECT_EQ(top[0], "change_points");
  EXPECT_EQ(top[1], "series");
  EXPECT_EQ(root.at("schema").as_string(), "perfgate-trend/2.1");

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
    (i < kPlantedAt ? before : after) += *runs[i].data.metric(Metric::StepsMedianUs);
  before /= kPlantedAt;
  after /= 30 - kPlantedAt;
  EXPECT_NEAR(c.at("change_pct").to_number<double>(), 100 * (after - before) / before, 1e-5);

  const json::object& series = root.at("series").as_object();
  EXPECT_EQ(keys_of(series), gated_metrics(default_gated_metrics()));
  const json::array& steps = series.at("steps.median_us").as_array();
  ASSERT_EQ(steps.size(), 30u);
  for (std::size_t i = 0; i < 30; ++i) {
    const json::object& p = steps[i].as_object();
    EXPECT_EQ(keys_of(p)[0], "commit");
    EXPECT_EQ(keys_of(p)[1], "value");
    EXPECT_EQ(p.at("commit").as_string(), runs[i].labels.commit);
    EXPECT_NEAR(p.at("value").to_number<double>(), *runs[i].data.metric(Metric::StepsMedianUs), 1e-6);
  }
  const json::object& band = root.at("metrics").at("steps.median_us").at("band").as_object();
  EXPECT_EQ(band.at("kind").as_string(), "gate-limit");
  EXPECT_FALSE(root.at("settings").as_object().contains("permutations")) << "a deterministic test";
  EXPECT_DOUBLE_EQ(root.at("settings").at("power").to_number<double>(), 0.8);
}

TEST(TrendJson, NoChangePointIsAnEmptyList) {
  TrendReport trend = build_trend(planted_history(20, false), default_gated_metrics(), {});
  json::object root = json::parse(render_trend_json(trend)).as_object();
  EXPECT_TRUE(root.at("change_points").as_array().empty());
  EXPECT_EQ(root.at("series").at("memory.peak_allocated_bytes").as_array().size(), 30u);
}

// Issue #29's item 7: 8 runs of one trace, then 8 of another. The median step 126.68 ms -> 177.44 ms,
// the data loader's share 0.57% -> 33.4%, peak memory 2.8 GB -> 131,072 bytes more; the mean step
// (no baseline rule reads it) as the median.
TrendReport sixteen_runs() {
  TrendSettings settings;
  settings.metrics = {"steps.median_us", "breakdown.dataloader_pct", "memory.peak_allocated_bytes",
                      "steps.mean_us"};
  return build_trend(stepped_runs(8, 8,
                                  {{Metric::StepsMedianUs, 126680, 177440},
                                   {Metric::StepsMeanUs, 126680, 177440},
                                   {Metric::BreakdownDataloaderPct, 0.57, 33.4},
                                   {Metric::MemoryPeakAllocatedBytes, 2.8e9, 2.8e9 + 131072}}),
                     default_gated_metrics(), settings);
}

// Issue #29's item 6, shortened: 3 runs, then 2 runs 40% slower: too few for two parts of 3.
TrendReport five_runs() {
  TrendSettings settings;
  settings.metrics = {"steps.median_us"};
  return build_trend(stepped_runs(3, 2, {{Metric::StepsMedianUs, 177440, 248420}}), default_gated_metrics(),
                     settings);
}

TEST(TrendJson, DetectionMinimumEffectPointsAndTheBandSinceTheChange) {
  json::object root = json::parse(render_trend_json(sixteen_runs())).as_object();
  // 16 runs: a change needs two parts of the minimum segment, 3 runs each side; the history's
  // summary has no noise of its own (each metric has).
  const json::object& detection = root.at("detection").as_object();
  EXPECT_EQ(keys_of(detection),
            (std::vector<std::string>{"detectable", "min_runs_for_p", "runs_each_side", "noise_pct",
                                      "shift_after_runs", "detectable_shift_pct"}));
  EXPECT_TRUE(detection.at("detectable").as_bool());
  EXPECT_EQ(detection.at("min_runs_for_p").to_number<int>(), 6);
  EXPECT_EQ(detection.at("runs_each_side").to_number<int>(), 3);
  EXPECT_TRUE(detection.at("noise_pct").is_null());
  EXPECT_EQ(detection.at("shift_after_runs").to_number<int>(), 5);
  // The step and the share change; 131 kB of 2.8 GB is below regression.memory's +10%; the mean
  // step has no rule, so no minimum, and changes too.
  const json::array& changes = root.at("change_points").as_array();
  ASSERT_EQ(changes.size(), 3u) << json::serialize(changes);
  EXPECT_EQ(changes[0].at("metric").as_string(), "steps.median_us");
  EXPECT_TRUE(changes[0].at("change_pts").is_null()) << "a duration is no share";
  EXPECT_EQ(changes[1].at("metric").as_string(), "breakdown.dataloader_pct");
  // 33.4 - 0.57 = 32.83 points; change_pct stays 100 · 32.83 / 0.57 = 5759.6.
  EXPECT_NEAR(changes[1].at("change_pts").to_number<double>(), 32.83, 1e-6);
  EXPECT_NEAR(changes[1].at("change_pct").to_number<double>(), 100 * 32.83 / 0.57, 1e-4);
  EXPECT_EQ(changes[2].at("metric").as_string(), "steps.mean_us");
  const json::object& metrics = root.at("metrics").as_object();
  const json::object& steps = metrics.at("steps.median_us").as_object();
  EXPECT_TRUE(steps.at("detectable").as_bool());
  EXPECT_EQ(steps.at("min_runs_for_p").to_number<int>(), 6);
  // Two constant levels: no noise within them, so any shift shows.
  EXPECT_DOUBLE_EQ(steps.at("noise_pct").to_number<double>(), 0.0);
  EXPECT_DOUBLE_EQ(steps.at("detectable_shift_pct").to_number<double>(), 0.0);
  EXPECT_EQ(steps.at("runs").to_number<int>(), 16);
  const json::object& min_effect = steps.at("min_effect").as_object();
  EXPECT_EQ(min_effect.at("rule").as_string(), "regression.step-time");
  EXPECT_EQ(min_effect.at("limit").as_string(), "+3%");
  EXPECT_DOUBLE_EQ(min_effect.at("amount").to_number<double>(), 0.03);
  EXPECT_TRUE(min_effect.at("relative").as_bool());
  EXPECT_TRUE(metrics.at("steps.mean_us").at("min_effect").is_null());
  EXPECT_EQ(metrics.at("breakdown.dataloader_pct").at("min_effect").at("limit").as_string(), "+5 pts");
  EXPECT_FALSE(metrics.at("breakdown.dataloader_pct").at("min_effect").at("relative").as_bool());
  // The band is of the 8 runs since the change (run index 8, id 9, commit c8): 177.44 ms ± 3%.
  const json::object& band = steps.at("band").as_object();
  EXPECT_TRUE(band.at("since_change").as_bool());
  EXPECT_EQ(band.at("since_index").to_number<int>(), 8);
  EXPECT_EQ(band.at("since_run_id").to_number<int>(), 9);
  EXPECT_EQ(band.at("since_commit").as_string(), "c8");
  EXPECT_EQ(band.at("runs").to_number<int>(), 8);
  EXPECT_DOUBLE_EQ(band.at("center").to_number<double>(), 177440);
  // Memory has no change point: its band is of the last 10 runs, across the 131 kB step.
  EXPECT_FALSE(metrics.at("memory.peak_allocated_bytes").at("band").at("since_change").as_bool());
  EXPECT_EQ(metrics.at("memory.peak_allocated_bytes").at("band").at("runs").to_number<int>(), 10);
}

TEST(TrendJson, TooFewRunsSayHowManyAreNeeded) {
  json::object root = json::parse(render_trend_json(five_runs())).as_object();
  // 5 runs: no two parts of 3.
  for (const json::value* d : {&root.at("detection"), &root.at("metrics").at("steps.median_us")}) {
    EXPECT_FALSE(d->at("detectable").as_bool());
    EXPECT_EQ(d->at("min_runs_for_p").to_number<int>(), 6);
  }
  EXPECT_TRUE(root.at("detection").at("detectable_shift_pct").is_null()) << "the summary is of no metric";
  // The metric's 5 runs (no change point) have a noise, and 5 more runs could show a shift.
  EXPECT_GT(root.at("metrics").at("steps.median_us").at("detectable_shift_pct").to_number<double>(), 0);
  EXPECT_TRUE(root.at("change_points").as_array().empty());
}

TEST(TrendHtml, SelfContainedAndWellFormed) {
  std::vector<HistoryRun> runs;
  std::string page = render_trend_html(planted_trend(runs));
  // One script, the report's own, in the page (it lays the charts out for their width).
  EXPECT_EQ(count(page, "<script"), 1u);
  EXPECT_NE(page.find("<script>\n// perfgate report"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  // The shared script's Perfetto button handler (a report page's, inert here: no button) checks the
  // page's protocol and names Perfetto's origin; no other address.
  EXPECT_EQ(count(page, "http"), count(page, "http://www.w3.org/2000/svg") + count(page, "/^https?:$/") +
                                     count(page, "\"https://ui.perfetto.dev\""))
      << "no address but SVG's namespace";
  EXPECT_EQ(page.find("id=\"perfgate-perfetto"), std::string::npos) << "no Perfetto button on the trend page";
  for (const char* tag : {"section", "table", "svg", "figure", "details", "tbody", "tr", "td"})
    EXPECT_EQ(count(page, fmt::format("<{}", tag)), count(page, fmt::format("</{}>", tag))) << tag;
  // A chart per metric (the legends' colour swatches are small SVGs without the namespace).
  EXPECT_EQ(count(page, "<svg xmlns"), 6u);
  EXPECT_NE(page.find("regression.step-time"), std::string::npos);
  EXPECT_NE(page.find("1 change point in 6 metrics over 30 runs"), std::string::npos);
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
  EXPECT_EQ(count(page, "<script"), 1u) << "the page's own script only";
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
  EXPECT_EQ(count(md, "<details>"), 6u);
  EXPECT_EQ(count(md, "</details>"), 6u);
}

TEST(TrendTerminal, SaysWhatTheRunsCanShow) {
  std::string few = render_trend_terminal(five_runs());
  EXPECT_NE(few.find("· no change point (needs ≥ 6 runs)\n"), std::string::npos) << few;
  EXPECT_NE(few.find("Detection    p ≤ 0.01 needs ≥ 6 runs: 5 runs cannot be split into two parts of 3"),
            std::string::npos)
      << few;
  std::string enough = render_trend_terminal(sixteen_runs());
  EXPECT_NE(enough.find("Detection    a change shows at p ≤ 0.01 with ≥ 3 runs on each side of it"),
            std::string::npos)
      << enough;
  // 0.57% -> 33.4% is +32.8 points, not +5759.6%.
  EXPECT_NE(enough.find("+32.8 pts (0.6% -> 33.4%)"), std::string::npos) << enough;
  EXPECT_EQ(enough.find("5759"), std::string::npos) << enough;
  // 177.44 ms ± 3% = 5.3232 ms: 172.12 ms to 182.76 ms, of the runs since the change.
  EXPECT_NE(enough.find("band 172.12 ms to 182.76 ms since the change · 1 change point"), std::string::npos)
      << enough;
  EXPECT_NE(enough.find("memory.peak_allocated_bytes    16 runs · latest 2.8 GB"), std::string::npos);
  EXPECT_EQ(count(enough, " · 1 change point\n"), 3u)
      << "the median and mean step, the data loader: not memory";
}

TEST(TrendMarkdown, SaysWhatTheRunsCanShow) {
  std::string few = render_trend_markdown(five_runs());
  EXPECT_NE(few.find("⚠️ Detection over 5 runs: p ≤ 0.01 needs ≥ 6 runs: 5 runs cannot be split into "
                     "two parts of 3."),
            std::string::npos)
      << few;
  EXPECT_NE(few.find("| 0 (needs ≥ 6 runs) |"), std::string::npos) << few;
  std::string enough = render_trend_markdown(sixteen_runs());
  EXPECT_NE(
      // Memory: 8 runs of 2.8 GB and 8 of 131,072 bytes more, no change point (below 10%): its noise is the
      // spread of one segment, sqrt(16 x 65,536^2 / 15) = 67,687 bytes, 0.0024% of 2.8 GB; the shift 5
      // more runs show at 0.01 with 80% power, computed apart with mpmath: 0.006645% (0.0080% at 0.001).
      enough.find("Detection: a change shows at p ≤ 0.01 with ≥ 3 runs on each side of it; at this run noise "
                  "(0.0024%) a shift of 0.0066% shows 5 runs after it (80% power); a change point needs a "
                  "change of at least 10% (regression.memory)."),
      std::string::npos)
      << enough;
  EXPECT_NE(enough.find("| +32.8 pts (regression) |"), std::string::npos) << enough;
  EXPECT_NE(enough.find("median of the 8 runs since the change (from c8) ± 3% (regression.step-time)"),
            std::string::npos)
      << enough;
}

TEST(TrendHtml, SaysWhatTheRunsCanShow) {
  std::string few = render_trend_html(five_runs());
  EXPECT_NE(few.find("class=\"verdict verdict-warn\""), std::string::npos);
  EXPECT_NE(
      few.find("Detection over 5 runs: p ≤ 0.01 needs ≥ 6 runs: 5 runs cannot be split into two parts of 3."),
      std::string::npos);
  EXPECT_NE(few.find("<span class=\"note\">(needs ≥ 6 runs)</span>"), std::string::npos);
  std::string enough = render_trend_html(sixteen_runs());
  EXPECT_EQ(enough.find("class=\"verdict verdict-warn\""), std::string::npos);
  EXPECT_NE(
      enough.find("<p class=\"note\">Detection: a change shows at p ≤ 0.01 with ≥ 3 runs on each side of "
                  "it; a change point needs a change of at least 5 pts (regression.dataloader).</p>"),
      std::string::npos);
  EXPECT_NE(enough.find(">+32.8 pts</text>"), std::string::npos) << "the chart's change label";
  EXPECT_NE(enough.find("The band is of the 8 runs since the last change."), std::string::npos);
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
  EXPECT_EQ(count(text, "no change point"), 5u);
  EXPECT_NE(text.find("Trend        1 change point in 6 metrics over 30 runs"), std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
