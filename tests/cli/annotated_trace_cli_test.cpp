// Issue 94, item 5: perfgate analyze --annotated-trace, the timeline handed to Perfetto. The file is
// read back by perfgate's own Kineto reader (the same kernels and the same critical path as the
// input), its tracks hold known answers on a built trace, its bound and its link from the HTML page
// are checked. The format's schema and hostile names: tests/render/annotated_trace_schema_test.py.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

std::string example() {
  return std::string(test_paths::source_dir()) + "/examples/small_training.pt.trace.json.gz";
}

json::object parse_file(const std::string& path) {
  return json::parse(read_text(path)).as_object();
}

// A worker's table of the JSON report, its rows as written.
const json::array& rows(const json::object& report, const char* table) {
  return report.at("workers").at(0).at("tables").at(table).at("rows").as_array();
}

std::vector<std::string> sorted_rows(const json::object& report, const char* table) {
  std::vector<std::string> out;
  for (const json::value& row : rows(report, table)) out.push_back(json::serialize(row));
  std::sort(out.begin(), out.end());
  return out;
}

// Analyses `trace` (with `args`) into a JSON report and an annotated trace; returns both paths.
std::pair<std::string, std::string> annotate(const std::string& trace, const std::string& args) {
  std::string dir = temp_dir();
  std::string report = dir + "/report.json", annotated = dir + "/annotated.trace.json";
  CommandResult r = run_perfgate(fmt::format(
      "analyze -q --fail-on never {} --json {} --annotated-trace {} {}", trace, report, annotated, args));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return {report, annotated};
}

json::object reanalysed(const std::string& annotated) {
  std::string out = temp_dir() + "/again.json";
  CommandResult r = run_perfgate(fmt::format("analyze -q --fail-on never {} --json {}", annotated, out));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return parse_file(out);
}

// The input and the annotated trace of every event give the same kernels, ops, steps and critical
// path, read by the same reader.
void expect_read_back(const std::string& trace) {
  auto [report_path, annotated] = annotate(trace, "--annotated-trace-steps 0");
  json::object first = parse_file(report_path), again = reanalysed(annotated);
  for (const char* table : {"kernels", "ops", "iterations", "critical_path"})
    EXPECT_EQ(rows(first, table), rows(again, table)) << table;
  // The ops on the paths: the same rows; those of equal time are in the order their names were first
  // read (interned), which follows the order of the file's events.
  EXPECT_EQ(sorted_rows(first, "critical_path_ops"), sorted_rows(again, "critical_path_ops"));
  for (const char* metric :
       {"kernels.count", "steps.mean_us", "critical_path.length_us", "gpu.utilization_pct"})
    EXPECT_EQ(first.at("metrics").at(metric), again.at("metrics").at(metric)) << metric;
}

TEST(AnnotatedTraceCli, TheExampleReadsBackWithTheSameKernelsAndPath) {
  expect_read_back(example());
}

TEST(AnnotatedTraceCli, ASharedTraceReadsBackWithTheSamePath) {
  std::string trace = shared_trace("a100_80g_5steps_rank0.json.gz");
  if (trace.empty()) GTEST_SKIP() << "the shared traces are not here";
  expect_read_back(trace);
}

