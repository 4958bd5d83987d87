// The history from the command line: analyze --history DB --record, a history as --baseline
// (pooled runs, an empty history, other hardware), history list and import, labels from the CI
// environment, exit codes; and 20 perfgate processes recording into one SQLite file at once.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "history/history_cli_support.h"
#include "history/schema.h"
#include "support/helpers.h"
#include "support/nsys_builder.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

TEST(HistoryCli, RecordedRunsBecomeTheBaseline) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/perfgate.db";
  std::string trace = training_trace_file(dir, steady());
  for (const char* commit : {"aaaaaaaaaa", "bbbbbbbbbb"}) {
    CommandResult r = run_perfgate(fmt::format(
        "analyze --verbose {} -q --history {} --record --branch main --commit {}", trace, db, commit));
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  std::string report = dir + "/report.json";
  CommandResult same =
      run_perfgate(fmt::format("analyze --verbose {} --no-color --baseline {} --json {}", trace, db, report));
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_TRUE(
      contains(same.out, fmt::format("Baseline     {0}#1 (commit aaaaaaa), {0}#2 (commit bbbbbbb) (pooled, "
                                     "16 steps)",
                                     db)))
      << same.out;
  json::value parsed = json::parse(read_text(report));
  const json::object& baseline = parsed.at("baseline").as_object();
  EXPECT_EQ(baseline.at("runs").to_number<int>(), 2);
  EXPECT_EQ(finding_status(parsed, "regression.step-time"), "pass");

  // The same history fails a run whose steps are 2 ms (22%) slower.
  TrainingRun slow = steady();
  for (double& e : slow.extra_us) e += 2000;
  std::string slow_report = dir + "/slow.json";
  std::string other_db = dir + "/other.db";  // recorded elsewhere, so the runs below see two
  CommandResult regressed = run_perfgate(fmt::format(
      "analyze --verbose {} --no-color --baseline {} --history {} --record --commit cccccccccc --json {}",
      training_trace_file(dir, slow, "slow"), db, other_db, slow_report));
  EXPECT_EQ(regressed.exit_code, 1) << regressed.out;
  EXPECT_TRUE(contains(regressed.out, "FAIL  regression.step-time")) << regressed.out;
  // The finding shows the metric's recent values: the two recorded runs, then this one.
  EXPECT_TRUE(contains(regressed.out, "recent: ")) << regressed.out;
  EXPECT_TRUE(contains(regressed.out, "(this run)")) << regressed.out;
  json::value slow_parsed = json::parse(read_text(slow_report));
  bool found = false;
  for (const json::value& t : slow_parsed.at("baseline").at("trends").as_array()) {
    if (t.at("metric").as_string() != "steps.median_us") continue;
    found = true;
    const json::array& points = t.at("points").as_array();
    ASSERT_EQ(points.size(), 3u);
    EXPECT_EQ(points[0].at("commit").as_string(), "aaaaaaaaaa");
    EXPECT_EQ(points[1].at("commit").as_string(), "bbbbbbbbbb");
    EXPECT_EQ(points[2].at("commit").as_string(), "cccccccccc");
    EXPECT_TRUE(points[2].at("is_current").as_bool());
    // The current run's value is its median step, 2 ms above the recorded ones.
    EXPECT_NEAR(points[2].at("value").to_number<double>() - points[1].at("value").to_number<double>(), 2000,
                20);
  }
  EXPECT_TRUE(found);

  // --baseline-runs 1: the last run only.
  CommandResult last =
      run_perfgate(fmt::format("analyze --verbose {} --no-color --baseline {} --baseline-runs 1", trace, db));
  EXPECT_TRUE(contains(last.out, fmt::format("Baseline     {}#2 (commit bbbbbbb) (history, 8 steps)", db)))
      << last.out;
}

TEST(HistoryCli, AHistoryBaselineNamesWhatMovedOntoTheCriticalPath) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir();
  expect_a_history_names_what_moved_onto_the_path(dir + "/perfgate.db", dir);
}

