// `perfgate history trend` end to end: 30 JSON reports of the bundled example, their metrics
// edited (2% noise; the median step 10% slower from the 18th run on), imported with a commit each,
// then the trend names the commits around the step; 30 runs of pure noise have no change point.
// Issue #29's item 6: runs of a trace, then of the trace 40% slower, recorded by `analyze`.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "history/history_cli_support.h"
#include "history/history_runs.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

// The example's report, analysed once.
const json::object& example_report() {
  static const json::object report = [] {
    std::string path = temp_dir() + "/example.json";
    std::string example = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
    run_perfgate("analyze " + example + " -q --json " + path);
    return json::parse(read_text(path)).as_object();
  }();
  return report;
}

// A history of 30 runs: each gated metric of the example with 2% noise, the median step 10%
// slower from run index kPlantedAt on when `step`. Returns the history's path and the commits.
std::pair<std::string, std::vector<std::string>> recorded_history(std::uint64_t seed, bool step) {
  std::string dir = temp_dir(), db = dir + "/history.db";
  const json::object& metrics = example_report().at("metrics").as_object();
  std::vector<std::vector<double>> noisy;
  std::vector<std::string> names = {"steps.median_us", "gpu.utilization_pct", "breakdown.dataloader_pct"};
  for (std::size_t m = 0; m < names.size(); ++m) {
    double level = metrics.at(names[m]).to_number<double>();
    noisy.push_back(noisy_series(
        kPlantedRuns, seed + m,
        [&](std::size_t i) { return m == 0 && step && i >= kPlantedAt ? level * 1.1 : level; }, 2));
  }
  std::vector<std::string> commits;
  for (std::size_t i = 0; i < kPlantedRuns; ++i) {
    json::object report = example_report();
    for (std::size_t m = 0; m < names.size(); ++m) report["metrics"].as_object()[names[m]] = noisy[m][i];
    std::string path = write_text(fmt::format("{}/run{:02}.json", dir, i), json::serialize(report));
    commits.push_back(commit_of(i));
    CommandResult r =
        run_perfgate(fmt::format("history import {} {} --branch main --commit {}", db, path, commits[i]));
    EXPECT_EQ(r.exit_code, 0) << r.out;
  }
  return {db, commits};
}

TEST(TrendCli, FindsAStepPlantedInThirtyRecordedRunsAtTheRightCommit) {
  auto [db, commits] = recorded_history(1, true);
  std::string dir = temp_dir();
  CommandResult r = run_perfgate(
      fmt::format("history trend {} --branch main --json {}/trend.json --html {}/trend.html --md {}/trend.md",
                  db, dir, dir, dir));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("1 change point in 6 metrics over 30 runs"), std::string::npos) << r.out;
  json::object trend = json::parse(read_text(dir + "/trend.json")).as_object();
  const json::array& changes = trend.at("change_points").as_array();
  ASSERT_EQ(changes.size(), 1u) << read_text(dir + "/trend.json");
  EXPECT_EQ(changes[0].at("metric").as_string(), "steps.median_us");
  EXPECT_EQ(changes[0].at("before_commit").as_string(), commits[kPlantedAt - 1]);
  EXPECT_EQ(changes[0].at("after_commit").as_string(), commits[kPlantedAt]);
  EXPECT_NEAR(changes[0].at("change_pct").to_number<double>(), 10, 2.5);
  EXPECT_LE(changes[0].at("p_value").to_number<double>(), 0.001);
  const json::array& steps = trend.at("series").at("steps.median_us").as_array();
  ASSERT_EQ(steps.size(), kPlantedRuns);
  for (std::size_t i = 0; i < kPlantedRuns; ++i) EXPECT_EQ(steps[i].at("commit").as_string(), commits[i]);
  EXPECT_NE(read_text(dir + "/trend.html").find("<svg"), std::string::npos);
  EXPECT_NE(read_text(dir + "/trend.md").find("### steps.median\\_us"), std::string::npos);
}

TEST(TrendCli, ThirtyRunsOfPureNoiseHaveNoChangePoint) {
  auto [db, commits] = recorded_history(2, false);
  std::string json_path = temp_dir() + "/trend.json";
  CommandResult r = run_perfgate(fmt::format("history trend {} --json {}", db, json_path));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("0 change points in 6 metrics over 30 runs"), std::string::npos) << r.out;
  json::object trend = json::parse(read_text(json_path)).as_object();
  EXPECT_TRUE(trend.at("change_points").as_array().empty());
  EXPECT_EQ(trend.at("series").at("steps.median_us").as_array().size(), kPlantedRuns);
}

// The trace with every time stretched by `factor` from its first event on: each step, kernel and
// op lasts `factor` times as long, in the same order.
std::string stretched(const std::string& trace, double factor) {
  json::object root = json::parse(trace).as_object();
  json::array& events = root.at("traceEvents").as_array();
  double start = std::numeric_limits<double>::infinity();
  for (const json::value& e : events)
    if (e.as_object().contains("ts")) start = std::min(start, e.at("ts").to_number<double>());
  for (json::value& e : events) {
    json::object& o = e.as_object();
    if (o.contains("ts")) o["ts"] = start + (o["ts"].to_number<double>() - start) * factor;
    if (o.contains("dur")) o["dur"] = o["dur"].to_number<double>() * factor;
  }
  return json::serialize(root);
}

