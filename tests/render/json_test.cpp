#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "common/errors.h"
#include "neuron/neuron_fixture.h"
#include "render/json_writer.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

TEST(JsonWriter, EscapesEverythingATraceCanHold) {
  std::string out;
  append_json_string(out, "a\"b\\c\n\t\x01</script>\xff\xc3\xa9");
  EXPECT_EQ(out, R"("a\"b\\c\n\t\u0001<\/script>\ufffdé")");
  boost::system::error_code ec;
  auto v = boost::json::parse(out, ec);
  ASSERT_FALSE(ec);
  EXPECT_EQ(std::string(v.as_string()), std::string("a\"b\\c\n\t\x01</script>\xEF\xBF\xBD\xc3\xa9"));
  // DEL is escaped, a slash only right after '<'; plain runs before, between and after escapes.
  out.clear();
  append_json_string(out, "x/y\x7fz<a/b></c>\"");
  EXPECT_EQ(out, R"("x/y\u007fz<a/b><\/c>\"")");
}

TEST(JsonWriter, NumbersAreShortAndStable) {
  EXPECT_EQ(format_json_number(55.514), "55.514");
  EXPECT_EQ(format_json_number(100.0), "100");
  EXPECT_EQ(format_json_number(1.0 / 3.0), "0.333333");
  EXPECT_EQ(format_json_number(-0.0000001), "0");
  EXPECT_EQ(format_json_number(1623142623460111.25),
            "1623142623460111.2");  // shortest round trip of the double
}

std::string report_of_files(const std::vector<std::string>& paths) {
  LoadedRun run = load_run(paths);
  RuleBook rules = load_rule_book({});
  RunAnalysis analysis = analyse_run(run, rules.knowledge, {});
  ReportModel model = build_report(report_inputs(run.inputs), analysis, rules.rules.sources, {});
  return render_json(model);
}

std::string report_of_file(const std::string& path) {
  return report_of_files({path});
}

std::string report_text(const std::string& trace_json) {
  return report_of_file(write_text(temp_dir() + "/w.json", trace_json));
}

boost::json::object report_for(const std::string& trace_json) {
  return boost::json::parse(report_text(trace_json)).as_object();
}