TEST(HistoryCli, TheFirstRunOfAProjectPassesAndStartsTheHistory) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/new.db", report = dir + "/first.json";
  std::string trace = training_trace_file(dir, steady());
  std::string command = fmt::format(
      "analyze --verbose {} --no-color --history {} --record --baseline {} --branch main --json {}", trace,
      db, db, report);
  CommandResult first = run_perfgate(command);
  EXPECT_EQ(first.exit_code, 0) << first.out;
  json::value parsed = json::parse(read_text(report));
  EXPECT_EQ(finding_status(parsed, "regression.step-time"), "skipped");
  EXPECT_EQ(finding_reason(parsed, "regression.step-time"),
            "the history " + db +
                " does not exist yet: the regression rules compare once a run of branch 'main' "
                "is recorded");
  EXPECT_TRUE(contains(first.out, "(the history " + db + " does not exist yet")) << first.out;

  CommandResult second = run_perfgate(command);
  EXPECT_EQ(second.exit_code, 0) << second.out;
  EXPECT_TRUE(contains(second.out, fmt::format("Baseline     {}#1 (history, 8 steps)", db))) << second.out;
  EXPECT_EQ(finding_status(json::parse(read_text(report)), "regression.step-time"), "pass");
  EXPECT_EQ(list_runs(db).size(), 2u);
}

TEST(HistoryCli, RunsOnOtherGpusAreNotComparedAndTheReportSaysWhy) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/h.db", report = dir + "/r.json";
  TrainingRun h100 = steady();
  h100.gpu_name = "NVIDIA H100 80GB HBM3";
  ASSERT_EQ(run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record --branch main",
                                     training_trace_file(dir, h100, "h100"), db))
                .exit_code,
            0);
  CommandResult r = run_perfgate(fmt::format("analyze --verbose {} -q --baseline {} --json {}",
                                             training_trace_file(dir, steady()), db, report));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  json::value parsed = json::parse(read_text(report));
  EXPECT_FALSE(parsed.as_object().contains("baseline") && !parsed.at("baseline").is_null());
  EXPECT_EQ(finding_status(parsed, "regression.step-time"), "skipped");
  EXPECT_EQ(finding_reason(parsed, "regression.step-time"),
            "no run of branch 'main' in " + db +
                " ran on this run's GPUs (NVIDIA A100-SXM4-40GB); its runs ran on NVIDIA H100 80GB HBM3");
  bool warned = false;
  for (const json::value& w : parsed.at("warnings").as_array())
    warned =
        warned || std::string(w.as_string()) == "the history " + db +
                                                    " has runs of branch 'main' only on other GPUs (NVIDIA "
                                                    "H100 80GB HBM3) than this run (NVIDIA A100-SXM4-40GB): "
                                                    "the regression rules are skipped";
  EXPECT_TRUE(warned) << json::serialize(parsed.at("warnings"));
}

TEST(HistoryCli, ListShowsRunsWithLabelsAndGpus) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/h.db";
  TrainingRun two_gpus = steady();
  two_gpus.data_parallel = true;
  std::string trace = training_trace_file(dir, two_gpus);
  ASSERT_EQ(
      run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record --branch main --commit c1 "
                               "--label team=vision --label model=resnet",
                               trace, db))
          .exit_code,
      0);
  ASSERT_EQ(run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record --branch dev", trace, db))
                .exit_code,
            0);
  ASSERT_EQ(
      run_perfgate(
          fmt::format("analyze --verbose {} -q --history {} --record --branch main --commit c3", trace, db))
          .exit_code,
      0);

  json::array runs = list_runs(db);
  ASSERT_EQ(runs.size(), 3u);
  const json::object& first = runs[0].as_object();
  EXPECT_EQ(first.at("id").to_number<int>(), 1);
  EXPECT_EQ(first.at("branch").as_string(), "main");
  EXPECT_EQ(first.at("commit").as_string(), "c1");
  EXPECT_EQ(json::serialize(first.at("labels")), R"({"model":"resnet","team":"vision"})");
  EXPECT_EQ(json::serialize(first.at("gpus")), R"([{"name":"NVIDIA A100-SXM4-40GB","count":2}])");
  EXPECT_TRUE(is_utc_time(std::string(first.at("time").as_string()))) << first.at("time");
  EXPECT_EQ(runs[1].at("branch").as_string(), "dev");
  EXPECT_EQ(json::serialize(runs[1].at("labels")), "{}");

  json::array main_last = list_runs(db, "--branch main --last 1");
  ASSERT_EQ(main_last.size(), 1u);
  EXPECT_EQ(main_last[0].at("id").to_number<int>(), 3);

  CommandResult table = run_perfgate("history list " + db);
  EXPECT_EQ(table.exit_code, 0) << table.out;
  EXPECT_TRUE(contains(table.out, "id  time (UTC)")) << table.out;
  EXPECT_TRUE(contains(table.out, "commit   Median step  GPUs")) << "the metric's catalog label\n"
                                                                 << table.out;
  EXPECT_TRUE(contains(table.out, "2x NVIDIA A100-SXM4-40GB  model=resnet team=vision")) << table.out;
}