// By default the first 3 window steps: read back, they are those steps, with the same paths.
TEST(AnnotatedTraceCli, TheDefaultHoldsTheFirstThreeStepsAndTheirPaths) {
  auto [report_path, annotated] = annotate(example(), "");
  json::object first = parse_file(report_path), again = reanalysed(annotated);
  const json::array& all = rows(first, "critical_path");
  const json::array& three = rows(again, "critical_path");
  ASSERT_GT(all.size(), 3u);
  ASSERT_EQ(three.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(all[i], three[i]) << i;
}

// One step, ProfilerStep#1 [0, 100] us: aten::mm [10, 30] launches (cudaLaunchKernel [12, 13]) gemm,
// which runs [20, 80] on stream 7 of an idle GPU. The path: aten::mm from its start to the launch
// (10 -> 12, cpu_bound), the launch delay (12 -> 20, its kernel's), the kernel (20 -> 80,
// gpu_compute_bound): 2 + 8 + 60 = 70 us; the op's end (30) is on a shorter path.
std::string one_step_trace(const std::string& dir) {
  TraceBuilder t;
  t.step(1, 0, 100);
  t.op("aten::mm", 10, 20, 7);
  t.runtime("cudaLaunchKernel", 12, 1, 1, 7);
  t.kernel("gemm", 20, 60, 1);
  return t.write(dir + "/one_step.json");
}

TEST(AnnotatedTraceCli, TheStepsPathAndFlowsHoldKnownAnswers) {
  auto [report_path, annotated] = annotate(one_step_trace(temp_dir()), "");
  json::object trace = parse_file(annotated);
  double on_path = 0;
  std::map<std::string, std::pair<double, double>> path;  // name -> (ts, dur) on the path track
  std::map<std::uint64_t, int> flows;                     // id -> starts - finishes
  int steps = 0, flow_events = 0;
  for (const json::value& v : trace.at("traceEvents").as_array()) {
    const json::object& e = v.as_object();
    std::string cat = e.contains("cat") ? std::string(e.at("cat").as_string()) : "";
    if (cat == "perfgate.step") {
      ++steps;
      EXPECT_EQ(e.at("name"), "ProfilerStep#1");
      EXPECT_DOUBLE_EQ(e.at("args").at("critical_path_us").to_number<double>(), 70);
    }
    if (cat == "perfgate.critical_path" && e.at("ph") == "X") {
      double ts = e.at("ts").to_number<double>(), dur = e.at("dur").to_number<double>();
      on_path += dur;
      path[std::string(e.at("name").as_string())] = {ts, dur};
    }
    if (cat == "perfgate.critical_path" && e.at("ph") != "X") {
      ++flow_events;
      flows[e.at("id").to_number<std::uint64_t>()] += e.at("ph") == "s" ? 1 : -1;
    }
  }
  EXPECT_EQ(steps, 1);
  EXPECT_DOUBLE_EQ(on_path, 70);
  ASSERT_TRUE(path.contains("gemm"));
  EXPECT_DOUBLE_EQ(path["gemm"].first + path["gemm"].second, 80);  // the path ends with the kernel
  ASSERT_TRUE(path.contains("aten::mm"));
  EXPECT_DOUBLE_EQ(path["aten::mm"].first, 10);
  // Every arrow has a start and a finish: aten::mm -> gemm at least.
  EXPECT_GE(flow_events, 2);
  for (const auto& [id, balance] : flows) EXPECT_EQ(balance, 0) << id;
  // The report's critical path of the step is the same 70 us.
  json::object report = parse_file(report_path);
  EXPECT_DOUBLE_EQ(report.at("metrics").at("critical_path.length_us").to_number<double>(), 70);
}

// Five steps of 50 us, 100 us apart, each a step range holding aten::mm, whose launch runs gemm:
// 4 records a step, each step's within its 50 us.
std::string five_steps(const std::string& dir) {
  TraceBuilder t;
  for (int step = 1; step <= 5; ++step) {
    double at = 100.0 * (step - 1);
    t.step(step, at, 50).op("aten::mm", at + 5, 20, step);
    t.launch("gemm", at + 10, at + 12, 30, step);
  }
  return t.write(dir + "/five.json");
}

int step_slices(const std::string& annotated) {
  int n = 0;
  json::object trace = parse_file(annotated);
  for (const json::value& v : trace.at("traceEvents").as_array())
    n += v.as_object().contains("cat") && v.at("cat") == "perfgate.step";
  return n;
}

TEST(AnnotatedTraceCli, TheEventBoundTakesFewerStepsAndSaysSo) {
  std::string trace = five_steps(temp_dir());
  std::string dir = temp_dir();
  EXPECT_EQ(step_slices(annotate(trace, "").second), 3);  // the first 3 of 5
  EXPECT_EQ(step_slices(annotate(trace, "--annotated-trace-steps 0").second), 5);
  // 9 events hold the first two steps' 8 records, not the third's 4 more.
  std::string out = dir + "/bounded.trace.json";
  CommandResult r = run_perfgate(fmt::format(
      "analyze -q --fail-on never {} --annotated-trace {} --annotated-trace-max-events 9", trace, out));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(step_slices(out), 2);
  EXPECT_NE(r.out.find("2 of 3 steps"), std::string::npos) << r.out;
  json::object bounded = parse_file(out);
  EXPECT_EQ(bounded.at("otherData").at("events").to_number<int>(), 8);
  EXPECT_EQ(bounded.at("otherData").at("left_out").as_array().size(), 1u);
}

TEST(AnnotatedTraceCli, ThePageLinksTheTraceAndOffersPerfetto) {
  std::string dir = temp_dir();
  std::filesystem::create_directories(dir + "/pages");
  std::filesystem::create_directories(dir + "/traces");
  CommandResult r = run_perfgate(fmt::format(
      "analyze -q --fail-on never {} --html {}/pages/r.html --annotated-trace {}/traces/r.trace.json",
      example(), dir, dir));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string page = read_text(dir + "/pages/r.html");
  EXPECT_NE(page.find("href=\"../traces/r.trace.json\" download"), std::string::npos);
  EXPECT_NE(page.find("id=\"perfgate-open-perfetto\" data-trace=\"../traces/r.trace.json\""),
            std::string::npos);
  EXPECT_NE(page.find("ui.perfetto.dev"), std::string::npos);
  EXPECT_NE(page.find("postMessage"), std::string::npos);  // the button's script
  // Without the trace, no section.
  CommandResult plain =
      run_perfgate(fmt::format("analyze -q --fail-on never {} --html {}/plain.html", example(), dir));
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_EQ(read_text(dir + "/plain.html").find("id=\"perfetto\""), std::string::npos);
}

TEST(AnnotatedTraceCli, ItNeverOverwritesAnInputNorGoesWithAPartial) {
  std::string dir = temp_dir();
  std::string trace = five_steps(dir);
  CommandResult over = run_perfgate(fmt::format("analyze -q {} --annotated-trace {}", trace, trace));
  EXPECT_EQ(over.exit_code, 2) << over.out;
  EXPECT_NE(over.out.find("--annotated-trace"), std::string::npos) << over.out;
  CommandResult partial = run_perfgate(
      fmt::format("analyze -q {} --partial {}/p.pgp --annotated-trace {}/t.json", trace, dir, dir));
  EXPECT_EQ(partial.exit_code, 2) << partial.out;
}

}  // namespace
}  // namespace perfgate::testing
