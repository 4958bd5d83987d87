// What a gate draws from a history (the last runs of a branch on the same GPUs, or why none),
// what a history location is, and the labels a run is recorded with.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "common/version.h"
#include "history/history_test_support.h"
#include "load/load.h"
#include "render/render.h"
#include "report/build_report.h"
#include "support/helpers.h"
#include "support/nsys_builder.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

const std::string kA100 = "NVIDIA A100-SXM4-40GB";
const std::string kH100 = "NVIDIA H100 80GB HBM3";

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(HistoryBaselines, TheLastRunsOfTheBranchOnTheSameGpusEachBecomeABaseline) {
  std::string db = temp_dir() + "/h.db";
  auto store = open_history(db, HistoryAccess::Record);
  for (int i = 0; i < 4; ++i) {
    HistoryRun run = sample_run("main", kA100);
    run.labels.commit = fmt::format("{}000000000", i);
    run.data.step_durations_us = {1000.0 + i};
    store->record(run);
  }
  store->record(sample_run("main", kH100));
  store->record(sample_run("feature", kA100));
  HistoryBaselines chosen = history_baselines(*store, "main", {kA100}, 3);
  ASSERT_EQ(chosen.runs.size(), 3u);
  EXPECT_TRUE(chosen.skip_reason.empty());
  EXPECT_FALSE(chosen.warning);
  EXPECT_EQ(chosen.runs[0].info.path, db + "#2 (commit 1000000)");
  EXPECT_EQ(chosen.runs[2].info.path, db + "#4 (commit 3000000)");
  EXPECT_EQ(chosen.runs[0].info.kind, "history");
  EXPECT_EQ(chosen.runs[0].step_durations_us, std::vector<double>{1001});
  EXPECT_EQ(chosen.runs[2].info.gpu_names, std::vector<std::string>{kA100});

  Baseline pooled = combine_baselines(std::move(chosen.runs));
  EXPECT_EQ(pooled.info.runs, 3u);
  EXPECT_EQ(pooled.step_durations_us, (std::vector<double>{1001, 1002, 1003}));
  EXPECT_EQ(pooled.run_steps_us.size(), 3u);
}

// Issue 74, item 8: a history run recorded by another perfgate is named when it is a baseline,
// pooled or alone, as a JSON baseline report of another version is: runs 2 and 3 of 0.0.7 among 4.
TEST(HistoryBaselines, RunsOfAnotherVersionAreNamed) {
  std::string db = temp_dir() + "/h.db";
  auto store = open_history(db, HistoryAccess::Record);
  for (int i = 0; i < 4; ++i) {
    HistoryRun run = sample_run("main", kA100);
    run.labels.commit = fmt::format("{}000000000", i);
    run.data.info.tool_version = i == 1 || i == 2 ? std::string("0.0.7") : std::string(kVersion);
    store->record(run);
  }
  ReportModel report = report_of_json(training_trace(TrainingRun{}), default_book());
  ReportModel pooled = report;
  add_baseline(pooled, combine_baselines(history_baselines(*store, "main", {kA100}, 4).runs), 50);
  std::string want = fmt::format(
      "runs {0}#2 (commit 1000000), {0}#3 (commit 2000000) of the baseline were recorded by perfgate 0.0.7 "
      "(this is {1}): metrics whose definition changed between them differ by more than the run",
      db, kVersion);
  std::vector<std::string> pooled_texts;
  for (const ReportNote& w : pooled.warnings) pooled_texts.push_back(note_text(w.note));
  EXPECT_EQ(std::count(pooled_texts.begin(), pooled_texts.end(), want), 1)
      << fmt::format("{}", fmt::join(pooled_texts, "\n"));
  // The last run alone is of this version: nothing to say.
  ReportModel last = report;
  add_baseline(last, combine_baselines(history_baselines(*store, "main", {kA100}, 1).runs), 50);
  for (const ReportNote& w : last.warnings)
    EXPECT_FALSE(contains(note_text(w.note), "recorded by perfgate")) << note_text(w.note);
}

TEST(HistoryBaselines, AnEmptyHistoryIsSkippedWithItsReason) {
  std::string db = temp_dir() + "/h.db";
  auto store = open_history(db, HistoryAccess::Record);
  HistoryBaselines chosen = history_baselines(*store, "main", {kA100}, 10);
  EXPECT_TRUE(chosen.runs.empty());
  EXPECT_FALSE(chosen.warning);
  EXPECT_EQ(chosen.skip_reason,
            "the history " + db +
                " has no runs yet: the regression rules compare once a run of branch 'main' "
                "is recorded");
}

