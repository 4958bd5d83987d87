// The run's options declared once (engine/request_options.def): the table is whole, the engine checks
// every value as the command line does, and the front ends made from it (the command line's flags,
// the MCP tools' schemas, docs/usage.md) show it and nothing beside it.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <regex>
#include <set>
#include <string>

#include "common/errors.h"
#include "engine/request_options.h"
#include "support/helpers.h"
#include "support/mcp_server_fixture.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string request_error(const RequestSettings& settings, std::string* field = nullptr) {
  RunRequest request;
  try {
    apply_settings(settings, request);
  } catch (const RequestError& e) {
    if (field) *field = e.field();
    return e.what();
  }
  return "";
}

TEST(RequestOptions, EachOptionHasItsOwnNamesAndAHelpThatNamesOnlyOptions) {
  std::set<std::string_view> fields, flags, arguments;
  for (const OptionInfo& o : request_options()) {
    EXPECT_TRUE(fields.insert(o.field).second) << o.field;
    EXPECT_TRUE(flags.insert(o.flag).second) << o.flag;
    EXPECT_TRUE(o.flag.starts_with("--")) << o.flag;
    if (o.shown & (kShownByMcpTools | kShownByMcpOptions)) {
      EXPECT_TRUE(arguments.insert(o.argument).second) << o.argument;
    }
    EXPECT_NE(o.shown, 0u) << o.field;
    EXPECT_FALSE(o.help.empty()) << o.field;
    // Every {name} of a help is an option's field: none is left as written.
    std::string help =
        option_help(o, [](const OptionInfo& named) { return "<" + std::string(named.field) + ">"; });
    EXPECT_EQ(help.find('{'), std::string::npos) << o.field << ": " << help;
    EXPECT_EQ(o.value == OptionValue::Flag, o.value_name.empty()) << o.field;
    EXPECT_EQ(option_of(o.field), &o);
  }
  EXPECT_EQ(option_of("no_such_option"), nullptr);
  // The defaults are the settings' own, as text.
  EXPECT_EQ(option_of("detailed_workers")->default_text, "8");
  EXPECT_EQ(option_of("fail_on")->default_text, "error");
  EXPECT_EQ(option_of("iter_start")->default_text, "");
  EXPECT_EQ(option_of("rules")->value, OptionValue::Texts);
  EXPECT_EQ(option_of("time_start")->value, OptionValue::Number);
}

// What the command line's parser checks, the engine checks for every front end (the public API
// hands it values nobody parsed), naming the field.
TEST(RequestOptions, TheEngineChecksEveryValueAsTheCommandLineDoes) {
  std::string field;
  RequestSettings s;
  s.warnings_exit_code = 256;
  EXPECT_EQ(request_error(s, &field), "warnings_exit_code 256: out of range (0 to 255)");
  EXPECT_EQ(field, "warnings_exit_code");
  s = {};
  s.detailed_workers = -1;
  EXPECT_EQ(request_error(s), "detailed_workers -1: out of range (0 to 1000000)");
  s = {};
  s.workload = "inference";
  EXPECT_EQ(request_error(s, &field),
            "workload 'inference': training, serving, offline-inference or benchmark");
  EXPECT_EQ(field, "workload");
  s = {};
  s.fail_on = "sometimes";
  EXPECT_EQ(request_error(s), "fail_on 'sometimes': error, warning, inconclusive or never");
  s = {};
  s.rules.assign(17, "default");
  EXPECT_EQ(request_error(s), "rules: at most 16 (17 given)");
  s = {};
  s.label = {"novalue"};
  EXPECT_EQ(request_error(s, &field), "label 'novalue': write it as KEY=VALUE");
  EXPECT_EQ(field, "label");
  s = {};
  s.time_start = 1e300;
  EXPECT_EQ(request_error(s, &field), "time_start 1e+300: not a time of the trace's clock in microseconds");
  s = {};
  s.iter_start = 5;
  s.iter_stop = 2;
  EXPECT_EQ(request_error(s), "iter_start 5 is after iter_stop 2");
  s = {};
  s.max_memory = "12M";
  EXPECT_EQ(request_error(s, &field),
            "max_memory 12M: under 16 MiB, too little to hold a run's names and tables");
  s = {};
  s.max_input_memory = "lots";
  EXPECT_EQ(request_error(s, &field),
            "max_input_memory lots: not a size (e.g. 8G, 512M or a number of bytes; 0: no limit)");
}

