// analyze and compare: the engine (engine/engine.h) run on paths under the roots, the report kept
// for the other tools, and an agent-sized summary of it (report_summary.cpp).
#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "common/errors.h"
#include "common/units.h"
#include "engine/engine.h"
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

std::vector<std::string> checked_paths(const Session& session, const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) out.push_back(session.roots().check(p));
  return out;
}

// analyze's `rules`, `set`, `disable` and `options`, shared by compare.
void read_rules_and_options(const Session& session, const ToolArgs& args, RunRequest& request) {
  RuleRequest& rules = request.rules;
  for (const std::string& file : args.texts("rules", 16))
    rules.files.push_back(is_shipped_rules(file) ? file : session.roots().check(file));
  rules.settings = args.texts("set");
  rules.disabled = args.texts("disable");
  if (std::optional<std::string> workload = args.text("workload")) {
    rules.workload = capture_enum_named<CaptureWorkload>(kCaptureWorkloadNames, *workload);
    if (!rules.workload || *rules.workload == CaptureWorkload::Unknown)
      throw ConfigError("workload: one of training, serving, offline-inference, benchmark");
  }
  const json::object* options = args.object("options");
  if (!options) return;
  ToolArgs o("options", *options,
             {"iter_start", "iter_stop", "skip_first", "time_start_us", "time_stop_us", "device", "key_op",
              "step_pattern", "detailed_workers", "fail_on"});
  AnalysisOptions& a = request.options;
  a.window.iter_start = o.integer("iter_start", 0, std::int64_t{1} << 53);
  a.window.iter_stop = o.integer("iter_stop", 0, std::int64_t{1} << 53);
  a.window.skip_first = o.integer("skip_first", 0, 1'000'000'000).value_or(0);
  // Microseconds of the trace's clock, as `events` takes them (in range: trace_time_ns has a value).
  if (std::optional<double> us = o.number("time_start_us", -kMaxTraceTimeUs, kMaxTraceTimeUs))
    a.window.time_start = trace_time_ns(*us);
  if (std::optional<double> us = o.number("time_stop_us", -kMaxTraceTimeUs, kMaxTraceTimeUs))
    a.window.time_stop = trace_time_ns(*us);
  if (std::optional<std::int64_t> device = o.integer("device", 0, 1 << 20))
    a.device = static_cast<std::int32_t>(*device);
  a.key_op = o.text("key_op").value_or("");
  a.step_pattern = o.text("step_pattern").value_or("");
  a.detailed_workers = static_cast<std::size_t>(o.integer("detailed_workers", 0, 1'000'000).value_or(8));
  if (std::optional<std::string> fail_on = o.text("fail_on")) request.gate.fail_on = fail_on_named(*fail_on);
  check_step_window(a.window);  // before the rules are read
}

// A request of this server: its threads and memory budget, and the files it left out on the
// server's log (stderr), as the CLI says them.
RunRequest server_request(const Session& session) {
  RunRequest request;
  request.limits.threads = session.options().threads;
  request.limits.memory = session.options().memory;
  request.on_input_warning = [](const Note& w) {
    std::cerr << "perfgate: warning: " << log_text(note_text(w)) << '\n';
  };
  return request;
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
  for (std::string_view key : {"rules", "set", "disable", "workload", "options"})
    if (const json::value* v = raw.if_contains(key)) run[key] = *v;
  return run;
}

// The run gated as `perfgate analyze` gates it, kept in the session with the call that made it.
const StoredReport& run_engine(Session& session, json::object call, RunRequest request,
                               std::vector<Baseline> given = {}) {
  auto book = std::make_shared<const RuleBook>(
      load_rule_book(request.rules.files, request.rules.settings, request.rules.disabled));
  // A malformed limit is a usage error before any work.
  request.limits.max_input_memory = max_input_memory_of(session.options().max_input_memory);
  request.history.labels = run_labels(request.history.labels);
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

RunRequest run_request_of(const Session& session, const json::object& run) {
  ToolArgs args("run", run, {"paths", "rules", "set", "disable", "workload", "options"});
  RunRequest request = server_request(session);
  request.paths = checked_paths(session, args.texts("paths"));
  read_rules_and_options(session, args, request);
  return request;
}

ToolOutput analyze_tool(Session& session, const json::object& raw) {
  ToolArgs args("analyze", raw,
                {"paths", "rules", "set", "disable", "workload", "options", "baseline", "history", "record",
                 "branch", "commit"});
  json::object run = run_arguments(raw, checked_paths(session, args.texts("paths")));
  RunRequest request = run_request_of(session, run);
  request.baselines = checked_paths(session, args.texts("baseline", 16));
  if (std::optional<std::string> history = args.text("history")) {
    bool record = args.flag("record");
    if (record && !session.options().allow_write)
      throw ConfigError("record: this server is read-only (start it with --allow-write to record runs)");
    request.history.location = record ? session.roots().check_new(*history) : session.roots().check(*history);
    request.history.record = record;
    request.history.labels.branch = args.text("branch").value_or("");
    request.history.labels.commit = args.text("commit").value_or("");
  } else if (args.flag("record")) {
    throw ConfigError("record needs history (the run history to record into)");
  }
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
    if (args.has("rules") || args.has("set") || args.has("disable") || args.has("workload") ||
        args.has("options"))
      run = run_arguments(raw, json::value_to<std::vector<std::string>>(run.at("paths")));
  } else {
    run = run_arguments(raw, checked_paths(session, args.texts("paths")));
    if (run.at("paths").as_array().empty())
      throw ConfigError("compare: give the run (paths, or report: an analyze id)");
  }
  RunRequest request = run_request_of(session, run);
  request.baselines = checked_paths(session, args.texts("baseline", 16));
  std::vector<Baseline> given;
  if (std::optional<std::string> id = args.text("baseline_report")) {
    const StoredReport& base = session.report(*id);
    if (base.model)
      given.push_back(baseline_from_report(*base.model, "report " + base.id, "report"));
    else
      request.baselines.push_back(base.cached_path);  // its JSON report, as --baseline reads one
  }
  if (std::optional<std::string> history = args.text("history")) {
    request.baselines.push_back(session.roots().check(*history));
    if (std::optional<std::string> branch = args.text("branch")) request.history.baseline_branch = *branch;
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
