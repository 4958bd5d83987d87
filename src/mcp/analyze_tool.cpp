// analyze and compare: the engine (engine/engine.h) run on paths under the roots, the report kept
// for the other tools, and an agent-sized summary of it (report_summary.cpp).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <type_traits>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "common/errors.h"
#include "common/units.h"
#include "engine/engine.h"
#include "engine/request_options.h"
#include "history/history.h"
#include "mcp/report_summary.h"
#include "mcp/session.h"
#include "mcp/tool_args.h"
#include "render/escape.h"

namespace perfgate::mcp {
namespace {

constexpr std::chrono::milliseconds kProgressInterval{100};

// The rule files shipped in the binary, named rather than read from a path.
bool is_shipped_rules(const std::string& name) {
  return name == "default" || name == "tb-plugin";
}

// A PostgreSQL history is reached over the network, outside the roots: named as such, not read as a
// file under the first root ("<root>/postgresql://…: no such file or folder", issue 92).
void refuse_postgres(const std::string& location) {
  if (is_postgres_location(location))
    throw ConfigError(
        fmt::format("{}: a PostgreSQL history is not read through the MCP server (it lies "
                    "outside the roots); give a SQLite history file under the roots",
                    location));
}

std::vector<std::string> checked_paths(const Session& session, const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    refuse_postgres(p);
    out.push_back(session.roots().check(p));
  }
  return out;
}

// One run option of a tool's arguments, read as its type and range say (engine/request_options.def);
// absent, it keeps its value. apply_settings checks the rest (a choice, a time, a size).
template <typename T>
void read_argument(const ToolArgs& args, const OptionInfo& option, T& value) {
  std::string_view key = option.argument;
  const OptionCheck& check = option.check;
  bool ranged = check.kind == OptionCheck::Kind::Range;
  std::int64_t min = ranged ? check.min : std::numeric_limits<std::int64_t>::min();
  std::int64_t max = ranged ? check.max : std::numeric_limits<std::int64_t>::max();
  if constexpr (std::is_same_v<T, bool>) {
    value = args.flag(key);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (std::optional<std::string> text = args.text(key)) value = *text;
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (args.has(key)) value = args.texts(key, ranged ? static_cast<std::size_t>(max) : 64);
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    if (std::optional<double> n = args.number(key, -kMaxTraceTimeUs, kMaxTraceTimeUs)) value = n;
  } else if constexpr (IsOptional<T>::value) {
    if (std::optional<std::int64_t> n = args.integer(key, min, max)) value = *n;
  } else {
    if (std::optional<std::int64_t> n = args.integer(key, min, max)) value = static_cast<T>(*n);
  }
}

// The arguments of the options `shown_by` shows.
std::vector<std::string_view> arguments_shown(unsigned shown_by) {
  std::vector<std::string_view> out;
  for (const OptionInfo& option : request_options())
    if (option.shown & shown_by) out.push_back(option.argument);
  return out;
}

// analyze's run options (rules, set, disable, workload and `options`), shared by compare; a rule
// file's path must lie under the roots.
void read_run_options(const Session& session, const ToolArgs& args, RequestSettings& settings) {
#define PERFGATE_OPTION(field, type, initial, flag, argument, shown, ...) \
  if (((shown)&kShownByMcpTools) != 0) read_argument(args, *option_of(#field), settings.field);
#include "engine/request_options.def"
#undef PERFGATE_OPTION
  for (std::string& file : settings.rules)
    if (!is_shipped_rules(file)) file = session.roots().check(file);
  const json::object* options = args.object("options");
  if (!options) return;
  ToolArgs o("options", *options, arguments_shown(kShownByMcpOptions));
#define PERFGATE_OPTION(field, type, initial, flag, argument, shown, ...) \
  if (((shown)&kShownByMcpOptions) != 0) read_argument(o, *option_of(#field), settings.field);
#include "engine/request_options.def"
#undef PERFGATE_OPTION
}

// The call's cancellation and progress on the request: the bytes of the profiles read are the first
// 90% (a baseline's profiles count again from 0, so their progress is dropped), the gate the rest.
void attach_call(const Session& session, RunRequest& request) {
  const CallContext& call = session.call();
  request.stop_requested = [&call] { return call.stop_requested(); };
  request.progress = nullptr;
  request.on_loaded = nullptr;
  if (call.progress) {
    // The bytes read are told at most every kProgressInterval (the stages always).
    auto told = std::make_shared<std::chrono::steady_clock::time_point>();
    request.progress = [&call, told](std::uint64_t done, std::uint64_t total) {
      auto now = std::chrono::steady_clock::now();  // the loader calls this under its lock
      if (total == 0 || now - *told < kProgressInterval) return;
      *told = now;
      call.tell(90.0 * static_cast<double>(done) / static_cast<double>(total), 100,
                fmt::format("read {} of {} of profiles", byte_size_text(done), byte_size_text(total)));
    };
    request.on_loaded = [&call] { call.tell(90, 100, "profiles read and analysed; gating"); };
  }
}

// The arguments that make the run of `raw` again: its paths resolved, its rules and options.
json::object run_arguments(const json::object& raw, const std::vector<std::string>& paths) {
  json::array resolved;
  for (const std::string& p : paths) resolved.push_back(json::string(p));
  json::object run{{"paths", std::move(resolved)}};
  std::vector<std::string_view> keys = arguments_shown(kShownByMcpTools);
  keys.push_back("options");
  for (std::string_view key : keys)
    if (const json::value* v = raw.if_contains(key)) run[key] = *v;
  return run;
}

// The run gated as `perfgate analyze` gates it, kept in the session with the call that made it.
const StoredReport& run_engine(Session& session, json::object call, RunRequest request,
                               std::vector<Baseline> given = {}) {
  auto book = std::make_shared<const RuleBook>(
      load_rule_book(request.rules.files, request.rules.settings, request.rules.disabled));
  attach_call(session, request);
  PreparedRun prepared = prepare_run(std::move(request), book);
  GatedRun gated = run_gated(prepared, std::move(given));
  stop_if_asked(prepared.request);  // before anything is recorded or kept
  session.call().tell(95, 100, "gated");
  if (prepared.request.history.record) {
    try {
      record_run(gated.report, prepared.request.history);
    } catch (const RecordError& e) {
      std::cerr << "perfgate: " << e.what() << '\n';
      throw OutputError(fmt::format("{}: the run could not be recorded (the server's log says why)",
                                    prepared.request.history.location));
    }
  }
  const StoredReport& kept = session.keep(std::move(call), prepared.reads, std::move(gated.report), book);
  session.call().tell(100, 100, "report " + kept.id);
  return kept;
}

}  // namespace

RunRequest run_request_of(const Session& session, const json::object& run, RequestSettings settings) {
  std::vector<std::string_view> known = arguments_shown(kShownByMcpTools);
  known.insert(known.end(), {"paths", "options"});
  ToolArgs args("run", run, known);
  read_run_options(session, args, settings);
  // The server's limits (its flags), for every call.
  const RequestSettings& server = session.options().run;
  settings.threads = server.threads;
  settings.max_input_memory = server.max_input_memory;
  settings.max_memory = server.max_memory;
  settings.spill_dir = server.spill_dir;
  RunRequest request;
  request.paths = checked_paths(session, args.texts("paths"));
  apply_settings(settings, request);
  request.limits.memory = session.options().memory;  // as the server applied it
  // The files a run left out, on the server's log (stderr), as the CLI says them.
  request.on_input_warning = [](const Note& w) {
    std::cerr << "perfgate: warning: " << log_text(note_text(w)) << '\n';
  };
  return request;
}

ToolOutput analyze_tool(Session& session, const json::object& raw) {
  ToolArgs args("analyze", raw,
                {"paths", "rules", "set", "disable", "workload", "options", "baseline", "history", "record",
                 "branch", "commit"});
  json::object run = run_arguments(raw, checked_paths(session, args.texts("paths")));
  RequestSettings given;
  given.baseline = checked_paths(session, args.texts("baseline", 16));
  if (std::optional<std::string> history = args.text("history")) {
    bool record = args.flag("record");
    if (record && !session.options().allow_write)
      throw ConfigError("record: this server is read-only (start it with --allow-write to record runs)");
    refuse_postgres(*history);
    given.history = record ? session.roots().check_new(*history) : session.roots().check(*history);
    given.record = record;
    given.branch = args.text("branch").value_or("");
    given.commit = args.text("commit").value_or("");
  } else if (args.flag("record")) {
    throw ConfigError("record needs history (the run history to record into)");
  }
  RunRequest request = run_request_of(session, run, std::move(given));
  json::object call{{"tool", "analyze"}, {"arguments", raw}, {"run", std::move(run)}};
  const StoredReport& report = run_engine(session, std::move(call), std::move(request));
  return report_summary(report, false);
}

ToolOutput compare_tool(Session& session, const json::object& raw) {
  ToolArgs args("compare", raw,
                {"paths", "report", "baseline", "baseline_report", "history", "branch", "rules", "set",
                 "disable", "workload", "options"});
  std::optional<std::string> run_id = args.text("report");
  if (run_id && args.has("paths")) throw ConfigError("compare: give the run as paths or as report, not both");
  json::object run;
  if (run_id) {
    // The same run analysed again, as it was (with the rules and options given here, if any), now
    // against the baseline.
    run = session.report(*run_id).call.at("run").as_object();
    if (std::ranges::any_of(arguments_shown(kShownByMcpTools),
                            [&](std::string_view key) { return args.has(key); }) ||
        args.has("options"))
      run = run_arguments(raw, json::value_to<std::vector<std::string>>(run.at("paths")));
  } else {
    run = run_arguments(raw, checked_paths(session, args.texts("paths")));
    if (run.at("paths").as_array().empty())
      throw ConfigError("compare: give the run (paths, or report: an analyze id)");
  }
  RequestSettings settings;
  settings.baseline = checked_paths(session, args.texts("baseline", 16));
  if (std::optional<std::string> history = args.text("history")) {
    refuse_postgres(*history);
    settings.baseline.push_back(session.roots().check(*history));
    if (std::optional<std::string> branch = args.text("branch")) settings.baseline_branch = *branch;
  }
  RunRequest request = run_request_of(session, run, std::move(settings));
  std::vector<Baseline> given;
  if (std::optional<std::string> id = args.text("baseline_report")) {
    const StoredReport& base = session.report(*id);
    if (base.model)
      given.push_back(baseline_from_report(*base.model, "report " + base.id, "report"));
    else
      request.baselines.push_back(base.cached_path);  // its JSON report, as --baseline reads one
  }
  if (given.empty() && request.baselines.empty())
    throw ConfigError(
        "compare: give a baseline (baseline: paths of a report or profiles, baseline_report: an "
        "analyze id, or history: a run history)");
  json::object call{{"tool", "compare"}, {"arguments", raw}, {"run", std::move(run)}};
  const StoredReport& report = run_engine(session, std::move(call), std::move(request), std::move(given));
  return report_summary(report, true);
}

}  // namespace perfgate::mcp