TEST(RequestOptions, TheSettingsMakeTheRequest) {
  RequestSettings s;
  s.rules = {"tb-plugin"};
  s.set = {"gpu.low-utilization.warn=40"};
  s.disable = {"steps.outliers"};
  s.workload = "serving";
  s.fail_on = "warning";
  s.warnings_exit_code = 78;
  s.baseline = {"main.json"};
  s.baseline_runs = 3;
  s.baseline_branch = "release";
  s.branch = "feature";
  s.label = {"script=train.py"};
  s.iter_start = 2;
  s.skip_first = 1;
  s.time_start = 1.5;
  s.device = 3;
  s.detailed_workers = 0;
  s.device_memory = "80G";
  s.one_run = true;
  s.threads = 2;
  s.max_memory = "0";
  s.max_input_memory = "2M";
  RunRequest r;
  apply_settings(s, r);
  EXPECT_EQ(r.rules.files, s.rules);
  EXPECT_EQ(r.rules.settings, s.set);
  EXPECT_EQ(r.rules.disabled, s.disable);
  EXPECT_EQ(r.rules.workload, CaptureWorkload::Serving);
  EXPECT_EQ(r.gate.fail_on, FailOn::Warning);
  EXPECT_EQ(r.gate.warnings_exit_code, 78);
  EXPECT_EQ(r.baselines, s.baseline);
  EXPECT_EQ(r.history.baseline_runs, 3u);
  EXPECT_EQ(r.history.baseline_branch, "release");
  EXPECT_EQ(r.history.labels.branch, "feature");
  EXPECT_TRUE(
      std::ranges::count(r.history.labels.labels, std::pair<std::string, std::string>{"script", "train.py"}));
  EXPECT_EQ(r.options.window.iter_start, 2);
  EXPECT_EQ(r.options.window.skip_first, 1);
  EXPECT_EQ(r.options.window.time_start, 1500);  // ns of the trace's clock
  EXPECT_EQ(r.options.device, 3);
  EXPECT_EQ(r.options.detailed_workers, 0u);
  EXPECT_EQ(r.options.device_memory, std::uint64_t{80} << 30);
  EXPECT_TRUE(r.one_run);
  EXPECT_EQ(r.limits.threads, 2u);
  EXPECT_EQ(r.limits.memory.bytes, 0u);
  EXPECT_EQ(r.limits.max_input_memory, std::uint64_t{2} << 20);
}

