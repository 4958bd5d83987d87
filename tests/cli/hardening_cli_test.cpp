// Issue 13 (hardening): hostile rule files, outputs and inputs through the perfgate binary.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>

#include <filesystem>
#include <string>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string flat_sum(int terms) {
  std::string text = "1";
  for (int i = 1; i < terms; ++i) text += "+1";
  return text;
}

std::string rule_with_value(const std::string& value) {
  return "rules:\n  - id: x.deep\n    title: deep\n    value: \"" + value + "\"\n    warn: 1\n";
}

// A stack overflow used to kill every command that read these expressions.
TEST(Hardening, DeepAndLongExpressionsAreRuleFileErrors) {
  std::string trace = TraceBuilder().op("a", 1, 2).write(temp_dir() + "/t.json");
  std::string deep = std::string(10000, '(') + "1" + std::string(10000, ')');
  std::string rules = write_text(temp_dir() + "/deep.yaml", rule_with_value(deep));
  CommandResult check = run_perfgate("rules check " + rules);
  EXPECT_EQ(check.exit_code, 2) << check.out;
  EXPECT_TRUE(contains(check.out, rules + ":4:")) << check.out.substr(0, 500);
  EXPECT_TRUE(contains(check.out, "error: rule 'x.deep': invalid expression in 'value'"))
      << check.out.substr(0, 500);
  EXPECT_TRUE(contains(check.out, "nesting deeper than 64 at position 65")) << check.out.substr(0, 500);
  EXPECT_LT(check.out.size(), 1000u);  // the expression is not quoted whole
  CommandResult analyze = run_perfgate("analyze " + trace + " --rules " + rules);
  EXPECT_EQ(analyze.exit_code, 2);

  std::string flat = write_text(temp_dir() + "/flat.yaml", rule_with_value(flat_sum(100000)));
  CommandResult long_check = run_perfgate("rules check " + flat);
  EXPECT_EQ(long_check.exit_code, 2);
  EXPECT_TRUE(contains(long_check.out, "more than 1000 terms")) << long_check.out.substr(0, 500);
  EXPECT_EQ(run_perfgate("analyze " + trace + " --rules " + flat).exit_code, 2);

  CommandResult set =
      run_perfgate("analyze " + trace + " --set 'gpu.low-utilization.condition=" + deep + "'");
  EXPECT_EQ(set.exit_code, 2);
  EXPECT_TRUE(contains(set.out, "nesting deeper than 64")) << set.out.substr(0, 500);
}

// Issue 13: output paths that could not work, or would overwrite an input, are usage errors.
TEST(Hardening, BadOutputPathsAreUsageErrors) {
  std::string dir = temp_dir();
  std::string trace = TraceBuilder().op("a", 1, 2).write(dir + "/t.json");
  std::string before = read_text(trace);
  CommandResult folder = run_perfgate("analyze " + trace + " --xlsx " + dir);
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_TRUE(contains(folder.out, "--xlsx " + dir + ": is a folder")) << folder.out;
  CommandResult same = run_perfgate("analyze " + trace + " --json " + dir + "/r --html " + dir + "/./r");
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_TRUE(contains(same.out, "name the same file")) << same.out;
  CommandResult empty = run_perfgate("analyze " + trace + " --json ''");
  EXPECT_EQ(empty.exit_code, 2) << empty.out;
  CommandResult input = run_perfgate("analyze " + trace + " --md " + trace);
  EXPECT_EQ(input.exit_code, 2);
  EXPECT_TRUE(contains(input.out, "is the input")) << input.out;
  CommandResult baseline = run_perfgate("analyze " + trace + " --baseline " + trace + " --json " + trace);
  EXPECT_EQ(baseline.exit_code, 2);
  EXPECT_EQ(read_text(trace), before);
}