TEST(HistoryCli, LabelsComeFromTheCiEnvironmentUnlessGiven) {
  CleanCiEnvironment clean;
  clean.set("GITHUB_ACTIONS", "true");
  clean.set("GITHUB_REF_NAME", "main");
  clean.set("GITHUB_SHA", "0123456789abcdef");
  clean.set("GITHUB_RUN_ID", "99");
  std::string dir = temp_dir(), db = dir + "/h.db";
  std::string trace = training_trace_file(dir, steady());
  ASSERT_EQ(run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record", trace, db)).exit_code,
            0);
  ASSERT_EQ(
      run_perfgate(
          fmt::format("analyze --verbose {} -q --history {} --record --branch mine --label github.run_id=1",
                      trace, db))
          .exit_code,
      0);
  json::array runs = list_runs(db);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("branch").as_string(), "main");
  EXPECT_EQ(runs[0].at("commit").as_string(), "0123456789abcdef");
  EXPECT_EQ(json::serialize(runs[0].at("labels")), R"({"ci":"github-actions","github.run_id":"99"})");
  EXPECT_EQ(runs[1].at("branch").as_string(), "mine");
  EXPECT_EQ(runs[1].at("commit").as_string(), "0123456789abcdef");
  EXPECT_EQ(json::serialize(runs[1].at("labels")), R"({"ci":"github-actions","github.run_id":"1"})");
}

TEST(HistoryCli, ImportAddsJsonReportsOfAFolder) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), reports = dir + "/reports", db = dir + "/h.db";
  std::filesystem::create_directories(reports + "/nested");
  std::string trace = training_trace_file(dir, steady());
  for (const char* name : {"/a.json", "/nested/b.json", "/c.json"})
    ASSERT_EQ(
        run_perfgate(fmt::format("analyze --verbose {} -q --json {}{}", trace, reports, name)).exit_code, 0);
  write_text(reports + "/notes.txt", "not a report");
  CommandResult imported =
      run_perfgate(fmt::format("history import {} {} --branch main --label source=import", db, reports));
  EXPECT_EQ(imported.exit_code, 0) << imported.out;
  EXPECT_TRUE(contains(imported.out, db + ": imported 3 runs (ids 1 to 3)")) << imported.out;
  json::array runs = list_runs(db);
  ASSERT_EQ(runs.size(), 3u);
  for (const json::value& run : runs) {
    EXPECT_EQ(run.at("branch").as_string(), "main");
    EXPECT_EQ(json::serialize(run.at("labels")), R"({"source":"import"})");
  }
  CommandResult gate = run_perfgate(fmt::format("analyze --verbose {} --no-color --baseline {}", trace, db));
  EXPECT_TRUE(contains(gate.out, "(pooled, 24 steps)")) << gate.out;

  // A file that is not a report records nothing.
  CommandResult bad =
      run_perfgate(fmt::format("history import {} {}/a.json {}/notes.txt", db, reports, reports));
  EXPECT_EQ(bad.exit_code, 3) << bad.out;
  EXPECT_TRUE(contains(bad.out, reports + "/notes.txt: not a perfgate JSON report")) << bad.out;
  EXPECT_EQ(list_runs(db).size(), 3u);
}

