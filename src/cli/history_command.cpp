// perfgate history import|list|trend: the run history outside a gate.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "cli/commands.h"
#include "cli/history_list.h"
#include "cli/number_checks.h"
#include "cli/request_flags.h"
#include "common/errors.h"
#include "common/units.h"
#include "history/history.h"
#include "render/escape.h"

namespace perfgate::cli {
namespace {

namespace fs = std::filesystem;

struct ImportArgs {
  std::string history;
  std::vector<std::string> paths;
  RequestSettings labels;  // --branch, --commit, --label (engine/request_options.def)
};

struct ListArgs {
  std::string history;
  bool json = false;
  std::string branch;
  std::size_t last = 0;
};

// The JSON reports in a folder and its subfolders, oldest file first (then by path), so that the
// history's ids follow the order the reports were written in.
std::vector<std::string> reports_in(const std::string& dir) {
  std::vector<std::pair<fs::file_time_type, std::string>> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && is_report_file(it->path().string()))
      found.emplace_back(it->last_write_time(ec), it->path().string());
  if (ec) throw InputError(fmt::format("{}: cannot list the folder: {}", dir, ec.message()));
  if (found.empty()) throw InputError(fmt::format("{}: no perfgate JSON report in the folder", dir));
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& [time, path] : found) paths.push_back(std::move(path));
  return paths;
}

// Every report is read before any is recorded: a bad one records nothing.
int run_import(const ImportArgs& a) {
  RunLabels explicit_labels = merge_labels({}, given_labels(a.labels));  // sorted, each key once
  std::vector<HistoryRun> runs;
  for (const std::string& path : a.paths) {
    std::vector<std::string> files{path};
    if (fs::is_directory(path))
      files = reports_in(path);
    else if (!is_report_file(path))
      throw InputError(fmt::format("{}: not a perfgate JSON report (perfgate analyze --json)", path));
    for (const std::string& file : files) runs.push_back(history_run_of_report_file(file, explicit_labels));
  }
  std::unique_ptr<HistoryStore> store = open_history(a.history, HistoryAccess::Record);
  std::int64_t first = 0, last = 0;
  for (const HistoryRun& run : runs) {
    last = store->record(run);
    if (!first) first = last;
  }
  std::cout << fmt::format("{}: imported {} run{} (ids {} to {})\n", terminal_escape(store->describe()),
                           runs.size(), runs.size() == 1 ? "" : "s", first, last);
  return kExitPass;
}

int run_list(const ListArgs& a) {
  std::unique_ptr<HistoryStore> store = open_history(a.history, HistoryAccess::Read);
  HistoryQuery query;
  query.branch = a.branch;
  query.last = a.last;
  query.with_tables = false;
  std::vector<HistoryRun> runs = store->runs(query);
  if (a.json)
    std::cout << render_history_json(runs);
  else if (runs.empty())
    std::cout << terminal_escape(fmt::format("{}: no runs{}", store->describe(),
                                             a.branch.empty() ? "" : " of branch " + a.branch))
              << '\n';
  else
    std::cout << render_history_table(runs);
  return kExitPass;
}

}  // namespace

std::function<int()> add_history_command(CLI::App& app) {
  CLI::App* history = app.add_subcommand("history", "The run history: import reports, list runs, trends");
  history->require_subcommand(1);

  // The subcommands when the parse reaches `history`, and each one's options when it reaches that
  // one (cli/commands.h).
  struct Made {
    std::shared_ptr<ImportArgs> import;
    std::shared_ptr<ListArgs> list;
    CLI::App* import_cmd = nullptr;
    CLI::App* list_cmd = nullptr;
    std::function<int()> trend;
  };
  auto made = std::make_shared<Made>();
  add_options_when_parsed(*history, [made](CLI::App& h) {
    auto import = std::make_shared<ImportArgs>();
    CLI::App* import_cmd =
        h.add_subcommand("import", "Add JSON reports (perfgate analyze --json) to a run history");
    add_options_when_parsed(*import_cmd, [import](CLI::App& c) {
      c.add_option("history", import->history,
                   "The history: a SQLite file (created when missing) or a "
                   "PostgreSQL connection string (postgresql://... or host=... dbname=...)")
          ->required()
          ->type_name("DB");
      c.add_option(
           "reports", import->paths,
           "JSON reports, plain or gzip, or folders searched for them; each becomes a run, dated by its "
           "file's modification time")
          ->required()
          ->type_name("REPORT.json|DIR");
      add_request_flags(c, import->labels, kShownByHistoryImport);
    });

    auto list = std::make_shared<ListArgs>();
    CLI::App* list_cmd = h.add_subcommand("list", "List the runs of a history, oldest first");
    add_options_when_parsed(*list_cmd, [list](CLI::App& c) {
      c.add_option("history", list->history, "The history: a SQLite file or a PostgreSQL connection string")
          ->required()
          ->type_name("DB");
      c.add_flag("--json", list->json,
                 "An array of runs: id, time, branch, commit, labels, gpus (name, count), tool_version, "
                 "steps_median_us");
      c.add_option("--branch", list->branch, "Only the runs of this branch")->type_name("NAME");
      c.add_option("--last", list->last, "Only the last N runs")->type_name("N")->check(whole_number(1));
    });

    // `history trend` lives in trend_command.cpp.
    *made = {import, list, import_cmd, list_cmd, add_trend_command(h)};
  });
  return [made] {
    if (made->import_cmd->parsed()) return run_import(*made->import);
    if (made->list_cmd->parsed()) return run_list(*made->list);
    return made->trend();
  };
}

}  // namespace perfgate::cli
