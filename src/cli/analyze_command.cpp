// perfgate analyze PROFILE...: load, analyse, report.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/history_options.h"
#include "cli/outputs.h"
#include "cli/pipeline.h"
#include "cli/progress.h"
#include "perfgate/analysis.h"
#include "perfgate/baseline.h"
#include "perfgate/build_report.h"
#include "perfgate/errors.h"
#include "perfgate/gate.h"
#include "perfgate/history.h"
#include "perfgate/load.h"
#include "perfgate/render.h"
#include "perfgate/report.h"
#include "perfgate/rules.h"
#include "perfgate/trend.h"

namespace perfgate::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> profiles;
  std::vector<std::string> rule_files;
  std::vector<std::string> settings;
  std::vector<std::string> disabled;
  bool print_effective_rules = false;
  std::vector<std::string> baseline_paths;
  std::string fail_on = "error";
  int warnings_exit_code = 0;
  OutputArgs outputs;
  std::optional<std::int64_t> iter_start;
  std::optional<std::int64_t> iter_stop;
  std::int64_t skip_first = 0;
  std::string key_op;
  std::string step_pattern;
  bool quiet = false;
  bool no_progress = false;
  bool no_color = false;
  unsigned threads = 0;
  std::size_t detailed_workers = AnalysisOptions{}.detailed_workers;
  std::string max_input_memory;  // --max-input-memory; empty: PERFGATE_MAX_INPUT_MEMORY or the default
  HistoryArgs history;
};

// The memory limit on each input (perfgate/load.h): --max-input-memory, else the environment's.
std::uint64_t max_input_memory(const AnalyzeArgs& a) {
  if (a.max_input_memory.empty()) return max_input_memory_from_environment();
  if (auto bytes = parse_byte_size(a.max_input_memory)) return *bytes;
  throw ConfigError(
      fmt::format("--max-input-memory {}: not a size (e.g. 8G, 512M or a number of bytes; 0: "
                  "no limit)",
                  a.max_input_memory));
}

bool use_color(const AnalyzeArgs& a) {
  if (a.no_color || std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && term && std::string_view(term) != "dumb";
}

// Loads, analyses and describes profiles as a report model; each worker's events are freed as
// soon as it is analysed.
ReportModel report_of(const std::vector<std::string>& paths, const RuleSet& rules,
                      const AnalysisOptions& options, const AnalyzeArgs& a) {
  LoadOptions load_options;
  load_options.read_driver_calls = rules.classification.count_driver_api_calls;
  load_options.max_threads = a.threads;
  load_options.max_input_memory = max_input_memory(a);
  auto progress = std::make_shared<ProgressLine>(!a.no_progress && stderr_is_terminal());
  load_options.progress = [progress](std::uint64_t done, std::uint64_t total) {
    if (total >= kProgressMinBytes) progress->update(done, total);
  };
  std::vector<InputFile> inputs = resolve_inputs(paths);
  RunAnalysis analysis = load_and_analyse(inputs, load_options, rules.classification, options);
  progress->finish();
  return build_report(report_inputs(inputs), std::move(analysis), rules.sources, options);
}

// A previous JSON report, or a profile analysed with the same rules and window options.
Baseline load_baseline(const std::string& path, const RuleSet& rules, const AnalysisOptions& options,
                       const AnalyzeArgs& a) {
  try {
    if (is_report_file(path)) return read_baseline_report(path, max_input_memory(a));
    return baseline_from_report(report_of({path}, rules, options, a), path, "profile");
  } catch (const InputError& e) {
    throw InputError(fmt::format("baseline: {}", e.what()));
  }
}

FailOn fail_on(const std::string& text) {
  return text == "warning" ? FailOn::Warning : text == "never" ? FailOn::Never : FailOn::Error;
}

AnalysisOptions analysis_options(const AnalyzeArgs& a) {
  AnalysisOptions options;
  options.window.iter_start = a.iter_start;
  options.window.iter_stop = a.iter_stop;
  options.window.skip_first = a.skip_first;
  options.key_op = a.key_op;
  options.step_pattern = a.step_pattern;
  options.detailed_workers = a.detailed_workers;
  return options;
}

// Every file the run reads, which no output may name: profiles, baselines, and the history it
// records into (a database URI names no file).
std::vector<std::string> inputs_of(const AnalyzeArgs& a) {
  std::vector<std::string> inputs = a.profiles;
  inputs.insert(inputs.end(), a.baseline_paths.begin(), a.baseline_paths.end());
  if (!a.history.history.empty() && !is_postgres_location(a.history.history))
    inputs.push_back(a.history.history);
  return inputs;
}

int run_analyze(const AnalyzeArgs& a) {
  if (a.iter_start && a.iter_stop && *a.iter_start > *a.iter_stop)
    throw ConfigError(fmt::format("--iter-start {} is after --iter-stop {}", *a.iter_start, *a.iter_stop));
  RuleSet rules = load_rules(a.rule_files);
  apply_rule_overrides(rules, a.settings, a.disabled);
  if (a.print_effective_rules) {
    std::cout << effective_rules_yaml(rules) << std::flush;
    return kExitPass;
  }
  if (a.profiles.empty())
    throw ConfigError("analyze: give at least one profile (a trace file or a run folder)");
  max_input_memory(a);  // a malformed limit is a usage error before any work
  check_output_paths(a.outputs, inputs_of(a));

  AnalysisOptions options = analysis_options(a);
  // A malformed --label or PostgreSQL connection string is a usage error before any work. The
  // commit labels the current run in the recent trend too.
  RunLabels labels = labels_of(a.history.labels);
  check_history_location(a.history.history);
  for (const std::string& path : a.baseline_paths) check_history_location(path);
  // Report and profile baselines are read first, so that a bad one fails before the analysis; a
  // history's runs are chosen after it, by the run's GPUs.
  std::vector<Baseline> runs;
  std::vector<HistorySource> histories;
  for (const std::string& path : a.baseline_paths) {
    // The --history of this command is a history, even while it is an empty SQLite file.
    if (path == a.history.history || is_history_location(path))
      histories.push_back(open_history_source(path));
    else
      runs.push_back(load_baseline(path, rules, options, a));
  }
  ReportModel report = report_of(a.profiles, rules, options, a);
  GateOptions gate{fail_on(a.fail_on), a.warnings_exit_code, ""};
  std::vector<HistoryRun> history_runs;
  add_history_baselines(histories, a.history, report, runs, history_runs, gate);
  std::optional<Baseline> baseline;
  if (!runs.empty()) baseline = combine_baselines(std::move(runs));
  apply_gate(report, rules, baseline ? &*baseline : nullptr, gate);
  if (report.baseline && !history_runs.empty())
    report.baseline->trends = recent_trends(history_runs, report, rules, labels.commit);
  OutputArgs outputs = a.outputs;
  outputs.warnings_fail = a.fail_on == "warning";
  if (outputs.gitlab_path.empty()) outputs.gitlab_path = default_gitlab_path(labels, a.profiles);
  LoadOptions budget;  // the reports take the threads one input would: --threads, else the usable cores
  budget.max_threads = a.threads;
  bool written = write_outputs(report, rules, outputs, threads_per_input(budget, 1));
  if (!a.quiet) std::cout << render_terminal(report, TerminalOptions{use_color(a)}) << std::flush;
  // Recorded whatever the verdict: a history keeps every run, and the gate reads a branch's.
  bool recorded = !a.history.record || record_run(report, a.history, labels);
  return written && recorded ? report.verdict->exit_code : kExitInput;
}

}  // namespace

