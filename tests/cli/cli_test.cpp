// The perfgate binary end to end: exit codes, messages, no partial output on failure.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Cli, HelpAndVersion) {
  CommandResult help = run_perfgate("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "analyze")) << help.out;
  EXPECT_TRUE(contains(help.out, "Exit codes")) << help.out;
  CommandResult analyze_help = run_perfgate("analyze --help");
  EXPECT_EQ(analyze_help.exit_code, 0);
  EXPECT_TRUE(contains(analyze_help.out, "--iter-start")) << analyze_help.out;
  CommandResult version = run_perfgate("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(contains(version.out, "perfgate 0.")) << version.out;
}

// A command's options are added when the parse reaches it (cli/commands.h: add_options_when_parsed):
// each command's help, reached by its name or alias, lists them, and an option of one command is
// still unknown to another.
TEST(Cli, EachCommandsOptionsAreThereWhenItIsReached) {
  for (const auto& [command, option] :
       {std::pair{"analyze", "--detailed-workers"}, std::pair{"analyse", "--detailed-workers"},
        std::pair{"merge", "--allow-missing-ranks"}, std::pair{"mcp", "--allow-write"}}) {
    CommandResult help = run_perfgate(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_TRUE(contains(help.out, option)) << command << ": " << help.out;
    EXPECT_TRUE(contains(help.out, "--max-memory")) << command << ": " << help.out;
  }
  CommandResult top = run_perfgate("--help");
  EXPECT_TRUE(contains(top.out, "mcp")) << top.out;
  EXPECT_FALSE(contains(top.out, "--detailed-workers")) << top.out;
  CommandResult misplaced = run_perfgate("merge --verbose x.pgp --slice 0/2");
  EXPECT_EQ(misplaced.exit_code, 2);
  EXPECT_TRUE(contains(misplaced.out, "unknown option '--slice'")) << misplaced.out;
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_perfgate("").exit_code, 2);
  EXPECT_EQ(run_perfgate("analyze").exit_code, 2);
  EXPECT_EQ(run_perfgate("analyze --verbose x.json --no-such-flag").exit_code, 2);
  EXPECT_EQ(run_perfgate("analyze --verbose x.json --skip-first -3").exit_code, 2);
  std::string trace = TraceBuilder().step(1, 0, 10).op("a", 1, 2).write(temp_dir() + "/t.json");
  CommandResult window = run_perfgate("analyze --verbose " + trace + " --iter-start 5");
  EXPECT_EQ(window.exit_code, 2);
  EXPECT_TRUE(contains(window.out, "select no step")) << window.out;
  CommandResult order = run_perfgate("analyze --verbose " + trace + " --iter-start 5 --iter-stop 2");
  EXPECT_EQ(order.exit_code, 2);
  CommandResult key = run_perfgate("analyze --verbose " + trace + " --key-op '('");
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_TRUE(contains(key.out, "invalid --key-op pattern")) << key.out;
}

// Issue 29, item 8: "perfgate anlyze" and "perfgate analyse" said "A subcommand is required" (the
// help itself says "Analyse profiles"), and a misspelt option got no suggestion.
TEST(Cli, MisspeltCommandsAndOptionsGetASuggestion) {
  std::string trace = TraceBuilder().step(1, 0, 10).op("a", 1, 2).write(temp_dir() + "/t.json");
  CommandResult command = run_perfgate("anlyze " + trace);
  EXPECT_EQ(command.exit_code, 2);
  EXPECT_EQ(command.out,
            "perfgate: unknown command 'anlyze', did you mean 'analyze'?\n"
            "Run 'perfgate --help' for the commands.\n");
  CommandResult option = run_perfgate("analyze --verbose --htlm out.html " + trace);
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_EQ(option.out,
            "perfgate analyze: unknown option '--htlm', did you mean '--html'?\n"
            "Run 'perfgate analyze --help' for its options.\n");
  CommandResult with_value = run_perfgate("analyze --verbose " + trace + " --jsn=out.json");
  EXPECT_TRUE(contains(with_value.out, "perfgate analyze: unknown option '--jsn', did you mean '--json'?"))
      << with_value.out;
  CommandResult nested = run_perfgate("history trnd perfgate.db");
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_TRUE(contains(nested.out, "perfgate history: unknown command 'trnd', did you mean 'trend'?"))
      << nested.out;
  EXPECT_TRUE(
      contains(run_perfgate("rules lst").out, "perfgate rules: unknown command 'lst', did you mean 'list'?"));
  // Nothing near: the commands there are.
  CommandResult far = run_perfgate("frobnicate");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_TRUE(contains(far.out,
                       "perfgate: unknown command 'frobnicate' (commands: analyze, merge, metrics, events, "
                       "rules, history, mcp)"))
      << far.out;
  CommandResult far_option = run_perfgate("analyze --verbose --zzzzzz " + trace);
  EXPECT_TRUE(contains(far_option.out, "perfgate analyze: unknown option '--zzzzzz'\n")) << far_option.out;
  // `analyse` is the same command.
  CommandResult alias = run_perfgate("analyse -q " + trace);
  EXPECT_EQ(alias.exit_code, 0) << alias.out;
  EXPECT_TRUE(contains(run_perfgate("--help").out, "analyze, analyse")) << run_perfgate("--help").out;
}

// Issue 76, item 9: a number option's refusal says what is wrong with the value, in whole numbers.
// Before: "--skip-first: Value x not in range 0.000000 to 1797693…" (DBL_MAX in 309 digits) and,
// with the paths after `--` (as the Python API passes them), "unknown option '--'".
TEST(Cli, NumberOptionsSayWhatIsWrongWithTheValue) {
  std::string trace = TraceBuilder().step(1, 0, 10).op("a", 1, 2).write(temp_dir() + "/t.json");
  CommandResult word = run_perfgate("analyze --verbose --skip-first=x -- " + trace);
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_TRUE(contains(word.out, "--skip-first: 'x' is not a whole number (0 or more)")) << word.out;
  EXPECT_FALSE(contains(word.out, "unknown option")) << word.out;
  EXPECT_FALSE(contains(word.out, "000000")) << word.out;
  CommandResult negative = run_perfgate("analyze --verbose --skip-first -1 " + trace);
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_TRUE(contains(negative.out, "--skip-first: -1 is out of range (0 or more)")) << negative.out;
  CommandResult huge = run_perfgate("analyze --verbose --skip-first 99999999999999999999999 " + trace);
  EXPECT_TRUE(contains(huge.out, "is too large (a whole number, 0 or more)")) << huge.out;
  CommandResult bounded = run_perfgate("analyze --verbose --threads 5000 " + trace);
  EXPECT_TRUE(contains(bounded.out, "--threads: 5000 is out of range (0 to 1024)")) << bounded.out;
  CommandResult last = run_perfgate("history list " + temp_dir() + "/h.db --last 0");
  EXPECT_EQ(last.exit_code, 2);
  EXPECT_TRUE(contains(last.out, "--last: 0 is out of range (1 or more)")) << last.out;
}

// Issue 76, item 10: the help (and the man pages help2man makes of it) names no file of docs/, which
// neither the package nor the wheel ships. Before: `perfgate mcp --help` ended "(docs/agents.md)".
TEST(Cli, HelpNamesNoDocsThePackageLacks) {
  for (const char* command : {"", "analyze", "merge", "metrics", "events", "rules", "rules list", "history",
                              "history list", "history trend", "history import", "mcp"}) {
    CommandResult help = run_perfgate(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_FALSE(contains(help.out, "docs/")) << command << ":\n" << help.out;
  }
}

TEST(Cli, BadRuleFilesExitTwo) {
  std::string trace = TraceBuilder().op("a", 1, 2).write(temp_dir() + "/t.json");
  std::string rules = write_text(temp_dir() + "/r.yaml", "classification:\n  nope: {}\n");
  CommandResult r = run_perfgate("analyze --verbose " + trace + " --rules " + rules);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.out, rules + ":2:3: error: unknown key 'nope' in 'classification'")) << r.out;
}

