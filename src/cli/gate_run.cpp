#include "cli/gate_run.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

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
#include "perfgate/trend.h"
#include "render/escape.h"

namespace perfgate::cli {
namespace {

bool use_color(const GateArgs& a) {
  if (a.no_color || std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && term && std::string_view(term) != "dumb";
}

// A previous JSON report, or a profile analysed with the same rules and window options.
Baseline load_baseline(const std::string& path, const RuleSet& rules, const AnalysisOptions& options,
                       const GateArgs& a) {
  try {
    if (is_report_file(path)) return read_baseline_report(path, max_input_memory(a));
    AnalysisOptions baseline_options = options;
    baseline_options.step_timeline = false;  // a baseline's timeline is shown nowhere
    return baseline_from_report(report_of({path}, rules, baseline_options, a), path, "profile");
  } catch (const InputError& e) {
    throw InputError(fmt::format("baseline: {}", e.what()));
  }
}

FailOn fail_on(const std::string& text) {
  return text == "warning"        ? FailOn::Warning
         : text == "never"        ? FailOn::Never
         : text == "inconclusive" ? FailOn::Inconclusive
                                  : FailOn::Error;
}

// Every file the run reads, which no output may name: its own inputs, rule files, baselines, and
// the history it records into (a database URI names no file).
std::vector<std::string> files_read(const GateArgs& a, const std::vector<std::string>& reads) {
  std::vector<std::string> files = reads;
  files.insert(files.end(), a.rule_files.begin(), a.rule_files.end());
  files.insert(files.end(), a.baseline_paths.begin(), a.baseline_paths.end());
  if (!a.history.history.empty() && !is_postgres_location(a.history.history))
    files.push_back(a.history.history);
  return files;
}

}  // namespace

void add_gate_options(CLI::App& cmd, GateArgs& args) {
  add_output_options(cmd, args.outputs);
  cmd.add_option("--rules", args.rule_files,
                 "Rule file (YAML) applied on top of the shipped 'default' set; repeatable. "
                 "Shipped names: default, tb-plugin")
      ->type_name("FILE");
  cmd.add_option("--baseline", args.baseline_paths,
                 "Compare with a previous JSON report, a profile (analysed the same way), or a run history "
                 "(its last --baseline-runs runs of --baseline-branch on the same GPUs); repeatable: "
                 "several baselines are pooled")
      ->type_name("FILE|DB");
  add_history_options(cmd, args.history);
  cmd.add_option("--set", args.settings,
                 "Override a rule setting, e.g. --set gpu.low-utilization.warn=40; repeatable")
      ->type_name("ID.KEY=VALUE");
  cmd.add_option("--disable", args.disabled, "Disable a rule by id; repeatable")->type_name("ID");
  cmd.add_option(
         "--fail-on", args.fail_on,
         "What fails the gate (exit 1): error (failing rules, the default), warning (also warnings), "
         "inconclusive (errors and inconclusive findings: a comparison that could not be made, such as no "
         "steps to compare), never")
      ->check(CLI::IsMember({"error", "warning", "inconclusive", "never"}));
  cmd.add_option("--warnings-exit-code", args.warnings_exit_code,
                 "Exit code when the gate passes with warnings (default 0), for CI systems that show it")
      ->type_name("N")
      ->check(CLI::Range(0, 255));
  cmd.add_option("--threads", args.threads,
                 "Threads that read the profiles and write the reports (default 0: one per core); a large "
                 "trace is parsed in pieces on all of them, several files one per thread, several reports "
                 "side by side")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  cmd.add_option("--max-input-memory", args.max_input_memory,
                 "The most memory one input (a trace, a baseline report) may make perfgate hold: its events, "
                 "names and tables (default 4G, or PERFGATE_MAX_INPUT_MEMORY; 0: no limit). Past it the "
                 "input is refused (exit 3)")
      ->type_name("SIZE");
  cmd.add_option("--max-memory", args.memory.max_memory,
                 "The most anonymous memory the run may hold (default: half the machine's memory, or of "
                 "its cgroup's limit; PERFGATE_MAX_MEMORY; 0: no budget). Past it, event columns and other "
                 "blocks of 1 MiB or more go to a temporary file the kernel pages in and out: traces larger "
                 "than memory are analysed, more slowly")
      ->type_name("SIZE");
  cmd.add_option("--spill-dir", args.memory.spill_dir,
                 "Folder of the --max-memory spill file, on disk (default PERFGATE_SPILL_DIR, TMPDIR, else "
                 "/var/tmp); the file has no name and is gone when perfgate ends")
      ->type_name("DIR")
      ->check(non_empty_path);
  cmd.add_flag("-q,--quiet", args.quiet, "Print nothing on success");
  cmd.add_flag("--no-progress", args.no_progress, "No progress line on stderr");
  cmd.add_flag("--no-color", args.no_color, "No colour in the terminal summary (also: NO_COLOR)");
}

// The smallest limit that is not 0 (no limit): below it no input fits, and a fraction such as 0.5
// would otherwise round to 0 bytes and turn the limit off.
constexpr std::uint64_t kMinInputMemory = std::uint64_t{1} << 20;

std::uint64_t max_input_memory(const GateArgs& a) {
  const char* variable = std::getenv("PERFGATE_MAX_INPUT_MEMORY");
  bool from_option = !a.max_input_memory.empty();
  std::string text = from_option ? a.max_input_memory : variable ? variable : "";
  std::uint64_t bytes = 0;
  if (from_option) {
    std::optional<std::uint64_t> parsed = parse_byte_size(text);
    if (!parsed)
      throw ConfigError(
          fmt::format("--max-input-memory {}: not a size (e.g. 8G, 512M or a number of bytes; 0: "
                      "no limit)",
                      text));
    bytes = *parsed;
  } else {
    bytes = max_input_memory_from_environment();  // a malformed variable is refused there
  }
  if (text.empty() || bytes >= kMinInputMemory || (bytes == 0 && std::strtod(text.c_str(), nullptr) == 0))
    return bytes;
  throw ConfigError(fmt::format("{}{}: under 1 MiB, too little for any input (0: no limit)",
                                from_option ? "--max-input-memory " : "PERFGATE_MAX_INPUT_MEMORY=", text));
}

void start_memory_budget(const GateArgs& a) {
  apply_memory_budget(a.memory);
}

void finish_memory_budget(const GateArgs& a) {
  SpillSummary summary = spill_summary();
  if (!summary.text.empty() && (summary.warning || !a.quiet)) std::cerr << log_text(summary.text) << '\n';
}

RuleSet rules_of(const GateArgs& a) {
  RuleSet rules = load_rules(a.rule_files);
  apply_rule_overrides(rules, a.settings, a.disabled);
  return rules;
}

ReportModel report_of(const std::vector<std::string>& paths, const RuleSet& rules,
                      const AnalysisOptions& options, const GateArgs& a) {
  LoadOptions load_options;
  load_options.classification = &rules.classification;
  load_options.max_threads = a.threads;
  load_options.max_input_memory = max_input_memory(a);
  auto progress = std::make_shared<ProgressLine>(!a.no_progress && stderr_is_terminal());
  load_options.progress = [progress](std::uint64_t done, std::uint64_t total) {
    if (total >= kProgressMinBytes) progress->update(done, total);
  };
  LoadedAnalysis run = load_and_analyse(paths, load_options, rules.classification, options);
  progress->finish();
  // A file of the run left out is said on stderr whatever the verbosity: -q prints nothing else,
  // and a gate that passes on fewer ranks than were given must not do so silently.
  for (const std::string& w : run.inputs.warnings) std::cerr << "perfgate: warning: " << log_text(w) << '\n';
  return build_report(report_inputs(run.inputs.kept), std::move(run.analysis), rules.sources, options);
}

GatedReport gated_report(const GateArgs& a, const RuleSet& rules, const AnalysisOptions& options,
                         const std::function<ReportModel()>& make_report, std::vector<Baseline> given) {
  // A malformed --label or PostgreSQL connection string is a usage error before any work. The
  // commit labels the current run in the recent trend too.
  RunLabels labels = labels_of(a.history.labels);
  check_history_location(a.history.history);
  for (const std::string& path : a.baseline_paths) check_history_location(path);
  // Report and profile baselines are read first, so that a bad one fails before the analysis; a
  // history's runs are chosen after it, by the run's GPUs.
  std::vector<Baseline> runs = std::move(given);
  std::vector<HistorySource> histories;
  for (const std::string& path : a.baseline_paths) {
    // The --history of this command is a history, even while it is an empty SQLite file.
    if (path == a.history.history || is_history_location(path))
      histories.push_back(open_history_source(path));
    else
      runs.push_back(load_baseline(path, rules, options, a));
  }
  ReportModel report = make_report();
  GateOptions gate{fail_on(a.fail_on), a.warnings_exit_code, ""};
  std::vector<HistoryRun> history_runs;
  std::vector<std::string> history_warnings;
  add_history_baselines(histories, a.history, report, runs, history_runs, gate, history_warnings);
  add_warnings(report, std::move(history_warnings));
  std::optional<Baseline> baseline;
  if (!runs.empty()) baseline = combine_baselines(std::move(runs));
  apply_gate(report, rules, baseline ? &*baseline : nullptr, gate);
  if (report.baseline && !history_runs.empty())
    add_recent_trends(report, recent_trends(history_runs, report, rules, labels.commit));
  return {std::move(report), std::move(labels)};
}

int gate_and_write(const GateArgs& a, const RuleSet& rules, const AnalysisOptions& options,
                   const std::vector<std::string>& reads, const std::vector<std::string>& profiles,
                   const std::function<ReportModel()>& make_report) {
  max_input_memory(a);  // a malformed limit is a usage error before any work
  check_output_paths(a.outputs, files_read(a, reads));
  GatedReport gated = gated_report(a, rules, options, make_report);
  const ReportModel& report = gated.report;
  OutputArgs outputs = a.outputs;
  outputs.warnings_fail = a.fail_on == "warning";
  if (outputs.gitlab_path.empty()) outputs.gitlab_path = default_gitlab_path(gated.labels, profiles);
  LoadOptions budget;  // the reports take the threads one input would: --threads, else the usable cores
  budget.max_threads = a.threads;
  bool written = write_outputs(report, rules, outputs, threads_per_input(budget, 1));
  if (!a.quiet) std::cout << render_terminal(report, TerminalOptions{use_color(a)}) << std::flush;
  // Under -q the run's integrity is still said (a rank twice is counted twice by the metrics).
  if (a.quiet)
    for (const std::string& warning : report.run_warnings)
      std::cerr << log_text("perfgate: warning: " + warning) << '\n' << std::flush;
  // Recorded whatever the verdict: a history keeps every run, and the gate reads a branch's.
  bool recorded = !a.history.record || record_run(report, a.history, gated.labels);
  return written && recorded ? report.verdict->exit_code : kExitInput;
}

}  // namespace perfgate::cli
