#include "cli/history_options.h"

#include "cli/number_checks.h"
#include "engine/engine.h"

namespace perfgate::cli {

void add_label_options(CLI::App& cmd, LabelArgs& args) {
  cmd.add_option("--branch", args.branch,
                 "Branch the run is recorded under (default: from the CI system's variables)")
      ->type_name("NAME");
  cmd.add_option("--commit", args.commit, "Commit the run is recorded under (default: from the CI system)")
      ->type_name("SHA");
  cmd.add_option("--label", args.labels,
                 "A label of the run, recorded with it; script=PATH or config=PATH also names the file "
                 "that --gitlab's findings point at; repeatable")
      ->type_name("KEY=VALUE");
}

RunLabels labels_of(const LabelArgs& args) {
  RunLabels explicit_labels{args.branch, args.commit, {}};
  for (const std::string& text : args.labels) explicit_labels.labels.push_back(parse_label(text));
  return run_labels(explicit_labels);
}

void add_history_options(CLI::App& cmd, HistoryArgs& args) {
  CLI::Option* history =
      cmd.add_option(
             "--history", args.history,
             "Run history to record into with --record: a SQLite file (created when missing, e.g. "
             "perfgate.db) or a PostgreSQL connection string (postgresql://... or host=... dbname=...)")
          ->type_name("DB");
  CLI::Option* record =
      cmd.add_flag("--record", args.record,
                   "Record this run in the --history after the gate (labels: --branch, --commit, "
                   "--label, and the CI system's variables)");
  record->needs(history);
  history->needs(record);
  add_label_options(cmd, args.labels);
  // --label also names the GitLab Code Quality path, so it needs no --record.
  for (const char* name : {"--branch", "--commit"}) cmd.get_option(name)->needs(record);
  cmd.add_option("--baseline-runs", args.baseline_runs,
                 "With a history as --baseline: compare with its last N runs (default 10)")
      ->type_name("N")
      ->check(whole_number(1));
  cmd.add_option("--baseline-branch", args.baseline_branch,
                 "With a history as --baseline: the branch whose runs are the baseline (default main)")
      ->type_name("NAME");
}

}  // namespace perfgate::cli
