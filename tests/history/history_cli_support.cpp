#include "history/history_cli_support.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <regex>

#include <fmt/format.h>
#include <boost/json/parse.hpp>

namespace perfgate::testing {
namespace {

namespace json = boost::json;

// Every variable perfgate's ci_labels reads.
const char* const kCiVariables[] = {
    "GITHUB_ACTIONS",     "GITHUB_REF_NAME", "GITHUB_HEAD_REF",   "GITHUB_SHA",
    "GITHUB_RUN_ID",      "GITHUB_WORKFLOW", "GITHUB_REPOSITORY", "GITLAB_CI",
    "CI_COMMIT_REF_NAME", "CI_COMMIT_SHA",   "CI_PIPELINE_ID",    "CI_JOB_ID",
    "CI_PROJECT_PATH",    "JENKINS_URL",     "BRANCH_NAME",       "GIT_BRANCH",
    "GIT_COMMIT",         "BUILD_NUMBER",    "JOB_NAME"};

const json::value* finding(const json::value& report, const std::string& id) {
  for (const json::value& f : report.at("findings").as_array())
    if (f.at("id").as_string() == id) return &f;
  return nullptr;
}

}  // namespace

CleanCiEnvironment::CleanCiEnvironment() {
  for (const char* name : kCiVariables) {
    const char* value = std::getenv(name);
    saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
    ::unsetenv(name);
  }
}

CleanCiEnvironment::~CleanCiEnvironment() {
  for (const auto& [name, value] : saved_) {
    if (value)
      ::setenv(name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
}

void CleanCiEnvironment::set(const std::string& name, const std::string& value) {
  if (!saved_.count(name)) {
    const char* old = std::getenv(name.c_str());
    saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
  }
  ::setenv(name.c_str(), value.c_str(), 1);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TrainingRun steady() {
  TrainingRun run;
  run.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  return run;
}

std::string training_trace_file(const std::string& dir, const TrainingRun& run, const std::string& name) {
  return write_text(dir + "/" + name + ".pt.trace.json", training_trace(run));
}

std::string finding_status(const json::value& report, const std::string& id) {
  const json::value* f = finding(report, id);
  return f ? std::string(f->at("status").as_string()) : "(no finding " + id + ")";
}

std::string finding_reason(const json::value& report, const std::string& id) {
  const json::value* f = finding(report, id);
  return f ? std::string(f->at("reason").as_string()) : "(no finding " + id + ")";
}

std::string finding_problem(const json::value& report, const std::string& id) {
  const json::value* f = finding(report, id);
  return f ? std::string(f->at("problem").as_string()) : "(no finding " + id + ")";
}

void expect_a_history_names_what_moved_onto_the_path(const std::string& location, const std::string& dir) {
  TrainingRun base;
  base.extra_us = {0, 70, 30, 90, 10, 50, 80, 20};
  TrainingRun slow = base;
  slow.host_only_us = 2000;
  std::string trace = training_trace_file(dir, base, "path_base");
  for (const char* commit : {"aaaaaaaaaa", "bbbbbbbbbb"}) {
    CommandResult r = run_perfgate(fmt::format(
        "analyze {} -q --history '{}' --record --branch main --commit {}", trace, location, commit));
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  std::string report = dir + "/path_slow.json";
  CommandResult gated =
      run_perfgate(fmt::format("analyze {} -q --baseline '{}' --json {}",
                               training_trace_file(dir, slow, "path_slow"), location, report));
  EXPECT_EQ(gated.exit_code, 1) << gated.out;
  json::value parsed = json::parse(read_text(report));
  EXPECT_EQ(parsed.at("baseline").at("runs").to_number<int>(), 2);
  EXPECT_EQ(finding_status(parsed, "regression.step-time"), "fail");
  std::string problem = finding_problem(parsed, "regression.step-time");
  EXPECT_TRUE(contains(problem, "By name (each run's critical-path ops a step")) << problem;
  EXPECT_TRUE(
      contains(problem, "moved onto the path aten::cpu_preprocess (host) +2.00 ms (0.0 us → 2.00 ms)"))
      << problem;
  EXPECT_FALSE(contains(problem, "keeps no critical-path ops")) << problem;
}

json::array list_runs(const std::string& db, const std::string& extra) {
  CommandResult r = run_perfgate("history list " + db + " --json " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  boost::system::error_code ec;
  json::value parsed = json::parse(r.out, ec);
  EXPECT_FALSE(ec) << r.out;
  if (ec || !parsed.is_array()) return {};
  return parsed.as_array();
}

bool is_utc_time(const std::string& text) {
  return std::regex_match(text, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"));
}

void sqlite_execute(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

std::string sqlite_text(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string text = "(no row)";
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
      text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  return text;
}

}  // namespace perfgate::testing