// The flags a command's help lists, in the order it lists them.
std::vector<std::string> flags_in_help(const std::string& help) {
  std::vector<std::string> out;
  std::regex flag(R"(\n +(?:-[a-zA-Z], *)?(--[a-z0-9-]+))");
  for (std::sregex_iterator it(help.begin(), help.end(), flag), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

// Each command shows the table's options its mask says, and every other flag it has is its own:
// the reports, the terminal, a partial report, the MCP server's roots.
TEST(RequestOptions, EachCommandShowsItsOptionsOfTheTableAndOnlyItsOwnBeside) {
  const std::set<std::string> outputs = {
      "--json",  "--html",    "--html-assets", "--html-rows", "--md",          "--md-budget", "--pr-comment",
      "--xlsx",  "--junit",   "--github",      "--gitlab",    "--gitlab-path", "--max-rows",  "--timestamp",
      "--quiet", "--verbose", "--no-progress", "--no-color",  "--help"};
  struct Command {
    const char* name;
    unsigned shown;
    std::set<std::string> own;
  };
  std::set<std::string> analyze_own = outputs, merge_own = outputs;
  analyze_own.insert({"--print-effective-rules", "--partial", "--slice", "--annotated-trace",
                      "--annotated-trace-steps", "--annotated-trace-max-events"});
  merge_own.insert("--allow-missing-ranks");
  for (const Command& c :
       {Command{"analyze", kShownByAnalyze, analyze_own}, Command{"merge", kShownByMerge, merge_own},
        Command{"history import", kShownByHistoryImport, {"--help"}},
        Command{"mcp", kShownByMcpServer, {"--root", "--allow-write", "--max-message-bytes", "--help"}}}) {
    CommandResult help = run_perfgate(std::string(c.name) + " --help");
    ASSERT_EQ(help.exit_code, 0) << c.name;
    std::set<std::string> listed;
    for (const std::string& flag : flags_in_help(help.out)) listed.insert(flag);
    for (const OptionInfo& o : request_options()) {
      bool shown = (o.shown & c.shown) != 0;
      EXPECT_EQ(listed.count(std::string(o.flag)), shown ? 1u : 0u) << c.name << " " << o.flag;
      std::string help_text = option_help(o, [](const OptionInfo& named) { return std::string(named.flag); });
      if (shown) {
        EXPECT_TRUE(contains(help.out, help_text.substr(0, 40))) << c.name << " " << o.flag;
      }
      listed.erase(std::string(o.flag));
    }
    for (const std::string& flag : listed)
      EXPECT_TRUE(c.own.count(flag)) << c.name << " has " << flag << ", neither in the table nor its own";
  }
}

// The MCP tools' run options are the table's: its kShownByMcpTools at the top level, its
// kShownByMcpOptions inside `options`, each described in the tools' words.
TEST_F(McpServerTest, TheToolsRunOptionsAreTheTablesAndNothingBeside) {
  json::value r = reply(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  const std::set<std::string> analyze_own = {"paths", "baseline", "history", "record", "branch", "commit"};
  const std::set<std::string> compare_own = {"paths",           "report",  "baseline",
                                             "baseline_report", "history", "branch"};
  int tools = 0;
  for (const json::value& t : r.at("result").at("tools").as_array()) {
    std::string name = json::value_to<std::string>(t.at("name"));
    if (name != "analyze" && name != "compare") continue;
    ++tools;
    const json::object& properties = t.at("inputSchema").at("properties").as_object();
    std::set<std::string> top, inner;
    for (const auto& [key, value] : properties) top.insert(key);
    for (const auto& [key, value] : properties.at("options").at("properties").as_object()) inner.insert(key);
    top.erase("options");
    for (const OptionInfo& o : request_options()) {
      std::string argument(o.argument);
      EXPECT_EQ(inner.count(argument), (o.shown & kShownByMcpOptions) ? 1u : 0u)
          << name << " options." << argument;
      if (o.shown & kShownByMcpTools) {
        EXPECT_EQ(top.erase(argument), 1u) << name << " " << argument;
      }
    }
    for (const std::string& key : top)
      EXPECT_TRUE((name == "analyze" ? analyze_own : compare_own).count(key)) << name << " has " << key;
  }
  EXPECT_EQ(tools, 2);
  json::value analyze = r.at("result").at("tools").at(0);
  ASSERT_EQ(analyze.at("name"), json::value("analyze"));
  const json::value& iter_stop =
      analyze.at("inputSchema").at("properties").at("options").at("properties").at("iter_stop");
  EXPECT_EQ(iter_stop.at("type"), json::value("integer"));
  EXPECT_EQ(iter_stop.at("minimum"), json::value(0));
  const json::value& fail_on =
      analyze.at("inputSchema").at("properties").at("options").at("properties").at("fail_on");
  EXPECT_EQ(fail_on.at("enum"), json::parse(R"(["error", "warning", "inconclusive", "never"])"));
  EXPECT_EQ(fail_on.at("default"), json::value("error"));
}

TEST_F(McpServerTest, AnOptionOutOfTheTablesRangeIsRefusedInTheToolsWords) {
  five_step_trace(root_ + "/run.json");
  json::object refused =
      call("analyze", {{"paths", json::array{"run.json"}}, {"options", {{"time_start_us", 1e17}}}});
  EXPECT_EQ(refused.at("isError"), json::value(true));
  EXPECT_TRUE(contains(json::serialize(refused), "time_start_us")) << json::serialize(refused);
  json::object workload = call("analyze", {{"paths", json::array{"run.json"}}, {"workload", "inference"}});
  EXPECT_EQ(workload.at("isError"), json::value(true));
  EXPECT_TRUE(contains(json::serialize(workload), "workload 'inference': training, serving"))
      << json::serialize(workload);
}

// docs/usage.md ends with the table as `perfgate metrics --options` prints it (ci/update-docs.sh).
TEST(RequestOptions, TheOptionsDocumentationIsCurrent) {
  CommandResult options = run_perfgate("metrics --options --format markdown");
  ASSERT_EQ(options.exit_code, 0);
  EXPECT_TRUE(
      contains(options.out, "| `--iter-start N` | `options.iter_start` | analyze, MCP tools | 0 or more |"))
      << options.out;
  EXPECT_TRUE(
      contains(options.out, "| `--threads N` | `mcp --threads` | analyze, merge, mcp | 0 to 1024 | 0 |"))
      << options.out;
  // Another option is named by its flag.
  EXPECT_TRUE(contains(options.out, "With a history as --baseline: compare with its last N runs"))
      << options.out;
  std::string doc = read_text(std::string(PERFGATE_SOURCE_DIR) + "/docs/usage.md");
  EXPECT_TRUE(doc.ends_with("\n" + options.out)) << "run ci/update-docs.sh";
  CommandResult json_list = run_perfgate("metrics --options --format json");
  json::value parsed = json::parse(json_list.out);
  EXPECT_EQ(parsed.as_array().size(), request_options().size());
  EXPECT_EQ(run_perfgate("metrics --options --notes").exit_code, 2);
  // The text lists each option's values and default after its help.
  CommandResult text = run_perfgate("metrics --options");
  EXPECT_TRUE(contains(text.out, "for CI systems that show it [0 to 255] (default 0)\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "--skip-first N")) << text.out;
}

}  // namespace
}  // namespace perfgate::testing