TEST(TrendCli, FiveRunsSayTheyAreTooFewThenTheChangeAndItsBandShow) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/history.db";
  std::string fast = training_trace_file(dir, steady(), "fast");
  std::string slow = write_text(dir + "/slow.pt.trace.json", stretched(read_text(fast), 1.4));
  auto record = [&](const std::string& trace, const std::string& commit) {
    CommandResult r = run_perfgate(
        fmt::format("analyze {} -q --history {} --record --branch main --commit {}", trace, db, commit));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out;  // the slower runs may warn or fail
  };
  for (int i = 1; i <= 3; ++i) record(fast, fmt::format("fast{}", i));
  for (int i = 1; i <= 2; ++i) record(slow, fmt::format("slow{}", i));
  std::string json_path = dir + "/trend.json";
  CommandResult five =
      run_perfgate(fmt::format("history trend {} --metric steps.median_us --json {}", db, json_path));
  ASSERT_EQ(five.exit_code, 0) << five.out;
  // 5 runs cannot be split into two parts of the minimum segment, 3: no change point, and the trend
  // says why.
  EXPECT_TRUE(contains(five.out, "0 change points in 1 metric over 5 runs")) << five.out;
  EXPECT_TRUE(contains(five.out, "no change point (needs ≥ 6 runs)")) << five.out;
  EXPECT_TRUE(
      contains(five.out, "Detection    p ≤ 0.01 needs ≥ 6 runs: 5 runs cannot be split into two parts of 3"))
      << five.out;
  json::object trend = json::parse(read_text(json_path)).as_object();
  const json::array& values = trend.at("series").at("steps.median_us").as_array();
  ASSERT_EQ(values.size(), 5u);
  double before = values[0].at("value").to_number<double>(),
         after = values[4].at("value").to_number<double>();
  EXPECT_NEAR(after / before, 1.4, 0.01) << "the variant's steps are 40% longer";
  EXPECT_FALSE(trend.at("detection").at("detectable").as_bool());
  EXPECT_EQ(trend.at("metrics").at("steps.median_us").at("min_runs_for_p").to_number<int>(), 6);

  // 15 runs of the slower code: two constant levels, 3 | 15, a change with no noise around it
  // (p = 0). It is found between fast3 and slow1, and the band (of every run since it) holds only
  // slower runs.
  for (int i = 3; i <= 15; ++i) record(slow, fmt::format("slow{}", i));
  CommandResult eighteen = run_perfgate(
      fmt::format("history trend {} --metric steps.median_us --band-runs 20 --json {}", db, json_path));
  ASSERT_EQ(eighteen.exit_code, 0) << eighteen.out;
  EXPECT_TRUE(contains(eighteen.out, "1 change point in 1 metric over 18 runs")) << eighteen.out;
  EXPECT_TRUE(contains(eighteen.out, "+40.0% (")) << eighteen.out;
  EXPECT_TRUE(
      contains(eighteen.out,
               "between fast3 and slow1: 3 runs before, 15 after; p 0.000, confidence ≥ 99.99%, regression"))
      << eighteen.out;
  EXPECT_TRUE(contains(eighteen.out, "    change point +40.0% (")) << "marked apart from outliers";
  EXPECT_TRUE(contains(eighteen.out, "since the change")) << eighteen.out;
  trend = json::parse(read_text(json_path)).as_object();
  const json::object& band = trend.at("metrics").at("steps.median_us").at("band").as_object();
  EXPECT_TRUE(band.at("since_change").as_bool());
  EXPECT_EQ(band.at("since_commit").as_string(), "slow1");
  EXPECT_EQ(band.at("runs").to_number<int>(), 15);
  // The slower runs' median step ± 3% holds each of them, and none of the faster ones.
  EXPECT_DOUBLE_EQ(band.at("center").to_number<double>(), after);
  EXPECT_LT(band.at("low").to_number<double>(), after);
  EXPECT_GT(band.at("high").to_number<double>(), after);
  EXPECT_GT(band.at("low").to_number<double>(), before);
}

TEST(TrendCli, ChoosesMetricsAndRejectsUnknownOnes) {
  auto [db, commits] = recorded_history(3, true);
  std::string json_path = temp_dir() + "/trend.json";
  CommandResult one = run_perfgate(
      fmt::format("history trend {} --metric steps.median_us --last 10 -q --json {}", db, json_path));
  ASSERT_EQ(one.exit_code, 0) << one.out;
  EXPECT_TRUE(one.out.empty()) << one.out;
  json::object trend = json::parse(read_text(json_path)).as_object();
  EXPECT_EQ(trend.at("series").as_object().size(), 1u);
  ASSERT_EQ(trend.at("series").at("steps.median_us").as_array().size(), 10u) << "the last 10 runs";
  EXPECT_EQ(trend.at("series").at("steps.median_us").as_array()[0].at("commit").as_string(), commits[20]);

  CommandResult unknown = run_perfgate(fmt::format("history trend {} --metric steps.median", db));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("did you mean"), std::string::npos) << unknown.out;
  CommandResult missing = run_perfgate("history trend " + temp_dir() + "/nothing-here.sqlite");
  EXPECT_EQ(missing.exit_code, 3) << missing.out;
  CommandResult unwritable = run_perfgate(fmt::format("history trend {} --json /nonexistent-dir/t.json", db));
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.out;
}

}  // namespace
}  // namespace perfgate::testing