TEST(HistoryBaselines, RunsOfOtherBranchesOnlyAreNamed) {
  std::string db = temp_dir() + "/h.db";
  auto store = open_history(db, HistoryAccess::Record);
  store->record(sample_run("dev", kA100));
  store->record(sample_run("", kA100));
  HistoryBaselines chosen = history_baselines(*store, "main", {kA100}, 10);
  EXPECT_TRUE(chosen.runs.empty());
  EXPECT_FALSE(chosen.warning);
  EXPECT_TRUE(
      contains(chosen.skip_reason, "has no run of branch 'main' (its latest runs are of: (none), dev)"))
      << chosen.skip_reason;
}

TEST(HistoryBaselines, RunsOnOtherGpusOnlyWarnAndSkip) {
  std::string db = temp_dir() + "/h.db";
  auto store = open_history(db, HistoryAccess::Record);
  store->record(sample_run("main", kH100));
  HistoryBaselines chosen = history_baselines(*store, "main", {kA100}, 10);
  EXPECT_TRUE(chosen.runs.empty());
  ASSERT_TRUE(chosen.warning);
  EXPECT_EQ(chosen.warning->id, NoteId::history_other_gpus);
  EXPECT_EQ(note_text(*chosen.warning),
            "the history " + db + " has runs of branch 'main' only on other GPUs (" + kH100 +
                ") than this run (" + kA100 + "): the regression rules are skipped");
  EXPECT_EQ(chosen.skip_reason, "no run of branch 'main' in " + db + " ran on this run's GPUs (" + kA100 +
                                    "); its runs ran on " + kH100);
}

TEST(HistoryLocation, PostgresUrisNewDbFilesAndHistoriesAreHistories) {
  std::string dir = temp_dir();
  EXPECT_TRUE(is_history_location("postgresql://ci@db.example.com/perf"));
  EXPECT_TRUE(is_history_location("postgres://localhost/perf"));
  EXPECT_TRUE(is_history_location(dir + "/not-yet.db"));
  EXPECT_FALSE(is_history_location(dir + "/not-yet.json"));
  EXPECT_TRUE(is_history_location(write_text(dir + "/empty.db", "")));
  EXPECT_FALSE(is_history_location(dir));
  std::string named_otherwise = dir + "/history.sqlite";
  open_history(named_otherwise, HistoryAccess::Record);
  EXPECT_TRUE(is_history_location(named_otherwise));  // by its tables, not its name
  TrainingRun run;
  std::string report =
      write_text(dir + "/report.json", render_json(report_of_json(training_trace(run), default_book())));
  EXPECT_FALSE(is_history_location(report));
}

// An Nsight Systems export is SQLite too: it is a profile, never a history, and perfgate writes
// nothing into it when it is given as one.
TEST(HistoryLocation, AnNsysExportIsAProfileAndIsNeverWritten) {
  std::string path =
      make_sqlite(temp_dir() + "/profile.db", std::string(kNsysStringIds) + kNsysKernelTable + kNsysMetaData +
                                                  "INSERT INTO StringIds VALUES (1, 'gemm');");
  std::string before = read_text(path);
  EXPECT_FALSE(is_history_location(path));
  EXPECT_EQ(detect_format(path), "nsys-sqlite");
  try {
    open_history(path, HistoryAccess::Record);
    FAIL() << "an nsys export was opened as a history";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), path + ": not a perfgate history: an SQLite database with other tables ("))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "CUPTI_ACTIVITY_KIND_KERNEL")) << e.what();
  }
  EXPECT_EQ(read_text(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST(HistoryLocation, UnreadableStoresAreNamedWithTheCause) {
  std::string dir = temp_dir();
  std::string garbage = write_text(dir + "/garbage.db", std::string(4096, 'x'));
  try {
    open_history(garbage, HistoryAccess::Record);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), garbage + ": not a perfgate history: not an SQLite database");
  }
  try {
    open_history(dir + "/missing.db", HistoryAccess::Read);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/missing.db: no such history file");
  }
}

TEST(HistoryLocation, AnEmptyFileBecomesAHistory) {
  std::string path = write_text(temp_dir() + "/bare.db", "");
  EXPECT_TRUE(open_history(path, HistoryAccess::Read)->runs({}).empty());
  EXPECT_EQ(std::filesystem::file_size(path), 0u) << "reading wrote into the file";
  EXPECT_EQ(open_history(path, HistoryAccess::Record)->record(sample_run("main", kA100)), 1);
  EXPECT_TRUE(is_history_location(path));
}

TEST(HistoryLocation, APasswordIsNeverDescribed) {
  EXPECT_EQ(describe_history_location("postgresql://ci:s3cret@db.example.com:5433/perf?sslmode=require"),
            "postgresql://ci@db.example.com:5433/perf");
  EXPECT_EQ(describe_history_location("postgres://db.example.com/perf?password=s3cret&sslmode=verify-full"),
            "postgres://db.example.com/perf");
  EXPECT_EQ(describe_history_location("postgresql://ci:p%40ss@host"), "postgresql://ci@host");
  EXPECT_EQ(describe_history_location("postgresql:///perf?host=/run/postgresql"), "postgresql:///perf");
  EXPECT_EQ(describe_history_location("perf.db"), "perf.db");
  try {
    open_history("postgresql://ci:s3cret@127.0.0.1:1/perf?connect_timeout=5", HistoryAccess::Read);
    FAIL();
  } catch (const InputError& e) {
    std::string message = e.what();
    EXPECT_TRUE(message.starts_with("postgresql://ci@127.0.0.1:1/perf: cannot connect: ")) << message;
    EXPECT_FALSE(contains(message, "s3cret")) << message;
  }
}

