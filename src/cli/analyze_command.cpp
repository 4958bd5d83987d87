// perfgate analyze PROFILE...: load, analyse, report; or, with --partial, the part of a run that
// these profiles are, for perfgate merge.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/gate_run.h"
#include "common/errors.h"
#include "engine/engine.h"
#include "engine/front_end_support.h"

namespace perfgate::cli {
namespace {

// analyze's options besides the run's (GateArgs::settings, engine/request_options.def).
struct AnalyzeArgs {
  std::vector<std::string> profiles;
  GateArgs gate;
  bool print_effective_rules = false;
  std::string partial;  // --partial FILE
  std::string slice;    // --slice K/N
};

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
                 !o.xlsx.empty() || !o.junit.empty() || o.github || !o.gitlab.empty() ||
                 !o.annotated_trace.path.empty();
  if (reports || !g.settings.baseline.empty() || !g.settings.history.empty())
    throw ConfigError(
        "--partial writes only the partial report: give the reports, --baseline and --history to "
        "perfgate merge");
}

int run_analyze(const AnalyzeArgs& a) {
  const RequestSettings& settings = a.gate.settings;
  WindowOptions steps;
  steps.iter_start = settings.iter_start;
  steps.iter_stop = settings.iter_stop;
  check_step_window(steps);  // before the rules are read
  auto book =
      std::make_shared<const RuleBook>(load_rule_book(settings.rules, settings.set, settings.disable));
  keep_until_exit(book);
  if (a.print_effective_rules) {
    std::cout << effective_rules_text(*book) << std::flush;
    return kExitPass;
  }
  if (a.profiles.empty())
    throw ConfigError("analyze: give at least one profile (a trace file or a run folder)");
  check_partial_options(a);
  RunRequest request = run_request(a.gate, RunInputKind::Profiles, a.profiles);
  // The step timeline and the path on it are tables only the JSON, HTML and XLSX reports (and a
  // partial report, which is JSON for the merge) show.
  const OutputArgs& o = a.gate.outputs;
  request.options.step_timeline = !a.partial.empty() || !o.json.empty() || !o.html.empty() || !o.xlsx.empty();
  Slice slice = a.slice.empty() ? Slice{} : parse_slice(a.slice);
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
    add_gate_options(c, args->gate, kShownByAnalyze);
    add_annotated_trace_options(c, args->gate.outputs.annotated_trace);
    add_options_apart(c, [&args](CLI::App& own) {
      own.add_flag("--print-effective-rules", args->print_effective_rules,
                   "Print the rules after every --rules, --set and --disable as one YAML file, and exit");
      own.add_option(
             "--partial", args->partial,
             "Write only a partial report of these profiles (a .pgp file) for `perfgate merge`, which "
             "makes the run's reports and gate from the parts: run it where each part's traces are")
          ->type_name("FILE");
      own.add_option(
             "--slice", args->slice,
             "With --partial: only the K-th (from 0) of N near-equal slices of the profiles' files, in "
             "natural path order (a Slurm array task or a Kubernetes Indexed Job's index)")
          ->type_name("K/N");
    });
  });
  return [args] { return run_analyze(*args); };
}

}  // namespace perfgate::cli
