// A history's stored strings reach the terminal escaped, whatever was recorded (issue #28, item 6).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "history/history_cli_support.h"
#include "history/history_test_support.h"
#include "support/helpers.h"

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

}  // namespace
}  // namespace perfgate::testing