TEST(JsonReport, CarriesSchemaInputsMetricsStepsAndGpus) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 85000000000, 132);
  t.step(7, 0, 100).step(8, 100, 100).step(9, 200, 100);
  t.launch("k", 10, 20, 30);
  t.launch("k", 110, 120, 30);
  boost::json::object r = report_for(t.json());
  EXPECT_EQ(r.at("schema").as_string(), "perfgate-report/2.7");
  EXPECT_EQ(r.at("inputs").as_array().size(), 1u);
  EXPECT_EQ(r.at("inputs").as_array()[0].at("format").as_string(), "kineto-json");
  const auto& metrics = r.at("metrics").as_object();
  EXPECT_EQ(metrics.size(), metric_catalog().size());
  EXPECT_TRUE(metrics.at("gpu.sm_efficiency_pct").is_null());  // no blocks per SM in this trace
  EXPECT_EQ(metrics.at("steps.count").as_int64(), 2);
  EXPECT_EQ(metrics.at("window.steps_dropped").as_int64(), 1);
  const auto& steps = r.at("steps").as_array();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].at("name").as_string(), "ProfilerStep#7");
  EXPECT_EQ(steps[0].at("number").as_int64(), 7);
  EXPECT_TRUE(steps[0].at("breakdown_us").is_object());
  const auto& worker = r.at("workers").as_array()[0].as_object();
  EXPECT_EQ(worker.at("dropped_steps").as_array()[0].at("name").as_string(), "ProfilerStep#9");
  EXPECT_EQ(worker.at("window").at("step_source").as_string(), "profiler-step");
  const auto& gpu = r.at("gpus").as_array()[0].as_object();
  EXPECT_EQ(gpu.at("name").as_string(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.at("compute_capability").as_string(), "9.0");
  EXPECT_EQ(gpu.at("sm_count").as_int64(), 132);
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Issue #30, item 6: version 1 wrote each GPU three times (the run's "gpus", the worker's "gpus" and
// its "gpus" table) and the system configuration twice (the worker's "system" and its "system"
// table). Version 2 has each once: the run's "gpus", with the table's kernel and busy times, and the
// worker's "system".
TEST(JsonReport, HoldsEachGpuAndTheSystemConfigurationOnce) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 85000000000, 132);
  t.top_level("distributedInfo", R"({"rank": 3, "world_size": 8, "backend": "nccl"})");
  t.step(1, 0, 100).step(2, 100, 100);
  t.launch("k", 10, 20, 30);
  t.launch("k", 110, 120, 30);
  t.memcpy("Memcpy HtoD (Pageable -> Device)", 160, 10, 77);
  std::string text = report_text(t.json());
  boost::json::object r = boost::json::parse(text).as_object();
  EXPECT_EQ(r.at("schema").as_string(), "perfgate-report/2.7");
  EXPECT_EQ(occurrences(text, "NVIDIA H100 80GB HBM3"), 1u) << text;
  EXPECT_EQ(occurrences(text, "\"nccl\""), 1u) << text;
  EXPECT_EQ(occurrences(text, "\"compute_capability\""), 1u) << text;
  ASSERT_EQ(r.at("gpus").as_array().size(), 1u);
  const auto& gpu = r.at("gpus").as_array()[0].as_object();
  EXPECT_EQ(gpu.at("worker").as_string(), "w");
  // Two 30 us kernels; busy adds the 10 us copy.
  EXPECT_DOUBLE_EQ(gpu.at("kernel_us").to_number<double>(), 60);
  EXPECT_DOUBLE_EQ(gpu.at("busy_us").to_number<double>(), 70);
  const auto& worker = r.at("workers").as_array()[0].as_object();
  EXPECT_FALSE(worker.contains("gpus"));
  EXPECT_FALSE(worker.at("tables").as_object().contains("gpus"));
  EXPECT_FALSE(worker.at("tables").as_object().contains("system"));
  EXPECT_TRUE(worker.at("tables").as_object().contains("iterations"));
  const auto& system = worker.at("system").as_object();
  EXPECT_EQ(system.at("rank").as_int64(), 3);
  EXPECT_EQ(system.at("world_size").as_int64(), 8);
  EXPECT_EQ(system.at("distributed_backend").as_string(), "nccl");
}

std::vector<std::string> strings_of(const boost::json::value& array) {
  std::vector<std::string> out;
  for (const auto& v : array.as_array()) out.emplace_back(v.as_string());
  return out;
}

