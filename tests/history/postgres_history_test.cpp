// The history on a PostgreSQL server from the command line: a throw-away server
// (tests/support/postgres_server.h) takes the runs of analyze --record, gives them back as the
// baseline and to history list, and keeps every run of 20 perfgate processes recording at once.
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "history/history_cli_support.h"
#include "history/history_test_support.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

TEST(PostgresHistoryCli, RecordedRunsBecomeTheBaseline) {
  CleanCiEnvironment clean;
  std::string uri = fresh_history("postgresql", "");
  PERFGATE_SKIP_WITHOUT_POSTGRES(uri);
  std::string dir = temp_dir();
  std::string trace = training_trace_file(dir, steady());
  for (const char* commit : {"aaaaaaaaaa", "bbbbbbbbbb"})
    ASSERT_EQ(
        run_perfgate(fmt::format("analyze --verbose {} -q --history '{}' --record --branch main --commit {} "
                                 "--label runner=pg",
                                 trace, uri, commit))
            .exit_code,
        0);
  CommandResult same =
      run_perfgate(fmt::format("analyze --verbose {} --no-color --baseline '{}'", trace, uri));
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_TRUE(
      contains(same.out, fmt::format("Baseline     {0}#1 (commit aaaaaaa), {0}#2 (commit bbbbbbb) (pooled, "
                                     "16 steps)",
                                     uri)))
      << same.out;
  TrainingRun slow = steady();
  for (double& e : slow.extra_us) e += 2000;
  EXPECT_EQ(run_perfgate(fmt::format("analyze --verbose {} -q --baseline '{}'",
                                     training_trace_file(dir, slow, "slow"), uri))
                .exit_code,
            1);

  json::array runs = list_runs("'" + uri + "'");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].at("commit").as_string(), "bbbbbbbbbb");
  EXPECT_EQ(json::serialize(runs[1].at("labels")), R"({"runner":"pg"})");
  EXPECT_EQ(json::serialize(runs[1].at("gpus")), R"([{"name":"NVIDIA A100-SXM4-40GB","count":1}])");
}

TEST(PostgresHistoryCli, AHistoryBaselineNamesWhatMovedOntoTheCriticalPath) {
  CleanCiEnvironment clean;
  std::string uri = fresh_history("postgresql", "");
  PERFGATE_SKIP_WITHOUT_POSTGRES(uri);
  expect_a_history_names_what_moved_onto_the_path(uri, temp_dir());
}

// The issue's test, against PostgreSQL: 20 CI jobs recording at once lose nothing.
TEST(PostgresHistoryCli, TwentyConcurrentWritersLoseNothing) {
  CleanCiEnvironment clean;
  std::string uri = fresh_history("postgresql", "");
  PERFGATE_SKIP_WITHOUT_POSTGRES(uri);
  std::string trace = training_trace_file(temp_dir(), steady());
  std::vector<std::string> commands;
  for (int i = 0; i < 20; ++i)
    commands.push_back(fmt::format(
        "analyze --verbose {} -q --history '{}' --record --branch main --commit job{}", trace, uri, i));
  // Every process finds an empty database: they race to create the schema, too.
  for (const CommandResult& r : run_perfgate_all(commands)) EXPECT_EQ(r.exit_code, 0) << r.out;

  auto store = open_history(uri, HistoryAccess::Read);
  std::vector<HistoryRun> runs = store->runs({});
  ASSERT_EQ(runs.size(), 20u);
  std::set<std::string> commits;
  for (const HistoryRun& run : runs) {
    commits.insert(run.labels.commit);
    EXPECT_EQ(run.data.step_durations_us.size(), 8u) << run.id;
    EXPECT_FALSE(run.data.ops.empty()) << run.id;
    EXPECT_FALSE(run.data.kernels.empty()) << run.id;
  }
  EXPECT_EQ(commits.size(), 20u);
  EXPECT_EQ(runs.front().id, 1);
  EXPECT_EQ(runs.back().id, 20);
}

// A role that may only SELECT reads the history as a gate does, on an empty database (the
// regression rules skipped, as docs/history.md promises) and on a populated one, and writes
// nothing: reading opens read-only and never migrates (issue #28, item 5).
TEST(PostgresHistoryCli, ASelectOnlyRoleReadsAndNeverWrites) {
  CleanCiEnvironment clean;
  std::string owner = fresh_history("postgresql", "");
  PERFGATE_SKIP_WITHOUT_POSTGRES(owner);
  PostgresServer& server = PostgresServer::shared();
  std::string name = owner.substr(owner.rfind('/') + 1), role = "reader_" + name;
  server.run_sql(name, fmt::format("CREATE ROLE {0} LOGIN; REVOKE CREATE ON SCHEMA public FROM PUBLIC; "
                                   "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {0}",
                                   role));
  std::string reader = server.uri_as(role, name);
  std::string trace = training_trace_file(temp_dir(), steady());

  CommandResult empty =
      run_perfgate(fmt::format("analyze --verbose {} --no-color --baseline '{}'", trace, reader));
  EXPECT_EQ(empty.exit_code, 0) << empty.out;
  EXPECT_TRUE(contains(empty.out, "has no runs yet")) << empty.out;
  CommandResult none = run_perfgate(fmt::format("history list '{}'", reader));
  EXPECT_EQ(none.exit_code, 0) << none.out;
  EXPECT_EQ(none.out, reader + ": no runs\n");

  ASSERT_EQ(run_perfgate(
                fmt::format("analyze --verbose {} -q --history '{}' --record --branch main --commit aaaaaaa",
                            trace, owner))
                .exit_code,
            0);
  CommandResult gate =
      run_perfgate(fmt::format("analyze --verbose {} --no-color --baseline '{}'", trace, reader));
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_TRUE(contains(gate.out, "Baseline     " + reader + "#1 (commit aaaaaaa)")) << gate.out;
  EXPECT_EQ(list_runs("'" + reader + "'").size(), 1u);
  CommandResult record =
      run_perfgate(fmt::format("analyze --verbose {} -q --history '{}' --record", trace, reader));
  EXPECT_EQ(record.exit_code, 3) << record.out;
  EXPECT_TRUE(contains(record.out, "permission denied")) << record.out;
}

}  // namespace
}  // namespace perfgate::testing
