// What analyze and merge share once a run's report can be made: the options that make its request
// (the rules, the baselines and the history, the gate, the limits), and the report files and the
// terminal summary written from the engine's gated run.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cli/outputs.h"
#include "engine/engine.h"
#include "engine/memory_budget.h"
#include "engine/request_options.h"

namespace perfgate::cli {

struct GateArgs {
  RequestSettings settings;  // the run's options (engine/request_options.def)
  OutputArgs outputs;
  bool quiet = false;
  bool verbose = false;  // every section of the terminal summary, not one screen
  bool no_progress = false;
  bool no_color = false;
  // The input warnings the run already said on stderr as it loaded: -q says the run's other
  // warnings after it, not these a second time. Shared, so that a const GateArgs can note them.
  std::shared_ptr<std::vector<Note>> said_on_stderr = std::make_shared<std::vector<Note>>();
};

// The report outputs, the run's options `shown_by` shows (kShownByAnalyze, kShownByMerge: the rules,
// baselines, history, gate and limits, and analyze's window and analysis) and the terminal's flags.
void add_gate_options(CLI::App& cmd, GateArgs& args, unsigned shown_by);

// The request of a run with these options (apply_settings: its rules, analysis options, baselines,
// history with its labels, gate, limits with the memory budget), and the progress line and input
// warnings on stderr. Throws ConfigError for a malformed limit or label, before any work.
RunRequest run_request(const GateArgs& a, RunInputKind kind, std::vector<std::string> paths);

// Says on stderr what the run's memory budget (its request's, applied) spilled (nothing with -q)
// and any failure to spill.
void finish_memory_budget(const GateArgs& a, const MemoryBudget& budget);

// Checks the outputs against what the run reads, runs it through the engine, writes the outputs,
// prints the summary and records the run. Returns the exit code.
int gate_and_write(const GateArgs& a, const PreparedRun& run);

}  // namespace perfgate::cli
