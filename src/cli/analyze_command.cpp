// perfgate analyze PROFILE...: load, analyse, report; or, with --partial, the part of a run that
// these profiles are, for perfgate merge.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/gate_run.h"
#include "cli/number_checks.h"
#include "common/errors.h"
#include "common/units.h"
#include "engine/engine.h"
#include "engine/front_end_support.h"

namespace perfgate::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> profiles;
  GateArgs gate;
  bool print_effective_rules = false;
  std::optional<std::int64_t> iter_start;
  std::optional<std::int64_t> iter_stop;
  std::int64_t skip_first = 0;
  std::optional<double> time_start_us;  // --time-start US
  std::optional<double> time_stop_us;   // --time-stop US
  std::optional<std::int32_t> device;   // --device N
  std::string key_op;
  std::string step_pattern;
  std::size_t detailed_workers = AnalysisOptions{}.detailed_workers;
  std::string partial;  // --partial FILE
  std::string slice;    // --slice K/N
  std::vector<std::string> graph_captures;
  std::string device_memory;  // --device-memory SIZE
  bool one_run = false;       // --one-run
};

AnalysisOptions analysis_options(const AnalyzeArgs& a) {
  AnalysisOptions options;
  options.window.iter_start = a.iter_start;
  options.window.iter_stop = a.iter_stop;
  options.window.skip_first = a.skip_first;
  if (a.time_start_us) options.window.time_start = window_time_ns("time_start", *a.time_start_us);
  if (a.time_stop_us) options.window.time_stop = window_time_ns("time_stop", *a.time_stop_us);
  options.device = a.device;
  options.key_op = a.key_op;
  options.step_pattern = a.step_pattern;
  options.detailed_workers = a.detailed_workers;
  options.graph_captures = a.graph_captures;
  if (!a.device_memory.empty()) options.device_memory = device_memory_bytes(a.device_memory);
  return options;
}

// A partial report is written alone: the run's reports and gate are the merge's.
void check_partial_options(const AnalyzeArgs& a) {
  if (a.partial.empty()) {
    if (!a.slice.empty())
      throw ConfigError("--slice needs --partial FILE: a slice of a run is a partial report");
    return;
  }
  const GateArgs& g = a.gate;
  const OutputArgs& o = g.outputs;
  bool reports = !o.json.empty() || !o.html.empty() || !o.markdown.empty() || !o.pr_comment.empty() ||
                 !o.xlsx.empty() || !o.junit.empty() || o.github || !o.gitlab.empty();
  if (reports || !g.baseline_paths.empty() || !g.history.history.empty())
    throw ConfigError(
        "--partial writes only the partial report: give the reports, --baseline and --history to "
        "perfgate merge");
}

RunRequest request_of(const AnalyzeArgs& a, const AnalysisOptions& options) {
  RunRequest request = run_request(a.gate, RunInputKind::Profiles, a.profiles, options);
  request.one_run = a.one_run;
  return request;
}

int run_analyze(const AnalyzeArgs& a) {
  WindowOptions steps;
  steps.iter_start = a.iter_start;
  steps.iter_stop = a.iter_stop;
  check_step_window(steps);  // before the rules are read
  auto book =
      std::make_shared<const RuleBook>(load_rule_book(a.gate.rule_files, a.gate.settings, a.gate.disabled));
  if (a.print_effective_rules) {
    std::cout << effective_rules_text(*book) << std::flush;
    return kExitPass;
  }
  if (a.profiles.empty())
    throw ConfigError("analyze: give at least one profile (a trace file or a run folder)");
  check_partial_options(a);
  AnalysisOptions options = analysis_options(a);
  // The step timeline and the path on it are tables only the JSON, HTML and XLSX reports (and a
  // partial report, which is JSON for the merge) show.
  const OutputArgs& o = a.gate.outputs;
  options.step_timeline = !a.partial.empty() || !o.json.empty() || !o.html.empty() || !o.xlsx.empty();
  Slice slice = a.slice.empty() ? Slice{} : parse_slice(a.slice);
  RunRequest request = request_of(a, options);
  MemoryBudget budget = request.limits.memory;
  apply_memory_budget(budget);  // for the allocator, before any work
  int code = kExitPass;
  if (!a.partial.empty()) {
    PreparedRun run = prepare_run(std::move(request), book);
    check_output_files({{"--partial", a.partial}}, run.reads, run.request.resolved.get());
    WrittenPartial w = write_partial(run, slice, a.partial);
    if (!a.gate.quiet)
      std::cout << fmt::format("perfgate: wrote {} ({} bytes): {} worker{} of {} input{}{}\n", a.partial,
                               w.bytes, w.workers, w.workers == 1 ? "" : "s", w.inputs,
                               w.inputs == 1 ? "" : "s",
                               slice.given ? fmt::format(" (slice {}/{})", slice.index, slice.count) : "")
                << std::flush;
  } else {
    code = gate_and_write(a.gate, prepare_run(std::move(request), book));
  }
  finish_memory_budget(a.gate, budget);
  return code;
}

}  // namespace

