// A history's stored strings reach the terminal escaped, whatever was recorded (issue #28, item 6);
// a damaged history is never recorded into (issue #55, item 11) nor read (issue 74, item 8).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "history/history_cli_support.h"
#include "history/history_test_support.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

// No escape sequence reaches the terminal, and no line of the output starts a workflow command.
void expect_terminal_safe(const std::string& out) {
  EXPECT_FALSE(contains(out, "\x1b")) << out;
  EXPECT_FALSE(contains(out, "\a")) << out;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    std::string line = out.substr(start, end == std::string::npos ? end : end - start);
    std::size_t first = line.find_first_not_of(" \t");
    EXPECT_FALSE(first != std::string::npos && line.compare(first, 2, "::") == 0) << line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

TEST(HistoryTerminalOutput, StoredStringsAreEscaped) {
  std::string dir = temp_dir(), db = dir + "/h.db";
  const std::string branch = "x\n::error::boom";
  HistoryRun run = sample_run(branch, "GPU\x1b[2J");
  run.labels.commit = "\x1b]0;pwned\a";
  run.labels.labels = {{"k\x1b[31m", "v\r\n::warning::x"}};
  open_history(db, HistoryAccess::Record)->record(run);

  CommandResult list = run_perfgate("history list " + db);
  EXPECT_EQ(list.exit_code, 0) << list.out;
  expect_terminal_safe(list.out);
  // terminal_escape's forms: a line break as \n, ESC as \x1b, BEL as \x07.
  EXPECT_TRUE(contains(list.out, R"(x\n::error::boom)")) << list.out;
  EXPECT_TRUE(contains(list.out, R"(1x GPU\x1b[2J)")) << list.out;
  EXPECT_TRUE(contains(list.out, R"(k\x1b[31m=v\r\n::warning::x)")) << list.out;
  EXPECT_TRUE(contains(list.out, R"(\x1b]0;pw)")) << list.out;  // the commit, cut to 7 bytes

  CommandResult of_branch = run_perfgate(fmt::format("history list {} --branch '{}'", db, branch));
  EXPECT_EQ(of_branch.exit_code, 0) << of_branch.out;
  expect_terminal_safe(of_branch.out);
  EXPECT_TRUE(contains(of_branch.out, R"(x\n::error::boom)")) << of_branch.out;

  CommandResult none = run_perfgate(fmt::format("history list {} --branch '\x1b[1m\n::error::none'", db));
  EXPECT_EQ(none.exit_code, 0) << none.out;
  expect_terminal_safe(none.out);
  EXPECT_TRUE(contains(none.out, R"(no runs of branch \x1b[1m\n::error::none)")) << none.out;

  CommandResult trend = run_perfgate(fmt::format("history trend {} --branch '{}'", db, branch));
  EXPECT_EQ(trend.exit_code, 0) << trend.out;
  expect_terminal_safe(trend.out);
  EXPECT_TRUE(contains(trend.out, R"(branch x\n::error::boom)")) << trend.out;
}

// The root page of `table` in the SQLite file `db`, and the file's page size.
std::pair<std::int64_t, std::int64_t> root_page(const std::string& db, const std::string& table) {
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto one = [&](const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    EXPECT_EQ(sqlite3_step(s), SQLITE_ROW) << sql;
    std::int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
  };
  std::pair<std::int64_t, std::int64_t> out{
      one("SELECT rootpage FROM sqlite_master WHERE name = '" + table + "'"), one("PRAGMA page_size")};
  sqlite3_close(raw);
  return out;
}

// Issue 55, item 11: with a page of the store damaged, history list failed (exit 3, "database disk
// image is malformed") but --record and history import exited 0: the run went into a store that
// cannot be read back. The store is checked (PRAGMA quick_check) before anything is written; the
// file is left as it was.
TEST(HistoryHardening, RecordRefusesDamagedStore) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/h.db", report = dir + "/r.json";
  std::string trace = training_trace_file(dir, steady());
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(run_perfgate(fmt::format("analyze {} -q --history {} --record --json {}", trace, db, report))
                  .exit_code,
              0);
  auto [page, page_size] = root_page(db, "run_metrics");
  ASSERT_GT(page, 1);
  std::string bytes = read_text(db);
  ASSERT_GE(static_cast<std::int64_t>(bytes.size()), page * page_size);
  std::fill_n(bytes.begin() + (page - 1) * page_size, page_size / 2, '\xA5');
  write_text(db, bytes);

  CommandResult record = run_perfgate("analyze " + trace + " -q --history " + db + " --record");
  EXPECT_EQ(record.exit_code, 3) << record.out;
  EXPECT_TRUE(contains(record.out, db + ": the history is damaged (quick_check: ")) << record.out;
  EXPECT_TRUE(contains(record.out, "nothing was recorded; restore it from a copy")) << record.out;
  CommandResult import = run_perfgate("history import " + db + " " + report);
  EXPECT_EQ(import.exit_code, 3) << import.out;
  EXPECT_TRUE(contains(import.out, db + ": the history is damaged")) << import.out;
  EXPECT_EQ(read_text(db), bytes) << "the damaged file is left as it was";
  EXPECT_FALSE(std::filesystem::exists(db + "-wal") && std::filesystem::file_size(db + "-wal") > 0);
}

// Issue 74, item 8: a damaged page of run_kernels, which history list and trend never read, let
// them print results (exit 0), and a gate pooled runs from the file. Every read checks the store
// first (PRAGMA quick_check): each refuses it with exit 3 and reads nothing.
TEST(HistoryHardening, ReadersRefuseADamagedStore) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = dir + "/h.db";
  std::string trace = training_trace_file(dir, steady());
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(run_perfgate(fmt::format("analyze {} -q --history {} --record", trace, db)).exit_code, 0);
  ASSERT_EQ(run_perfgate("history list " + db).exit_code, 0);
  auto [page, page_size] = root_page(db, "run_kernels");
  ASSERT_GT(page, 1);
  std::string bytes = read_text(db);
  ASSERT_GE(static_cast<std::int64_t>(bytes.size()), page * page_size);
  std::fill_n(bytes.begin() + (page - 1) * page_size, page_size / 2, '\xA5');
  write_text(db, bytes);
  for (const std::string& command :
       {"history list " + db, "history trend " + db, "analyze " + trace + " -q --baseline " + db}) {
    CommandResult r = run_perfgate(command);
    EXPECT_EQ(r.exit_code, 3) << command << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, db + ": the history is damaged (quick_check: ")) << command << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "nothing was read; restore it from a copy")) << command << "\n" << r.out;
  }
  EXPECT_EQ(read_text(db), bytes) << "the damaged file is left as it was";
}

}  // namespace
}  // namespace perfgate::testing
