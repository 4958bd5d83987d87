// perfgate analyze PROFILE...: load, analyse, report.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/progress.h"
#include "perfgate/analysis.h"
#include "perfgate/errors.h"
#include "perfgate/load.h"
#include "perfgate/render.h"
#include "perfgate/report.h"
#include "perfgate/rules.h"

namespace perfgate::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> profiles;
  std::vector<std::string> rule_files;
  std::string json_path;
  std::optional<std::int64_t> iter_start;
  std::optional<std::int64_t> iter_stop;
  std::int64_t skip_first = 0;
  std::string key_op;
  bool quiet = false;
  bool no_progress = false;
  bool no_color = false;
};

bool use_color(const AnalyzeArgs& a) {
  if (a.no_color || std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && term && std::string_view(term) != "dumb";
}

int run_analyze(const AnalyzeArgs& a) {
  if (a.iter_start && a.iter_stop && *a.iter_start > *a.iter_stop)
    throw ConfigError(fmt::format("--iter-start {} is after --iter-stop {}", *a.iter_start, *a.iter_stop));
  RuleSet rules = load_rules(a.rule_files);

  AnalysisOptions options;
  options.window.iter_start = a.iter_start;
  options.window.iter_stop = a.iter_stop;
  options.window.skip_first = a.skip_first;
  options.key_op = a.key_op;

  LoadOptions load_options;
  auto progress = std::make_shared<ProgressLine>(!a.no_progress && stderr_is_terminal());
  load_options.progress = [progress](std::uint64_t done, std::uint64_t total) {
    if (total >= kProgressMinBytes) progress->update(done, total);
  };
  LoadedRun run = load_run(a.profiles, load_options);
  progress->finish();

  RunAnalysis analysis = analyse_run(run, rules.classification, options);
  std::vector<InputFile> inputs = std::move(run.inputs);
  run = LoadedRun{};  // the events are no longer needed: free them before the report grows
  ReportModel report = build_report(inputs, analysis, rules, options);
  if (!a.json_path.empty()) write_file_atomically(a.json_path, render_json(report));
  if (!a.quiet) std::cout << render_terminal(report, TerminalOptions{use_color(a)}) << std::flush;
  return kExitPass;
}

}  // namespace

std::function<int()> add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand("analyze", "Analyse profiles: steps, GPU use, breakdown, Tensor Cores");
  cmd->add_option("profiles", args->profiles,
                  "Trace files (.json, .json.gz) or run folders; several files are the workers of one run")
      ->required();
  cmd->add_option("--json", args->json_path, "Write the JSON report (schema perfgate-report/1) to FILE")
      ->type_name("FILE");
  cmd->add_option("--rules", args->rule_files,
                  "Rule file (YAML) applied on top of the shipped 'default' set; repeatable. "
                  "Shipped names: default, tb-plugin")
      ->type_name("FILE");
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
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing on success");
  cmd->add_flag("--no-progress", args->no_progress, "No progress line on stderr");
  cmd->add_flag("--no-color", args->no_color, "No colour in the terminal summary (also: NO_COLOR)");
  return [args] { return run_analyze(*args); };
}

}  // namespace perfgate::cli
