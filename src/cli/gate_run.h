// What analyze and merge share once a run's report can be made: the options that make its request
// (the rules, the baselines and the history, the gate, the limits), and the report files and the
// terminal summary written from the engine's gated run.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cli/history_options.h"
#include "cli/outputs.h"
#include "engine/engine.h"
#include "engine/memory_budget.h"

namespace perfgate::cli {

struct GateArgs {
  std::vector<std::string> rule_files;
  std::vector<std::string> settings;
  std::vector<std::string> disabled;
  std::string workload;  // --workload: the capture's workload over the analysis' (empty: the analysis')
  std::vector<std::string> baseline_paths;
  std::string baseline_name;  // --baseline-name: how the reports name the baseline
  std::string fail_on = "error";
  int warnings_exit_code = 0;
  OutputArgs outputs;
  bool quiet = false;
  bool no_progress = false;
  bool no_color = false;
  unsigned threads = 0;
  std::string max_input_memory;  // --max-input-memory; empty: PERFGATE_MAX_INPUT_MEMORY or the default
  MemoryBudgetArgs memory;       // --max-memory, --spill-dir
  HistoryArgs history;
  // The input warnings the run already said on stderr as it loaded: -q says the run's other
  // warnings after it, not these a second time. Shared, so that a const GateArgs can note them.
  std::shared_ptr<std::vector<Note>> said_on_stderr = std::make_shared<std::vector<Note>>();
};

// The report outputs, --rules, --set, --disable, the baselines and the history, --fail-on,
// --threads, --max-input-memory, --max-memory, --spill-dir and the terminal's flags.
void add_gate_options(CLI::App& cmd, GateArgs& args);

// The request of a run with these options: its rules, baselines, history with its labels, gate,
// limits (the memory budget among them), and the progress line and input warnings on stderr.
// Throws ConfigError for a malformed limit or label, before any work.
RunRequest run_request(const GateArgs& a, RunInputKind kind, std::vector<std::string> paths,
                       AnalysisOptions options);

// Says on stderr what the run's memory budget (its request's, applied) spilled (nothing with -q)
// and any failure to spill.
void finish_memory_budget(const GateArgs& a, const MemoryBudget& budget);

// Checks the outputs against what the run reads, runs it through the engine, writes the outputs,
// prints the summary and records the run. Returns the exit code.
int gate_and_write(const GateArgs& a, const PreparedRun& run);

}  // namespace perfgate::cli