// perfgate-report/2.1: the run's device families, as the readers set them, and each worker's in its
// "system"; a reader of the report needs no neuron.* value to tell a Neuron run.
TEST(JsonReport, StatesTheDeviceFamilyOfTheRunAndOfEachWorker) {
  std::string dir = temp_dir();
  TraceBuilder gpu, host;
  gpu.step(1, 0, 10'000).launch("volta_sgemm_128x64_nn", 100, 1'000, 8'000);
  host.step(1, 0, 10'000).op("aten::add", 100, 1'000);
  std::string gpu_path = write_text(dir + "/gpu.json", gpu.json());
  std::string host_path = write_text(dir + "/host.json", host.json());
  std::string neuron_path = write_text(dir + "/neuron.json", neuron_full_json());
  auto families_of = [](const std::vector<std::string>& paths) {
    boost::json::object r = boost::json::parse(report_of_files(paths)).as_object();
    std::vector<std::string> workers;
    for (const auto& w : r.at("workers").as_array())
      workers.emplace_back(w.at("system").at("family").as_string());
    return std::pair{strings_of(r.at("families")), workers};
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(families_of({gpu_path}), std::pair(Names{"gpu"}, Names{"gpu"}));
  EXPECT_EQ(families_of({host_path}), std::pair(Names{"cpu-only"}, Names{"cpu-only"}));
  EXPECT_EQ(families_of({neuron_path}), std::pair(Names{"neuron"}, Names{"neuron"}));
  // A mixed run: each family once, in the order of the names (gpu, neuron, cpu-only); each worker its own.
  EXPECT_EQ(families_of({neuron_path, host_path, gpu_path}),
            std::pair(Names{"gpu", "neuron", "cpu-only"}, Names{"neuron", "cpu-only", "gpu"}));
  // A report built by hand states none: its families, and its workers', are not known.
  ReportModel by_hand;
  by_hand.workers.emplace_back();
  boost::json::value r = boost::json::parse(render_json(by_hand));
  EXPECT_TRUE(r.at("families").as_array().empty());
  EXPECT_TRUE(r.at("workers").at(0).at("system").at("family").is_null());
}

TEST(JsonReport, IsDeterministic) {
  std::string path = write_text(temp_dir() + "/w.json", TraceBuilder().step(1, 0, 10).op("a", 1, 2).json());
  EXPECT_EQ(report_of_file(path), report_of_file(path));
}

TEST(AtomicWrite, WritesWholeFilesAndLeavesNoTemporaries) {
  std::string dir = temp_dir();
  std::string path = dir + "/report.json";
  write_file_atomically(path, "first");
  write_file_atomically(path, "second");
  EXPECT_EQ(read_text(path), "second");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(write_file_atomically(dir + "/no/such/folder/report.json", "x"), OutputError);
}

// A report built from a run it owns is the same report, and the run's workers hold nothing once it
// is made: the run's tables (ranks, collectives by rank, the job's critical path, its steps) are
// made first, then each worker's section takes its metrics and lets the rest go (issue 78). Two
// ranks of the training run with a collective each step, one past --detailed-workers 1.
TEST(JsonReport, ARunGivenToTheReportIsTheSameReportAndHoldsNothingAfter) {
  std::string dir = temp_dir();
  TrainingRun run;
  run.communication_us = 100;
  for (int rank : {0, 1}) {
    run.rank = rank;
    write_text(fmt::format("{}/rank-{}.json", dir, rank), training_trace(run));
  }
  LoadedRun loaded = load_run({dir});
  RuleBook rules = load_rule_book({});
  AnalysisOptions options;
  options.detailed_workers = 1;
  RunAnalysis kept = analyse_run(loaded, rules.knowledge, options);
  RunAnalysis given = analyse_run(loaded, rules.knowledge, options);
  ASSERT_FALSE(given.workers[0].tables.ops.empty());
  ASSERT_FALSE(given.workers[0].tables.collectives.empty());
  ASSERT_TRUE(std::any_of(given.workers.begin(), given.workers.end(),
                          [](const WorkerAnalysis& w) { return !w.detailed; }));
  std::string expected =
      render_json(build_report(report_inputs(loaded.inputs), kept, rules.rules.sources, options));
  ASSERT_NE(expected.find("\"rank_collectives\""), std::string::npos);
  EXPECT_EQ(
      render_json(build_report(report_inputs(loaded.inputs), std::move(given), rules.rules.sources, options)),
      expected);
  // Moved from, but the function freed each worker whole as its section was made (WorkerList).
  EXPECT_TRUE(given.workers.empty());
}

// Workers whose tables have the same columns share their text (written once, copied); a worker
// whose table of the same name has other columns, or other units, gets its own.
TEST(JsonReport, EachWorkerGetsItsOwnTablesColumns) {
  ReportModel model;
  auto worker = [](std::string name, ReportColumns columns) {
    ReportWorker w;
    w.name = std::move(name);
    w.tables.push_back({"ops", "Ops", "", std::move(columns), {{std::string("a"), 1.5}}});
    return w;
  };
  ReportColumns shared{{"name", "", ""}, {"time", "us", ""}};
  model.workers.push_back(worker("w0", shared));
  model.workers.push_back(worker("w1", shared));
  model.workers.push_back(worker("w2", ReportColumns{{"name", "", ""}, {"time", "ms", ""}}));
  model.workers.push_back(
      worker("w3", ReportColumns{{"name", "", ""}, {"time", "us", ""}, {"n", "count", ""}}));
  model.workers.push_back(worker("w4", ReportColumns{{"name", "", ""}}));
  model.workers.push_back(worker("w5", ReportColumns{{"name", "", ""}, {"time", "us", ""}}));
  boost::json::object r = boost::json::parse(render_json(model)).as_object();
  std::vector<std::string> seen;
  for (const auto& w : r.at("workers").as_array()) {
    std::string columns;
    for (const auto& c : w.at("tables").at("ops").at("columns").as_array())
      columns += std::string(c.at("name").as_string()) + "/" + std::string(c.at("unit").as_string()) + " ";
    seen.push_back(columns);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"name/ time/us ", "name/ time/us ", "name/ time/ms ",
                                            "name/ time/us n/count ", "name/ ", "name/ time/us "}));
}