TEST(HistoryCli, UsageAndStoreErrorsHaveTheirExitCodes) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/h.db", report = dir + "/r.json";
  std::string trace = training_trace_file(dir, steady());
  EXPECT_EQ(run_perfgate("analyze --verbose " + trace + " --record").exit_code, 2);
  EXPECT_EQ(run_perfgate("analyze --verbose " + trace + " --history " + db).exit_code, 2);
  EXPECT_EQ(run_perfgate("analyze --verbose " + trace + " --branch main").exit_code, 2);
  CommandResult label =
      run_perfgate("analyze --verbose " + trace + " --history " + db + " --record --label nokey");
  EXPECT_EQ(label.exit_code, 2);
  EXPECT_TRUE(contains(label.out, "--label 'nokey': write it as KEY=VALUE")) << label.out;
  EXPECT_FALSE(std::filesystem::exists(db));
  EXPECT_EQ(run_perfgate("history").exit_code, 2);
  EXPECT_EQ(run_perfgate("history trend").exit_code, 2);
  CommandResult missing = run_perfgate("history list " + dir + "/missing.db");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(contains(missing.out, dir + "/missing.db: no such history file")) << missing.out;

  // A store of a newer perfgate: refused as a baseline, and as a place to record (the outputs
  // are written all the same).
  ASSERT_EQ(run_perfgate("analyze --verbose " + trace + " -q --history " + db + " --record").exit_code, 0);
  sqlite_execute(db, "INSERT INTO schema_version VALUES (99, 'future', 'then')");
  CommandResult as_baseline = run_perfgate("analyze --verbose " + trace + " -q --baseline " + db);
  EXPECT_EQ(as_baseline.exit_code, 3);
  EXPECT_TRUE(contains(as_baseline.out,
                       fmt::format("{}: written by a newer perfgate (schema 99, this one reads up to {})", db,
                                   history::history_migrations().back().version)))
      << as_baseline.out;
  CommandResult record =
      run_perfgate("analyze --verbose " + trace + " -q --history " + db + " --record --json " + report);
  EXPECT_EQ(record.exit_code, 3);
  EXPECT_TRUE(
      contains(record.out, "perfgate: cannot record the run: " + db + ": written by a newer perfgate"))
      << record.out;
  EXPECT_TRUE(std::filesystem::exists(report));

  // A password never reaches the output.
  CommandResult unreachable = run_perfgate(
      "analyze --verbose " + trace + " -q --history 'postgresql://ci:s3cret@127.0.0.1:1/perf' --record");
  EXPECT_EQ(unreachable.exit_code, 3);
  EXPECT_TRUE(contains(unreachable.out, "postgresql://ci@127.0.0.1:1/perf: cannot connect"))
      << unreachable.out;
  EXPECT_FALSE(contains(unreachable.out, "s3cret")) << unreachable.out;
}

// `perfgate ARGS`, killed after `seconds` (exit code 124 then): for a run that must not wait.
CommandResult run_perfgate_within(int seconds, const std::string& args) {
  std::string command = fmt::format("timeout -k 2 {} {} {} 2>&1", seconds, PERFGATE_BINARY, args);
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> chunk{};
  for (std::size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), pipe)) > 0;)
    result.out.append(chunk.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Issue 55, item 3: every path is looked at before it is opened; SQLite's open of a FIFO with no
// writer waited for ever (history list and trend), and --record or import said "disk I/O error".
TEST(HistoryCli, FifoIsRefusedNotWaitedOn) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), fifo = dir + "/h.db", report = dir + "/r.json";
  std::string trace = training_trace_file(dir, steady());
  ASSERT_EQ(run_perfgate("analyze --verbose " + trace + " -q --json " + report).exit_code, 0);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (std::string args :
       {"history list " + fifo, "history trend " + fifo, "history import " + fifo + " " + report,
        "analyze --verbose " + trace + " -q --baseline " + fifo,
        "analyze --verbose " + trace + " -q --history " + fifo + " --record"}) {
    CommandResult r = run_perfgate_within(20, args);
    EXPECT_EQ(r.exit_code, 3) << args << ": " << r.out;
    EXPECT_TRUE(contains(r.out, fifo + ": not a regular file")) << args << ": " << r.out;
  }
  CommandResult rules = run_perfgate_within(20, "analyze --verbose " + trace + " -q --rules " + fifo);
  EXPECT_EQ(rules.exit_code, 2) << rules.out;
  EXPECT_TRUE(contains(rules.out, fifo + ": error: cannot read rule file: not a regular file")) << rules.out;
}

