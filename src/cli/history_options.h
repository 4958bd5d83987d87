// analyze's run-history options: --history DB --record with its labels, and the history as a
// --baseline (the last runs of a branch on the same GPUs); the engine reads and records it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "history/history.h"

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

}  // namespace perfgate::cli