std::function<int()> add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand("analyze", "Analyse profiles: steps, GPU use, breakdown, Tensor Cores");
  cmd->alias("analyse");
  add_options_when_parsed(*cmd, [args](CLI::App& c) {
    c.add_option(
        "profiles", args->profiles,
        "Kineto traces (.json, .json.gz), Nsight Systems SQLite exports (.sqlite), Neuron profiles, "
        "JAX/TensorFlow XSpace profiles (.xplane.pb), rocprofv3 JSON (.json, .json.gz) or run folders; "
        "several files are the workers of one run");
    add_gate_options(c, args->gate);
    c.add_flag("--print-effective-rules", args->print_effective_rules,
               "Print the rules after every --rules, --set and --disable as one YAML file, and exit");
    c.add_option("--iter-start", args->iter_start,
                 "First step in the aggregation window (N of ProfilerStep#N)")
        ->type_name("N");
    c.add_option("--iter-stop", args->iter_stop, "Last step in the aggregation window (inclusive)")
        ->type_name("N");
    c.add_option("--skip-first", args->skip_first, "Drop the first N steps of the window (warm-up)")
        ->type_name("N")
        ->check(whole_number(0));
    c.add_option(
         "--time-start", args->time_start_us,
         "Window by time: only the steps that start at or after US microseconds of the trace's clock (the "
         "clock of the report's step starts), or without steps the trace from there")
        ->type_name("US");
    c.add_option(
         "--time-stop", args->time_stop_us,
         "Window by time: only the steps that end by US microseconds of the trace's clock, or without "
         "steps the trace up to there")
        ->type_name("US");
    c.add_option("--device", args->device,
                 "Analyse one GPU: only the work of the GPU with this device id (as the report's GPUs table "
                 "names it); the host's events stay the whole process's")
        ->type_name("N")
        ->check(whole_number(0, 1 << 20));
    c.add_option("--key-op", args->key_op,
                 "Regex: every start of a matching op or annotation begins a step (DLProf's key node)")
        ->type_name("REGEX");
    c.add_option(
         "--step-pattern", args->step_pattern,
         "Regex for the names of step ranges (whole name; first group = step number), for this "
         "run. Default: the rules' profiler_step_ranges (ProfilerStep#N) or, for nsys exports, "
         "nvtx_step_ranges (also step/iteration names such as 'train_step 3'), for XSpace profiles "
         "xspace_step_ranges (step_num markers, a 'train_step' annotation). 'inferred': the repeating "
         "top-level ranges perfgate infers where no step is marked")
        ->type_name("REGEX");
    c.add_option("--graph-capture", args->graph_captures,
                 "A graph-capture trace (or a folder of them, e.g. vLLM/SGLang's capture_traces/ with its "
                 "execution_details.json): its launches give each kernel a CUDA/HIP graph replayed its op, "
                 "shapes, modules and stack; repeatable. Default: capture_traces/ beside each trace")
        ->type_name("FILE|FOLDER");
    c.add_option("--device-memory", args->device_memory,
                 "Each GPU's memory (e.g. 80G; G is 2^30 bytes), for a PyTorch memory snapshot: its peak's "
                 "share of it (memory.snapshot_peak_pct) and the near-capacity rule, which without it need "
                 "an out-of-memory error in the trace to show the device's memory")
        ->type_name("SIZE");
    c.add_option("--detailed-workers", args->detailed_workers,
                 "Workers of a run whose every table the report keeps (default 8; 0: all): the first, the "
                 "slowest, the fastest, then the next slowest. The others keep their metrics, steps, "
                 "iterations and collectives, and count in the run's ops, kernels and regions")
        ->type_name("N");
    c.add_flag("--one-run", args->one_run,
               "The profiles are one run even where they are not one capture (their clocks differ, or "
               "their windows do not overlap): analyse them together, with notes that say so, instead of "
               "refusing them (exit 4)");
    c.add_option("--partial", args->partial,
                 "Write only a partial report of these profiles (a .pgp file) for `perfgate merge`, which "
                 "makes the run's reports and gate from the parts: run it where each part's traces are")
        ->type_name("FILE");
    c.add_option("--slice", args->slice,
                 "With --partial: only the K-th (from 0) of N near-equal slices of the profiles' files, in "
                 "natural path order (a Slurm array task or a Kubernetes Indexed Job's index)")
        ->type_name("K/N");
  });
  return [args] { return run_analyze(*args); };
}

}  // namespace perfgate::cli
