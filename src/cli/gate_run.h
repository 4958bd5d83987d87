// What analyze and merge share once a run's report can be made: the rules, the baselines and the
// history, the gate, the report files and the terminal summary, with the options that set them.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/history_options.h"
#include "cli/memory_budget.h"
#include "cli/outputs.h"
#include "perfgate/analysis_fwd.h"
#include "perfgate/baseline.h"
#include "perfgate/report.h"
#include "perfgate/rules.h"

namespace perfgate::cli {

struct GateArgs {
  std::vector<std::string> rule_files;
  std::vector<std::string> settings;
  std::vector<std::string> disabled;
  std::vector<std::string> baseline_paths;
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
};

// The report outputs, --rules, --set, --disable, the baselines and the history, --fail-on,
// --threads, --max-input-memory, --max-memory, --spill-dir and the terminal's flags.
void add_gate_options(CLI::App& cmd, GateArgs& args);

// The memory limit on each input (perfgate/load.h): --max-input-memory, else the environment's.
std::uint64_t max_input_memory(const GateArgs& a);
// Sets the run's memory budget (--max-memory) before any work; a malformed one is a usage error.
void start_memory_budget(const GateArgs& a);
// Says on stderr what the budget spilled (nothing with -q) and any failure to spill.
void finish_memory_budget(const GateArgs& a);
// The shipped rules with --rules, --set and --disable applied.
RuleSet rules_of(const GateArgs& a);

// Loads, analyses and describes profiles as a report model; each worker's events are freed as
// soon as it is analysed.
ReportModel report_of(const std::vector<std::string>& paths, const RuleSet& rules,
                      const AnalysisOptions& options, const GateArgs& a);

// The run's report gated as `perfgate analyze` gates it, writing nothing: the baselines read (reports,
// profiles, histories), the report made with `make_report`, the baseline's changes, the gate's
// findings and the recent trends put in; `given`: baselines already read, pooled with those of
// a.baseline_paths. `perfgate mcp` shares it with gate_and_write.
struct GatedReport {
  ReportModel report;
  RunLabels labels;  // --label and the CI's, for a history record
};
GatedReport gated_report(const GateArgs& a, const RuleSet& rules, const AnalysisOptions& options,
                         const std::function<ReportModel()>& make_report, std::vector<Baseline> given = {});

// Checks the outputs against `reads` (every file the run reads besides the baselines and the
// history), reads the baselines, makes the report with `make_report`, gates it, writes the outputs,
// prints the summary and records the run. `profiles` name the run's traces (GitLab's default
// path). Returns the exit code.
int gate_and_write(const GateArgs& a, const RuleSet& rules, const AnalysisOptions& options,
                   const std::vector<std::string>& reads, const std::vector<std::string>& profiles,
                   const std::function<ReportModel()>& make_report);

}  // namespace perfgate::cli