TEST(Cli, InputErrorsExitThreeWithOneLineAndNoReport) {
  std::string dir = temp_dir();
  std::string bad = write_text(dir + "/bad.json", "{\"traceEvents\": [1,");
  std::string json = dir + "/report.json";
  CommandResult r = run_perfgate("analyze --verbose " + bad + " --json " + json);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.out, "perfgate: " + bad + ": ")) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_FALSE(std::filesystem::exists(json));
  CommandResult missing = run_perfgate("analyze --verbose " + dir + "/missing.json");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(contains(missing.out, "missing.json: no such file")) << missing.out;
}

// Issue 29, item 5: an empty trace passed the gate, alone and against a baseline.
TEST(Cli, AProfileWithNoActivityExitsThreeAsRunAndAsBaseline) {
  std::string dir = temp_dir();
  std::string empty = write_text(dir + "/empty.json", R"({"traceEvents": []})");
  std::string json = dir + "/report.json";
  CommandResult r = run_perfgate("analyze --verbose " + empty + " --json " + json);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_EQ(r.out, "perfgate: " + empty +
                       ": holds no profiled activity (no CPU op, annotation, CUDA/HIP call, "
                       "GPU activity or allocator event)\n");
  EXPECT_FALSE(std::filesystem::exists(json));
  std::string trace = TraceBuilder().step(1, 0, 10).op("a", 1, 2).write(dir + "/t.json");
  CommandResult baseline = run_perfgate("analyze --verbose " + trace + " --baseline " + empty);
  EXPECT_EQ(baseline.exit_code, 3) << baseline.out;
  EXPECT_TRUE(contains(baseline.out, "perfgate: baseline: " + empty + ": holds no profiled activity"))
      << baseline.out;
}