// A fake environment.
EnvironmentReader environment(std::map<std::string, std::string> variables) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(variables));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

using Labels = std::vector<std::pair<std::string, std::string>>;

TEST(HistoryLabels, GithubActions) {
  std::map<std::string, std::string> push = {{"GITHUB_ACTIONS", "true"},   {"GITHUB_REF_NAME", "main"},
                                             {"GITHUB_HEAD_REF", ""},      {"GITHUB_SHA", "abc123"},
                                             {"GITHUB_RUN_ID", "77"},      {"GITHUB_WORKFLOW", "perf"},
                                             {"GITHUB_REPOSITORY", "o/r"}, {"CI_COMMIT_SHA", "ignored"}};
  RunLabels labels = ci_labels(environment(push));
  EXPECT_EQ(labels.branch, "main");
  EXPECT_EQ(labels.commit, "abc123");
  EXPECT_EQ(labels.labels, (Labels{{"ci", "github-actions"},
                                   {"github.repository", "o/r"},
                                   {"github.run_id", "77"},
                                   {"github.workflow", "perf"}}));
  auto pull_request = push;
  pull_request["GITHUB_REF_NAME"] = "12/merge";
  pull_request["GITHUB_HEAD_REF"] = "feature/faster";
  EXPECT_EQ(ci_labels(environment(pull_request)).branch, "feature/faster");
}

TEST(HistoryLabels, GitlabAndJenkins) {
  RunLabels gitlab = ci_labels(environment({{"GITLAB_CI", "true"},
                                            {"CI_COMMIT_REF_NAME", "dev"},
                                            {"CI_COMMIT_SHA", "def456"},
                                            {"CI_PIPELINE_ID", "9"},
                                            {"CI_JOB_ID", "10"},
                                            {"CI_PROJECT_PATH", "g/p"}}));
  EXPECT_EQ(gitlab.branch, "dev");
  EXPECT_EQ(gitlab.commit, "def456");
  EXPECT_EQ(gitlab.labels, (Labels{{"ci", "gitlab-ci"},
                                   {"gitlab.job_id", "10"},
                                   {"gitlab.pipeline_id", "9"},
                                   {"gitlab.project", "g/p"}}));
  RunLabels jenkins = ci_labels(environment({{"JENKINS_URL", "http://ci/"},
                                             {"GIT_BRANCH", "origin/release"},
                                             {"GIT_COMMIT", "fed789"},
                                             {"BUILD_NUMBER", "31"},
                                             {"JOB_NAME", "perf/job"}}));
  EXPECT_EQ(jenkins.branch, "release");
  EXPECT_EQ(jenkins.commit, "fed789");
  EXPECT_EQ(jenkins.labels,
            (Labels{{"ci", "jenkins"}, {"jenkins.build_number", "31"}, {"jenkins.job", "perf/job"}}));
  EXPECT_EQ(
      ci_labels(environment({{"JENKINS_URL", "x"}, {"BRANCH_NAME", "PR-4"}, {"GIT_BRANCH", "origin/x"}}))
          .branch,
      "PR-4");
  RunLabels none = ci_labels(environment({{"GITHUB_SHA", "not in Actions"}}));
  EXPECT_TRUE(none.branch.empty() && none.commit.empty() && none.labels.empty());
}

TEST(HistoryLabels, ExplicitLabelsWin) {
  RunLabels ci{"ci-branch", "ci-commit", {{"ci", "jenkins"}, {"team", "ci"}}};
  RunLabels merged = merge_labels(ci, {"", "mine", {{"team", "vision"}, {"model", "resnet"}}});
  EXPECT_EQ(merged.branch, "ci-branch");
  EXPECT_EQ(merged.commit, "mine");
  EXPECT_EQ(merged.labels, (Labels{{"ci", "jenkins"}, {"model", "resnet"}, {"team", "vision"}}));
  EXPECT_EQ(parse_label("a=b=c"), (std::pair<std::string, std::string>{"a", "b=c"}));
  EXPECT_EQ(parse_label("empty="), (std::pair<std::string, std::string>{"empty", ""}));
  EXPECT_THROW(parse_label("novalue"), ConfigError);
  EXPECT_THROW(parse_label("=x"), ConfigError);
}

}  // namespace
}  // namespace perfgate::testing