// Reports get 0666 less the umask when new, and keep the mode of a file they replace.
TEST(Hardening, ReportModesHonourTheUmaskAndTheExistingFile) {
  namespace fs = std::filesystem;
  std::string dir = temp_dir();
  std::string trace = TraceBuilder().op("a", 1, 2).write(dir + "/t.json");
  auto mode = [](const std::string& p) { return static_cast<unsigned>(fs::status(p).permissions()) & 0777u; };
  mode_t saved = ::umask(027);  // inherited by perfgate
  CommandResult r =
      run_perfgate("analyze " + trace + " --json " + dir + "/new.json --xlsx " + dir + "/new.xlsx");
  ::umask(saved);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(mode(dir + "/new.json"), 0640u);
  EXPECT_EQ(mode(dir + "/new.xlsx"), 0640u);
  for (const char* name : {"/kept.json", "/kept.xlsx"}) {
    write_text(dir + name, "old");
    fs::permissions(dir + name, fs::perms::owner_read | fs::perms::owner_write);
  }
  ASSERT_EQ(run_perfgate("analyze " + trace + " --json " + dir + "/kept.json --xlsx " + dir + "/kept.xlsx")
                .exit_code,
            0);
  EXPECT_EQ(mode(dir + "/kept.json"), 0600u);
  EXPECT_EQ(mode(dir + "/kept.xlsx"), 0600u);
}

// --max-rows reaches every output through the report model; 0 is a usage error.
TEST(Hardening, MaxRowsCapsTheTables) {
  std::string dir = temp_dir();
  TraceBuilder t;
  t.step(1, 0, 1000);
  for (int i = 0; i < 4; ++i) t.op("op" + std::to_string(i), 10 + 200.0 * i, 100 + i);
  std::string trace = t.write(dir + "/t.json");
  CommandResult r =
      run_perfgate("analyze " + trace + " --max-rows 2 --json " + dir + "/r.json --md " + dir + "/r.md");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(read_text(dir + "/r.json"), "\"(2 more)\""));
  EXPECT_TRUE(contains(read_text(dir + "/r.md"), "(2 more)"));
  EXPECT_EQ(run_perfgate("analyze " + trace + " --max-rows 0").exit_code, 2);
}

// Issue 28, item 7: the memory limit on each input, from --max-input-memory or
// PERFGATE_MAX_INPUT_MEMORY; a malformed one is a usage error. 20,000 kernels hold more than 1 MiB.
TEST(Hardening, TheInputMemoryLimitComesFromTheOptionOrTheEnvironment) {
  TraceBuilder t;
  for (int i = 0; i < 20000; ++i) t.kernel("k", i * 10.0, 5, i + 1);
  std::string trace = t.write(temp_dir() + "/kernels.json");
  std::string refused = trace + ": holding this input needs more than 1 MiB of memory";
  CommandResult option = run_perfgate("analyze -q " + trace + " --max-input-memory 1M");
  EXPECT_EQ(option.exit_code, 3) << option.out;
  EXPECT_TRUE(contains(option.out, refused)) << option.out;
  ::setenv("PERFGATE_MAX_INPUT_MEMORY", "1MiB", 1);
  CommandResult environment = run_perfgate("analyze -q " + trace);
  CommandResult wider = run_perfgate("analyze -q " + trace + " --max-input-memory 0");  // the option wins
  ::setenv("PERFGATE_MAX_INPUT_MEMORY", "lots", 1);
  CommandResult malformed = run_perfgate("analyze -q " + trace);
  ::unsetenv("PERFGATE_MAX_INPUT_MEMORY");
  EXPECT_EQ(environment.exit_code, 3) << environment.out;
  EXPECT_TRUE(contains(environment.out, refused)) << environment.out;
  EXPECT_EQ(wider.exit_code, 0) << wider.out;
  EXPECT_EQ(malformed.exit_code, 2) << malformed.out;
  EXPECT_TRUE(contains(malformed.out, "PERFGATE_MAX_INPUT_MEMORY=lots: not a size")) << malformed.out;
  CommandResult bad = run_perfgate("analyze -q " + trace + " --max-input-memory 4X");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_TRUE(contains(bad.out, "--max-input-memory 4X: not a size")) << bad.out;
}

}  // namespace
}  // namespace perfgate::testing
