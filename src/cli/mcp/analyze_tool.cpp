// analyze and compare: the CLI's engine (rules_of, report_of, gated_report) on paths under the roots,
// the report kept for the other tools, and an agent-sized summary of it (report_summary.cpp).
#include <fmt/format.h>

#include "cli/mcp/report_summary.h"
#include "cli/mcp/session.h"
#include "cli/mcp/tool_args.h"
#include "cli/partials.h"
#include "perfgate/baseline.h"
#include "perfgate/errors.h"
#include "perfgate/history.h"

namespace perfgate::cli::mcp {
namespace {

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
void read_gate_and_options(const Session& session, const ToolArgs& args, AnalyzeRequest& request) {
  GateArgs& gate = request.gate;
  for (const std::string& file : args.texts("rules", 16))
    gate.rule_files.push_back(is_shipped_rules(file) ? file : session.roots().check(file));
  gate.settings = args.texts("set");
  gate.disabled = args.texts("disable");
  gate.quiet = true;
  gate.no_progress = true;
  gate.no_color = true;
  gate.threads = session.options().threads;
  gate.max_input_memory = session.options().max_input_memory;
  const json::object* options = args.object("options");
  if (!options) return;
  ToolArgs o(
      "options", *options,
      {"iter_start", "iter_stop", "skip_first", "key_op", "step_pattern", "detailed_workers", "fail_on"});
  AnalysisOptions& a = request.options;
  a.window.iter_start = o.integer("iter_start", 0, std::int64_t{1} << 53);
  a.window.iter_stop = o.integer("iter_stop", 0, std::int64_t{1} << 53);
  a.window.skip_first = o.integer("skip_first", 0, 1'000'000'000).value_or(0);
  a.key_op = o.text("key_op").value_or("");
  a.step_pattern = o.text("step_pattern").value_or("");
  a.detailed_workers = static_cast<std::size_t>(o.integer("detailed_workers", 0, 1'000'000).value_or(8));
  if (std::optional<std::string> fail_on = o.text("fail_on")) {
    if (*fail_on != "error" && *fail_on != "warning" && *fail_on != "inconclusive" && *fail_on != "never")
      throw ConfigError("options.fail_on: error, warning, inconclusive or never");
    gate.fail_on = *fail_on;
  }
  if (a.window.iter_start && a.window.iter_stop && *a.window.iter_start > *a.window.iter_stop)
    throw ConfigError(
        fmt::format("--iter-start {} is after --iter-stop {}", *a.window.iter_start, *a.window.iter_stop));
}

// The run gated as `perfgate analyze` gates it, kept in the session.
const StoredReport& run_engine(Session& session, AnalyzeRequest request, std::vector<Baseline> given = {}) {
  if (request.paths.empty())
    throw ConfigError("analyze: give at least one profile (a trace file or a run folder)");
  refuse_partial_reports(request.paths);
  auto rules = std::make_shared<const RuleSet>(rules_of(request.gate));
  max_input_memory(request.gate);  // a malformed limit is a usage error before any work
  GatedReport gated = gated_report(
      request.gate, *rules, request.options,
      [&] { return report_of(request.paths, *rules, request.options, request.gate); }, std::move(given));
  if (request.gate.history.record && !record_run(gated.report, request.gate.history, gated.labels))
    throw OutputError(fmt::format("{}: the run could not be recorded (the server's log says why)",
                                  request.gate.history.history));
  return session.keep(std::move(request), std::move(gated.report), rules);
}

}  // namespace

ToolOutput analyze_tool(Session& session, const json::object& raw) {
  ToolArgs args(
      "analyze", raw,
      {"paths", "rules", "set", "disable", "options", "baseline", "history", "record", "branch", "commit"});
  AnalyzeRequest request;
  request.paths = checked_paths(session, args.texts("paths"));
  read_gate_and_options(session, args, request);
  request.gate.baseline_paths = checked_paths(session, args.texts("baseline", 16));
  if (std::optional<std::string> history = args.text("history")) {
    bool record = args.flag("record");
    if (record && !session.options().allow_write)
      throw ConfigError("record: this server is read-only (start it with --allow-write to record runs)");
    request.gate.history.history =
        record ? session.roots().check_new(*history) : session.roots().check(*history);
    request.gate.history.record = record;
    request.gate.history.labels.branch = args.text("branch").value_or("");
    request.gate.history.labels.commit = args.text("commit").value_or("");
  } else if (args.flag("record")) {
    throw ConfigError("record needs history (the run history to record into)");
  }
  const StoredReport& report = run_engine(session, std::move(request));
  return report_summary(report, false);
}

ToolOutput compare_tool(Session& session, const json::object& raw) {
  ToolArgs args("compare", raw,
                {"paths", "report", "baseline", "baseline_report", "history", "branch", "rules", "set",
                 "disable", "options"});
  AnalyzeRequest request;
  std::optional<std::string> run_id = args.text("report");
  if (run_id && args.has("paths")) throw ConfigError("compare: give the run as paths or as report, not both");
  if (run_id) {
    // The same run analysed again, as it was, now against the baseline.
    request = session.report(*run_id).request;
    request.gate.baseline_paths.clear();
    request.gate.history = {};
  } else {
    request.paths = checked_paths(session, args.texts("paths"));
    if (request.paths.empty()) throw ConfigError("compare: give the run (paths, or report: an analyze id)");
  }
  if (!run_id || args.has("rules") || args.has("set") || args.has("disable") || args.has("options")) {
    AnalyzeRequest fresh;
    read_gate_and_options(session, args, fresh);
    request.gate = fresh.gate;
    request.options = fresh.options;
  }
  std::vector<Baseline> given;
  if (std::optional<std::string> id = args.text("baseline_report")) {
    const StoredReport& base = session.report(*id);
    given.push_back(baseline_from_report(*base.model, "report " + base.id, "report"));
  }
  request.gate.baseline_paths = checked_paths(session, args.texts("baseline", 16));
  if (std::optional<std::string> history = args.text("history")) {
    request.gate.baseline_paths.push_back(session.roots().check(*history));
    if (std::optional<std::string> branch = args.text("branch"))
      request.gate.history.baseline_branch = *branch;
  }
  if (given.empty() && request.gate.baseline_paths.empty())
    throw ConfigError(
        "compare: give a baseline (baseline: paths of a report or profiles, baseline_report: an "
        "analyze id, or history: a run history)");
  const StoredReport& report = run_engine(session, std::move(request), std::move(given));
  return report_summary(report, true);
}

}  // namespace perfgate::cli::mcp
