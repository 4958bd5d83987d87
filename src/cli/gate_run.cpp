#include "cli/gate_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/number_checks.h"
#include "cli/progress.h"
#include "common/errors.h"
#include "render/escape.h"
#include "render/render.h"

namespace perfgate::cli {
namespace {

bool use_color(const GateArgs& a) {
  if (a.no_color || std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && term && std::string_view(term) != "dumb";
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
  cmd.add_option("--baseline-name", args.baseline_name,
                 "How the reports name the baseline (default: the --baseline paths as given), for a baseline "
                 "passed through a temporary file")
      ->type_name("TEXT");
  add_history_options(cmd, args.history);
  cmd.add_option("--set", args.settings,
                 "Override a rule setting, e.g. --set gpu.low-utilization.warn=40; repeatable")
      ->type_name("ID.KEY=VALUE");
  cmd.add_option("--disable", args.disabled, "Disable a rule by id; repeatable")->type_name("ID");
  cmd.add_option("--workload", args.workload,
                 "What the capture does, in place of what the analysis decided (the capture profile; over a "
                 "rule file's capture: workload): training, serving, offline-inference, benchmark")
      ->check(CLI::IsMember({"training", "serving", "offline-inference", "benchmark"}));
  cmd.add_option(
         "--fail-on", args.fail_on,
         "What fails the gate (exit 1): error (failing rules, the default), warning (also warnings), "
         "inconclusive (errors and inconclusive findings: a comparison that could not be made, such as no "
         "steps to compare), never")
      ->check(CLI::IsMember({"error", "warning", "inconclusive", "never"}));
  cmd.add_option("--warnings-exit-code", args.warnings_exit_code,
                 "Exit code when the gate passes with warnings (default 0), for CI systems that show it")
      ->type_name("N")
      ->check(whole_number(0, 255));
  cmd.add_option("--threads", args.threads,
                 "Threads that read the profiles and write the reports (default 0: one per core the "
                 "load leaves free, and one for an input under 8 MiB of text); a large trace is parsed in "
                 "pieces on all of them, several files one per thread, several reports side by side")
      ->type_name("N")
      ->check(whole_number(0, 1024));
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

RunRequest run_request(const GateArgs& a, RunInputKind kind, std::vector<std::string> paths,
                       AnalysisOptions options) {
  RunRequest request;
  request.kind = kind;
  request.paths = std::move(paths);
  request.rules = {a.rule_files, a.settings, a.disabled, std::nullopt};
  if (!a.workload.empty())
    request.rules.workload = capture_enum_named<CaptureWorkload>(kCaptureWorkloadNames, a.workload);
  request.options = std::move(options);
  request.baselines = a.baseline_paths;
  request.baseline_name = a.baseline_name;
  request.history = {
      a.history.history, a.history.record, {}, a.history.baseline_runs, a.history.baseline_branch};
  request.gate = GateOptions{fail_on_named(a.fail_on), a.warnings_exit_code, ""};
  request.limits.threads = a.threads;
  request.limits.memory = memory_budget(a.memory);
  request.limits.max_input_memory = max_input_memory_of(a.max_input_memory);
  // A malformed --label is a usage error before any work. The commit labels the current run in
  // the recent trend too.
  request.history.labels = labels_of(a.history.labels);
  auto progress = std::make_shared<ProgressLine>(!a.no_progress && stderr_is_terminal());
  request.progress = [progress](std::uint64_t done, std::uint64_t total) {
    if (total >= kProgressMinBytes) progress->update(done, total);
  };
  request.on_loaded = [progress] { progress->finish(); };
  // A file of the run left out is said on stderr whatever the verbosity: -q prints nothing else,
  // and a gate that passes on fewer ranks than were given must not do so silently.
  request.on_input_warning = [said = a.said_on_stderr](const Note& w) {
    std::cerr << "perfgate: warning: " << log_text(note_text(w)) << '\n';
    said->push_back(w);
  };
  return request;
}

void finish_memory_budget(const GateArgs& a, const MemoryBudget& budget) {
  SpillSummary summary = spill_summary(budget);
  if (!summary.text.empty() && (summary.warning || !a.quiet)) std::cerr << log_text(summary.text) << '\n';
}

int gate_and_write(const GateArgs& a, const PreparedRun& run) {
  check_output_paths(a.outputs, run.reads, run.request.resolved.get());
  GatedRun gated = run_gated(run);
  const ReportModel& report = gated.report;
  const RunLabels& labels = run.request.history.labels;
  OutputArgs outputs = a.outputs;
  outputs.warnings_fail = run.request.gate.fail_on == FailOn::Warning;
  outputs.memory_budget = run.request.limits.memory.bytes;
  if (outputs.gitlab_path.empty()) outputs.gitlab_path = default_gitlab_path(labels, run.profiles);
  bool written = write_outputs(report, outputs, output_threads(a.threads));
  if (!a.quiet) std::cout << render_terminal(report, TerminalOptions{use_color(a)}) << std::flush;
  // Under -q the run's integrity is still said (a rank twice is counted twice by the metrics), once:
  // an input warning was said as the run loaded.
  if (a.quiet)
    for (const Note& warning : report.run_warnings)
      if (std::ranges::find(*a.said_on_stderr, warning) == a.said_on_stderr->end())
        std::cerr << log_text("perfgate: warning: " + note_text(warning)) << '\n' << std::flush;
  // Recorded whatever the verdict: a history keeps every run, and the gate reads a branch's.
  bool recorded = true;
  if (a.history.record) {
    try {
      record_run(report, run.request.history);
    } catch (const RecordError& e) {
      std::cerr << "perfgate: " << e.what() << '\n';
      recorded = false;
    }
  }
  return written && recorded ? report.verdict->exit_code : kExitInput;
}

}  // namespace perfgate::cli
