#include "cli/history_options.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "perfgate/errors.h"

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
  return merge_labels(ci_labels([](const char* name) { return std::getenv(name); }), explicit_labels);
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
      ->check(CLI::PositiveNumber);
  cmd.add_option("--baseline-branch", args.baseline_branch,
                 "With a history as --baseline: the branch whose runs are the baseline (default main)")
      ->type_name("NAME");
}

HistorySource open_history_source(const std::string& location) {
  std::error_code ec;
  if (!is_postgres_location(location) && !std::filesystem::exists(location, ec)) return {location, nullptr};
  try {
    return {location, open_history(location, HistoryAccess::Read)};
  } catch (const InputError& e) {
    throw InputError(fmt::format("baseline: {}", e.what()));
  }
}

void add_history_baselines(std::vector<HistorySource>& sources, const HistoryArgs& args,
                           const ReportModel& report, std::vector<Baseline>& runs,
                           std::vector<HistoryRun>& history_runs, GateOptions& gate,
                           std::vector<std::string>& warnings) {
  std::vector<std::string> reasons;
  std::vector<std::string> gpus = gpu_names(report);
  for (HistorySource& source : sources) {
    if (!source.store) {
      reasons.push_back(
          fmt::format("the history {} does not exist yet: the regression rules compare once a run of branch "
                      "'{}' is recorded",
                      source.location, args.baseline_branch));
      continue;
    }
    HistoryBaselines chosen;
    try {
      chosen = history_baselines(*source.store, args.baseline_branch, gpus, args.baseline_runs);
    } catch (const InputError& e) {
      throw InputError(fmt::format("baseline: {}", e.what()));
    }
    if (!chosen.warning.empty()) warnings.push_back(chosen.warning);
    if (chosen.runs.empty()) reasons.push_back(chosen.skip_reason);
    for (Baseline& b : chosen.runs) runs.push_back(std::move(b));
    if (chosen.runs.empty()) continue;
    HistoryQuery metrics_only{args.baseline_branch, gpus, gpus.empty(), args.baseline_runs, false};
    for (HistoryRun& run : source.store->runs(metrics_only)) history_runs.push_back(std::move(run));
  }
  if (runs.empty() && !reasons.empty()) gate.no_baseline_reason = fmt::format("{}", fmt::join(reasons, "; "));
}

bool record_run(const ReportModel& report, const HistoryArgs& args, const RunLabels& labels) {
  try {
    std::unique_ptr<HistoryStore> store = open_history(args.history, HistoryAccess::Record);
    store->record(history_run_of(report, labels, utc_now()));
    return true;
  } catch (const ConfigError&) {
    throw;  // a malformed connection string: a usage error
  } catch (const std::exception& e) {
    // Messages of the store begin with its location already.
    std::string where = describe_history_location(args.history);
    std::string_view what = e.what();
    std::cerr << (what.starts_with(where)
                      ? fmt::format("perfgate: cannot record the run: {}\n", what)
                      : fmt::format("perfgate: cannot record the run in {}: {}\n", where, what));
    return false;
  }
}

}  // namespace perfgate::cli