std::function<int()> add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand("analyze", "Analyse profiles: steps, GPU use, breakdown, Tensor Cores");
  cmd->alias("analyse");
  cmd->add_option("profiles", args->profiles,
                  "Kineto traces (.json, .json.gz), Nsight Systems SQLite exports (.sqlite) or run folders; "
                  "several files are the workers of one run");
  add_output_options(*cmd, args->outputs);
  cmd->add_option("--rules", args->rule_files,
                  "Rule file (YAML) applied on top of the shipped 'default' set; repeatable. "
                  "Shipped names: default, tb-plugin")
      ->type_name("FILE");
  cmd->add_option("--baseline", args->baseline_paths,
                  "Compare with a previous JSON report, a profile (analysed the same way), or a run history "
                  "(its last --baseline-runs runs of --baseline-branch on the same GPUs); repeatable: "
                  "several baselines are pooled")
      ->type_name("FILE|DB");
  add_history_options(*cmd, args->history);
  cmd->add_option("--set", args->settings,
                  "Override a rule setting, e.g. --set gpu.low-utilization.warn=40; repeatable")
      ->type_name("ID.KEY=VALUE");
  cmd->add_option("--disable", args->disabled, "Disable a rule by id; repeatable")->type_name("ID");
  cmd->add_option(
         "--fail-on", args->fail_on,
         "What fails the gate (exit 1): error (failing rules, the default), warning (also warnings), never")
      ->check(CLI::IsMember({"error", "warning", "never"}));
  cmd->add_option("--warnings-exit-code", args->warnings_exit_code,
                  "Exit code when the gate passes with warnings (default 0), for CI systems that show it")
      ->type_name("N")
      ->check(CLI::Range(0, 255));
  cmd->add_flag("--print-effective-rules", args->print_effective_rules,
                "Print the rules after every --rules, --set and --disable as one YAML file, and exit");
  cmd->add_option("--iter-start", args->iter_start,
                  "First step in the aggregation window (N of ProfilerStep#N)")
      ->type_name("N");
  cmd->add_option("--iter-stop", args->iter_stop, "Last step in the aggregation window (inclusive)")
      ->type_name("N");
  cmd->add_option("--skip-first", args->skip_first, "Drop the first N steps of the window (warm-up)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--key-op", args->key_op,
                  "Regex: every start of a matching op or annotation begins a step (DLProf's key node)")
      ->type_name("REGEX");
  cmd->add_option("--step-pattern", args->step_pattern,
                  "Regex for the names of step ranges (whole name; first group = step number), for this "
                  "run. Default: the rules' profiler_step_ranges (ProfilerStep#N) or, for nsys exports, "
                  "nvtx_step_ranges (also step/iteration names such as 'train_step 3')")
      ->type_name("REGEX");
  cmd->add_option("--threads", args->threads,
                  "Threads that read the profiles and write the reports (default 0: one per core); a large "
                  "trace is parsed in pieces on all of them, several files one per thread, several reports "
                  "side by side")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--detailed-workers", args->detailed_workers,
                  "Workers of a run whose every table the report keeps (default 8; 0: all): the first, the "
                  "slowest, the fastest, then the next slowest. The others keep their metrics, steps, "
                  "iterations and collectives, and count in the run's ops, kernels and regions")
      ->type_name("N");
  cmd->add_option(
         "--max-input-memory", args->max_input_memory,
         "The most memory one input (a trace, a baseline report) may make perfgate hold: its events, "
         "names and tables (default 4G, or PERFGATE_MAX_INPUT_MEMORY; 0: no limit). Past it the "
         "input is refused (exit 3)")
      ->type_name("SIZE");
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing on success");
  cmd->add_flag("--no-progress", args->no_progress, "No progress line on stderr");
  cmd->add_flag("--no-color", args->no_color, "No colour in the terminal summary (also: NO_COLOR)");
  return [args] { return run_analyze(*args); };
}

}  // namespace perfgate::cli