// Issue 29, item 8: a stray JSON file in a run folder stopped the run with exit 3.
TEST(Cli, AStrayJsonInARunFolderIsSkippedWithAWarning) {
  std::string dir = temp_dir();
  TraceBuilder().step(1, 0, 10).op("a", 1, 2).write(dir + "/rank-0.json");
  std::string stray = write_text(dir + "/config.json", R"({"lr": 0.1})");
  CommandResult r = run_perfgate("analyze --verbose " + dir + " --no-color");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(
      r.out, "Warning      skipped " + stray + ": not a Chrome/Kineto trace: no 'traceEvents' array\n"))
      << r.out;
  CommandResult named = run_perfgate("analyze --verbose " + stray);
  EXPECT_EQ(named.exit_code, 3) << named.out;
  EXPECT_EQ(named.out, "perfgate: " + stray + ": not a Chrome/Kineto trace: no 'traceEvents' array\n");
}

TEST(Cli, UnwritableOutputExitsThree) {
  std::string trace = TraceBuilder().op("a", 1, 2).write(temp_dir() + "/t.json");
  CommandResult r = run_perfgate("analyze --verbose " + trace + " --json /nonexistent-dir/report.json");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.out, "/nonexistent-dir/report.json: cannot write")) << r.out;
}

TEST(Cli, AnalyzeWritesTheJsonReportAndPrintsTheSummary) {
  std::string dir = temp_dir();
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 100);
  t.launch("k", 10, 20, 40);
  t.launch("k", 110, 120, 40);
  std::string trace = t.write(dir + "/run.pt.trace.json.gz");
  CommandResult r = run_perfgate("analyze --verbose " + trace + " --json " + dir + "/out.json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "GPU utilization 40.0%")) << r.out;
  EXPECT_TRUE(contains(read_text(dir + "/out.json"), "\"schema\": \"perfgate-report/2.7\""));
  CommandResult quiet = run_perfgate("analyze --verbose -q " + trace);
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_TRUE(quiet.out.empty()) << quiet.out;
}

TEST(Cli, MetricsPrintsTheCatalog) {
  CommandResult text = run_perfgate("metrics");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_TRUE(contains(text.out, "gpu.utilization_pct")) << text.out;
  CommandResult md = run_perfgate("metrics --format markdown");
  EXPECT_TRUE(contains(md.out, "| `steps.mean_us` | Mean step | us |")) << md.out;
  CommandResult json = run_perfgate("metrics --format json");
  EXPECT_TRUE(contains(json.out, "\"name\": \"tensor_core.efficiency_pct\"")) << json.out;
  EXPECT_EQ(run_perfgate("metrics --format yaml").exit_code, 2);
}

// docs/metrics.md's "Tables" is the declaration (common/table_catalog.def) as `perfgate metrics
// --tables` prints it (ci/update-docs.sh writes it), the delta tables per window step.
TEST(Cli, TheTablesDocumentationIsCurrent) {
  CommandResult tables = run_perfgate("metrics --tables --format markdown");
  ASSERT_EQ(tables.exit_code, 0);
  EXPECT_TRUE(contains(tables.out,
                       "### `op_deltas`: Op changes against the baseline\n\nOps by name, per window "
                       "step; largest regression first"))
      << tables.out;
  EXPECT_TRUE(contains(tables.out,
                       "| `baseline_gpu_us_per_step` | us | Baseline: GPU time the op launched "
                       "itself, per step |"))
      << tables.out;
  std::string doc = read_text(std::string(PERFGATE_SOURCE_DIR) + "/docs/metrics.md");
  EXPECT_TRUE(contains(doc, "\n## Tables\n")) << "docs/metrics.md has no section 'Tables'";
  EXPECT_TRUE(contains(doc, "\n" + tables.out + "## Catalog\n")) << "run ci/update-docs.sh";
  CommandResult text = run_perfgate("metrics --tables");
  EXPECT_TRUE(contains(text.out, "ranks (Ranks)\n  worker ")) << text.out;
}

// docs/reports.md ends with the run notes' catalog (common/note_catalog.def) as `perfgate metrics
// --notes` prints it (ci/update-docs.sh writes it).
TEST(Cli, TheRunNotesDocumentationIsCurrent) {
  CommandResult notes = run_perfgate("metrics --notes --format markdown");
  ASSERT_EQ(notes.exit_code, 0);
  EXPECT_TRUE(contains(notes.out,
                       "| `kineto_flow_one_end` | data-loss | reader: Kineto/Chrome trace | {count} "
                       "forward/backward flows have only one end in the trace |"))
      << notes.out;
  // A choice's '|' is escaped, so that the row keeps its five cells.
  EXPECT_TRUE(contains(notes.out, "{count} {count\\|string\\|strings} in the trace")) << notes.out;
  std::string doc = read_text(std::string(PERFGATE_SOURCE_DIR) + "/docs/reports.md");
  EXPECT_TRUE(contains(doc, "\n## Run notes\n")) << "docs/reports.md has no section 'Run notes'";
  EXPECT_TRUE(doc.ends_with("\n" + notes.out)) << "run ci/update-docs.sh";
  CommandResult json = run_perfgate("metrics --notes --format json");
  EXPECT_TRUE(contains(json.out, "\"id\": \"history_other_gpus\"")) << json.out;
  EXPECT_TRUE(contains(json.out, "\"severity\": \"warning\"")) << json.out;
  EXPECT_EQ(run_perfgate("metrics --notes --tables").exit_code, 2);
}

}  // namespace
}  // namespace perfgate::testing