// A worker past --detailed-workers is one line of the report (a run of 65,536 ranks wrote 1.25 GB,
// 0.80 GB so); a detailed one is indented. Both hold the same members.
TEST(JsonReport, AWorkerPastTheDetailedOnesIsOneLine) {
  ReportModel model;
  for (bool detailed : {true, false}) {
    ReportWorker w;
    w.name = detailed ? "whole" : "summary";
    w.detailed = detailed;
    w.metrics.set(Metric::GpuUtilizationPct, 42.5);
    w.tables.push_back({"ops",
                        "Ops",
                        "",
                        ReportColumns{{"name", "", ""}, {"time", "us", ""}},
                        {{std::string("a"), 1.5}, {std::string("b"), std::int64_t{2}}}});
    model.workers.push_back(std::move(w));
  }
  std::string text = render_json(model);
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  auto line_with = [&](std::string_view what) {
    for (const std::string& line : lines)
      if (line.find(what) != std::string::npos) return line;
    return std::string();
  };
  EXPECT_EQ(line_with("\"name\": \"whole\""), "      \"name\": \"whole\",");
  std::string summary = line_with("\"name\": \"summary\"");
  EXPECT_TRUE(summary.starts_with("    {\"name\": \"summary\", \"input\": \"\", \"detailed\": false, "))
      << summary;
  EXPECT_NE(summary.find("\"gpu.utilization_pct\": 42.5, "), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"rows\": [[\"a\", 1.5], [\"b\", 2]]"), std::string::npos) << summary;
  EXPECT_TRUE(summary.ends_with("\"warnings\": []}")) << summary;
  boost::json::array workers = boost::json::parse(text).as_object().at("workers").as_array();
  boost::json::object whole = workers[0].as_object(), one_line = workers[1].as_object();
  for (boost::json::object* w : {&whole, &one_line}) {
    w->erase("name");
    w->erase("detailed");
  }
  EXPECT_EQ(whole, one_line);
}

// A writer with a sink hands its text over in pieces of about 1 MiB; joined, they are the text the
// writer would have kept (2 MiB of strings: at least two pieces).
TEST(JsonWriter, ASinkGetsTheTextInPiecesThatJoinToTheWhole) {
  auto write = [](JsonWriter& j) {
    j.begin_array();
    for (int i = 0; i < 2048; ++i) j.value(std::string(1024, static_cast<char>('a' + i % 26)));
    j.end_array();
  };
  JsonWriter kept;
  write(kept);
  std::vector<std::size_t> pieces;
  std::string joined;
  JsonWriter streamed(2, [&](std::string_view piece) {
    pieces.push_back(piece.size());
    joined.append(piece);
  });
  write(streamed);
  streamed.flush();
  EXPECT_EQ(joined, kept.str());
  EXPECT_GE(pieces.size(), 2u);
  for (std::size_t i = 0; i + 1 < pieces.size(); ++i) EXPECT_LT(pieces[i], (1u << 20) + 2048) << i;
  EXPECT_TRUE(streamed.str().empty()) << "nothing is kept once flushed";
}

// A file written in pieces is whole; a producer that fails leaves neither the file nor a temporary.
TEST(AtomicWrite, APiecewiseWriteIsWholeAndAFailedOneLeavesNothing) {
  std::string dir = temp_dir();
  std::string path = dir + "/report.json";
  write_file_atomically(path, [](const std::function<void(std::string_view)>& write) {
    write("{\"a\": ");
    write("1}");
  });
  EXPECT_EQ(read_text(path), "{\"a\": 1}");
  std::string failed = dir + "/failed.json";
  EXPECT_THROW(write_file_atomically(failed,
                                     [](const std::function<void(std::string_view)>& write) {
                                       write("{\"half");
                                       throw std::runtime_error("the report could not be made");
                                     }),
               std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(failed));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u) << "no temporary left";
}

}  // namespace
}  // namespace perfgate::testing
