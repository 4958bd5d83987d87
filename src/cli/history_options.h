// analyze's run-history options: --history DB --record with its labels, and the history as a
// --baseline (the last runs of a branch on the same GPUs).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "perfgate/baseline.h"
#include "perfgate/gate.h"
#include "perfgate/history.h"
#include "perfgate/report.h"

namespace perfgate::cli {

struct LabelArgs {
  std::string branch;
  std::string commit;
  std::vector<std::string> labels;  // KEY=VALUE
};

struct HistoryArgs {
  std::string history;
  bool record = false;
  LabelArgs labels;
  std::size_t baseline_runs = 10;
  std::string baseline_branch = "main";
};

// --branch, --commit, --label (shared by analyze and history import).
void add_label_options(CLI::App& cmd, LabelArgs& args);
// The labels of a run: the CI system's, with --branch, --commit and --label on top. Throws
// ConfigError for a malformed --label.
RunLabels labels_of(const LabelArgs& args);

void add_history_options(CLI::App& cmd, HistoryArgs& args);

// A --baseline that is a run history, opened before the analysis so that an unreadable store
// fails early; its runs are chosen after it, once the run's GPUs are known.
struct HistorySource {
  std::string location;
  std::unique_ptr<HistoryStore> store;  // none: a SQLite file that does not exist yet
};
HistorySource open_history_source(const std::string& location);

// Adds each history's baseline runs to `runs` (and, without their tables, to `history_runs`, for
// the recent trend next to the findings); when none gave any, says why in the gate options. A
// history with runs only on other GPUs than the report's adds a warning to `warnings`.
void add_history_baselines(std::vector<HistorySource>& sources, const HistoryArgs& args,
                           const ReportModel& report, std::vector<Baseline>& runs,
                           std::vector<HistoryRun>& history_runs, GateOptions& gate,
                           std::vector<std::string>& warnings);

// Records the gated report in the history (after the outputs are written). Returns false, after
// printing why on stderr, when it could not.
bool record_run(const ReportModel& report, const HistoryArgs& args, const RunLabels& labels);

}  // namespace perfgate::cli