// An Nsight Systems export given as --history is refused, and still loads as a profile.
// Issue 29, item 5: a run without GPU work found no run "on its GPUs" in a history of GPU runs, so
// every regression rule was skipped and the gate passed. It is compared with the branch's latest
// hardware, and fails because its GPU work vanished.
TEST(HistoryCli, ARunWhoseGpuWorkVanishedFailsAgainstTheHistory) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/perfgate.db";
  std::string trace = training_trace_file(dir, steady());
  for (const char* commit : {"aaaaaaaaaa", "bbbbbbbbbb"})
    ASSERT_EQ(
        run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record --branch main --commit {}",
                                 trace, db, commit))
            .exit_code,
        0);
  TraceBuilder cpu_only;
  for (int i = 0; i < 8; ++i) cpu_only.step(i + 1, 9000.0 * i, 9000).op("aten::mm", 9000.0 * i + 10, 8000);
  std::string cpu_trace = cpu_only.write(dir + "/cpu.json");
  std::string report = dir + "/report.json";
  CommandResult r = run_perfgate(
      fmt::format("analyze --verbose {} --no-color --baseline {} --json {}", cpu_trace, db, report));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  json::value parsed = json::parse(read_text(report));
  EXPECT_EQ(finding_status(parsed, "regression.gpu-work-vanished"), "fail");
  EXPECT_EQ(parsed.at("baseline").at("runs").to_number<int>(), 2);
  EXPECT_TRUE(
      contains(r.out, "this run recorded no GPU work; the history " + db +
                          " has runs of branch 'main' on GPUs (NVIDIA A100-SXM4-40GB): it is compared "
                          "with those"))
      << r.out;
}

TEST(HistoryCli, AnNsysExportIsNeverTakenForAHistory) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir();
  std::string trace = training_trace_file(dir, steady());
  // One kernel: an export with no activity at all is an input error (issue 29).
  std::string export_path = make_sqlite(
      dir + "/profile.sqlite",
      std::string(kNsysStringIds) + kNsysKernelTable +
          "INSERT INTO StringIds VALUES (2, 'gemm_kernel');"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, globalPid, "
          "demangledName, shortName) VALUES (0, 1000, 0, 7, 5, 167772160, 2, 2);");
  CommandResult r = run_perfgate("analyze --verbose " + trace + " -q --history " + export_path + " --record");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.out, export_path + ": not a perfgate history: an SQLite database with other tables"))
      << r.out;
  std::string report = dir + "/report.json";
  CommandResult as_baseline =
      run_perfgate("analyze --verbose " + trace + " -q --baseline " + export_path + " --json " + report);
  EXPECT_EQ(as_baseline.exit_code, 0) << as_baseline.out;
  EXPECT_EQ(json::parse(read_text(report)).at("baseline").at("kind").as_string(), "profile");
}

// The issue's test: 20 CI jobs recording into one SQLite file at once lose nothing.
TEST(HistoryCli, TwentyConcurrentWritersIntoSqliteLoseNothing) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/shared.db";
  std::string trace = training_trace_file(dir, steady());
  std::vector<std::string> commands;
  for (int i = 0; i < 20; ++i)
    commands.push_back(fmt::format(
        "analyze --verbose {} -q --history {} --record --branch main --commit job{}", trace, db, i));
  for (const CommandResult& r : run_perfgate_all(commands)) EXPECT_EQ(r.exit_code, 0) << r.out;

  json::array runs = list_runs(db);
  ASSERT_EQ(runs.size(), 20u);
  std::set<std::string> commits;
  std::set<std::int64_t> ids;
  for (const json::value& run : runs) {
    commits.insert(std::string(run.at("commit").as_string()));
    ids.insert(run.at("id").to_number<std::int64_t>());
  }
  EXPECT_EQ(commits.size(), 20u);
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_EQ(sqlite_text(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(sqlite_text(db, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(sqlite_text(db, "SELECT COUNT(*) FROM run_steps"), "160");  // 8 window steps each
  EXPECT_EQ(sqlite_text(db, "SELECT COUNT(DISTINCT run_id) FROM run_metrics"), "20");
}

}  // namespace
}  // namespace perfgate::testing
