// A run prepared, gated and recorded: the rules read once, the inputs resolved, the baselines and
// the history read, the report made and gated (engine/engine.h).
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "engine/analyse_profiles.h"
#include "engine/engine.h"
#include "engine/front_end_support.h"
#include "gate/gate.h"
#include "history/history.h"
#include "load/load.h"
#include "report/build_report.h"
#include "report_model/trend.h"

namespace perfgate {
namespace {

// A previous JSON report, or a profile analysed with the same rules and window options.
Baseline load_baseline(const std::string& path, const RunRequest& request, const RuleBook& book) {
  try {
    if (is_report_file(path)) return read_baseline_report(path, request.limits.max_input_memory);
    AnalysisOptions options = request.options;
    options.step_timeline = false;  // a baseline's timeline is shown nowhere
    RunRequest baseline = request;
    baseline.paths = {path};
    return baseline_from_report(analyse_profiles(baseline, book, options), path, "profile");
  } catch (const InputError& e) {
    throw InputError(fmt::format("baseline: {}", e.what()));
  }
}

// A --baseline that is a run history, opened before the analysis so that an unreadable store
// fails early; its runs are chosen after it, once the run's GPUs are known.
struct HistorySource {
  std::string location;
  std::unique_ptr<HistoryStore> store;  // none: a SQLite file that does not exist yet
};

HistorySource open_history_source(const std::string& location) {
  std::error_code ec;
  if (!is_postgres_location(location) && !std::filesystem::exists(location, ec)) return {location, nullptr};
  try {
    return {location, open_history(location, HistoryAccess::Read)};
  } catch (const InputError& e) {
    throw InputError(fmt::format("baseline: {}", e.what()));
  }
}

// Adds each history's baseline runs to `runs` (and, without their tables, to `history_runs`, for
// the recent trend next to the findings); when none gave any, says why in the gate options. A
// history with runs only on other GPUs than the report's adds a warning to `warnings`.
void add_history_baselines(std::vector<HistorySource>& sources, const HistoryRequest& history,
                           const ReportModel& report, std::vector<Baseline>& runs,
                           std::vector<HistoryRun>& history_runs, GateOptions& gate,
                           std::vector<Note>& warnings) {
  std::vector<std::string> reasons;
  std::vector<std::string> gpus = gpu_names(report);
  for (HistorySource& source : sources) {
    if (!source.store) {
      reasons.push_back(
          fmt::format("the history {} does not exist yet: the regression rules compare once a run of branch "
                      "'{}' is recorded",
                      source.location, history.baseline_branch));
      continue;
    }
    HistoryBaselines chosen;
    try {
      chosen = history_baselines(*source.store, history.baseline_branch, gpus, history.baseline_runs);
    } catch (const InputError& e) {
      throw InputError(fmt::format("baseline: {}", e.what()));
    }
    if (chosen.warning) warnings.push_back(*chosen.warning);
    if (chosen.runs.empty()) reasons.push_back(chosen.skip_reason);
    for (Baseline& b : chosen.runs) runs.push_back(std::move(b));
    if (chosen.runs.empty()) continue;
    HistoryQuery metrics_only{history.baseline_branch, gpus, gpus.empty(), history.baseline_runs, false};
    for (HistoryRun& run : source.store->runs(metrics_only)) history_runs.push_back(std::move(run));
  }
  if (runs.empty() && !reasons.empty()) gate.no_baseline_reason = fmt::format("{}", fmt::join(reasons, "; "));
}

// The request's paths less those that name a profile given as bytes.
// One lookup a path: linear in the paths and the profiles, however many ranks are given as bytes.
std::vector<std::string> paths_on_disk(const RunRequest& request) {
  std::unordered_set<std::string_view> given;
  for (const ProfileBytes& profile : request.profile_bytes) given.insert(profile.name);
  std::vector<std::string> files;
  for (const std::string& path : request.paths)
    if (!given.count(path)) files.push_back(path);
  return files;
}

// Every file a run of profiles reads once its paths are resolved: the profiles as given, a run
// folder's traces, the graph-capture traces (named, or beside each trace) and their
// execution_details.json. A path that does not resolve is left to the loader, which says why; one
// that does is kept in the request, for the load (issue 78: a run folder listed and its files
// sniffed once).
std::vector<std::string> profile_files_read(RunRequest& request) {
  std::vector<std::string> files = paths_on_disk(request);
  const std::vector<std::string>& given = request.options.graph_captures;
  std::uint64_t limit = request.limits.max_input_memory;
  std::uint64_t budget = request.limits.memory.bytes;
  auto add = [&](const CaptureFiles& found) {
    files.insert(files.end(), found.read.begin(), found.read.end());
  };
  try {
    auto resolved = std::make_shared<ResolvedInputs>(
        ResolvedInputs{request.paths, resolve_inputs(request.paths, budget, request.profile_bytes)});
    std::set<std::string> folders;  // looked in for capture traces: the same ones for each trace there
    for (const InputFile& input : resolved->inputs) {
      if (input.held) continue;  // given as bytes: no file read
      files.push_back(input.path);
      if (given.empty() && folders.insert(captures_folder_of(input.path)).second)
        add(captures_beside(input.path, limit));
    }
    request.resolved = std::move(resolved);
  } catch (const InputError&) {
  }
  files.insert(files.end(), given.begin(), given.end());
  try {
    for (const std::string& capture : given) add(graph_capture_files(capture, limit, budget));
  } catch (const InputError&) {
  }
  return files;
}

// The smallest limit that is not 0 (no limit): below it no input fits, and a fraction such as 0.5
// would otherwise round to 0 bytes and turn the limit off.
constexpr std::uint64_t kMinInputMemory = std::uint64_t{1} << 20;

}  // namespace

void apply_gate(ReportModel& report, const RuleSet& rules, const Baseline* baseline,
                const GateOptions& options) {
  if (baseline) add_baseline(report, *baseline, rules.min_flops_coverage_pct);
  GateOutcome outcome = evaluate_gate(rules, report, baseline, options);
  add_gate(report, std::move(outcome.findings), std::move(outcome.rules), std::move(outcome.verdict),
           std::move(outcome.tables), std::move(outcome.terms));
}

FailOn fail_on_named(std::string_view name) {
  if (name == "error") return FailOn::Error;
  if (name == "warning") return FailOn::Warning;
  if (name == "inconclusive") return FailOn::Inconclusive;
  if (name == "never") return FailOn::Never;
  throw RequestError("fail_on", [given = std::string(name)](const RequestError::FieldNames& field) {
    return fmt::format("{} '{}': error, warning, inconclusive or never", field("fail_on"), given);
  });
}

void check_step_window(const WindowOptions& window) {
  if (window.iter_start && window.iter_stop && *window.iter_start > *window.iter_stop)
    throw RequestError("iter_start", [start = *window.iter_start,
                                      stop = *window.iter_stop](const RequestError::FieldNames& field) {
      return fmt::format("{} {} is after {} {}", field("iter_start"), start, field("iter_stop"), stop);
    });
}

void check_request(const RunRequest& request) {
  check_step_window(request.options.window);
  // A history as a baseline compares with its last N runs: none would be no baseline at all.
  if (request.history.baseline_runs == 0)
    throw RequestError("baseline_runs", [](const RequestError::FieldNames& field) {
      return fmt::format("{} 0: compare with at least 1 run of the history", field("baseline_runs"));
    });
  std::set<std::string_view> names;
  for (const ProfileBytes& given : request.profile_bytes)
    if (given.name.empty() || !names.insert(given.name).second)
      throw RequestError("profile_bytes", [name = given.name](const RequestError::FieldNames& field) {
        return name.empty() ? fmt::format("{}: a profile given as bytes needs a name", field("profile_bytes"))
                            : fmt::format("{}: two profiles given as bytes are named '{}'",
                                          field("profile_bytes"), name);
      });
}

PreparedRun prepare_run(RunRequest request, std::shared_ptr<const RuleBook> book) {
  bool partials = request.kind == RunInputKind::Partials;
  if (partials && request.paths.empty())
    throw ConfigError("merge: give the partial reports (.pgp files, or folders of them)");
  check_request(request);
  if (!book)
    book = std::make_shared<const RuleBook>(
        load_rule_book(request.rules.files, request.rules.settings, request.rules.disabled));
  PreparedRun run{std::move(request), std::move(book), std::nullopt, {}, {}};
  RunRequest& r = run.request;
  if (partials) {
    run.partials = read_partial_headers(r.paths, *run.book, r.allow_missing_ranks, r.limits.max_input_memory);
    r.options = run.partials->options;
    run.reads = run.partials->files;
    run.profiles = run.partials->profiles;
  } else {
    if (r.paths.empty())
      throw ConfigError("analyze: give at least one profile (a trace file or a run folder)");
    refuse_partial_reports(paths_on_disk(r));
    run.reads = profile_files_read(r);
    run.profiles = r.paths;
  }
  run.reads.insert(run.reads.end(), r.rules.files.begin(), r.rules.files.end());
  run.reads.insert(run.reads.end(), r.baselines.begin(), r.baselines.end());
  if (!r.history.location.empty() && !is_postgres_location(r.history.location))
    run.reads.push_back(r.history.location);
  return run;
}

GatedRun run_gated(const PreparedRun& prepared, std::vector<Baseline> given) {
  const RunRequest& request = prepared.request;
  const RuleBook& book = *prepared.book;
  // A malformed PostgreSQL connection string is a usage error before any work.
  check_history_location(request.history.location);
  for (const std::string& path : request.baselines) check_history_location(path);
  // Report and profile baselines are read first, so that a bad one fails before the analysis; a
  // history's runs are chosen after it, by the run's GPUs.
  std::vector<Baseline> runs = std::move(given);
  std::vector<HistorySource> histories;
  for (const std::string& path : request.baselines) {
    // The run's own history is a history, even while it is an empty SQLite file.
    if (path == request.history.location || is_history_location(path))
      histories.push_back(open_history_source(path));
    else
      runs.push_back(load_baseline(path, request, book));
    stop_if_asked(request);
  }
  ReportModel report = prepared.partials
                           ? merge_partials(*prepared.partials, book, request.limits.max_input_memory)
                           : analyse_profiles(request, book, request.options);
  stop_if_asked(request);
  stop_if_unbounded(request.limits.memory);
  CaptureOverride capture = book.rules.capture;
  if (request.rules.workload) {
    capture.workload = request.rules.workload;
    capture.workload_evidence = "set by --workload";
  }
  override_capture(report, capture);
  GateOptions gate = request.gate;
  std::vector<HistoryRun> history_runs;
  std::vector<Note> history_warnings;
  add_history_baselines(histories, request.history, report, runs, history_runs, gate, history_warnings);
  add_warnings(report, std::move(history_warnings));
  std::optional<Baseline> baseline;
  if (!runs.empty()) baseline = combine_baselines(std::move(runs));
  if (baseline && !request.baseline_name.empty()) baseline->info.path = request.baseline_name;
  apply_gate(report, book.rules, baseline ? &*baseline : nullptr, gate);
  if (report.baseline && !history_runs.empty())
    add_recent_trends(
        report, recent_trends(history_runs, report, gated_metrics_of(book), request.history.labels.commit));
  return {std::move(report), prepared.book};
}

void record_run(const ReportModel& report, const HistoryRequest& history) {
  try {
    std::unique_ptr<HistoryStore> store = open_history(history.location, HistoryAccess::Record);
    store->record(history_run_of(report, history.labels, utc_now()));
  } catch (const ConfigError&) {
    throw;  // a malformed connection string: a usage error
  } catch (const std::exception& e) {
    // Messages of the store begin with its location already.
    std::string where = describe_history_location(history.location);
    std::string_view what = e.what();
    throw RecordError(what.starts_with(where) ? fmt::format("cannot record the run: {}", what)
                                              : fmt::format("cannot record the run in {}: {}", where, what));
  }
}

unsigned output_threads(unsigned threads) {
  LoadOptions budget;
  budget.max_threads = threads;
  return threads_per_input(budget, 1, kNotSmall);
}

std::uint64_t max_input_memory_of(const std::string& text) {
  bool from_option = !text.empty();
  const char* variable = std::getenv(kMaxInputMemoryVariable);
  std::string given = from_option ? text : variable ? variable : "";
  std::uint64_t bytes = 0;
  if (from_option) {
    std::optional<std::uint64_t> parsed = parse_byte_size(given);
    if (!parsed)
      throw RequestError("max_input_memory", [given](const RequestError::FieldNames& name) {
        return fmt::format("{} {}: not a size (e.g. 8G, 512M or a number of bytes; 0: no limit)",
                           name("max_input_memory"), given);
      });
    bytes = *parsed;
  } else {
    bytes = max_input_memory_from_environment();  // a malformed variable is refused there
  }
  if (given.empty() || bytes >= kMinInputMemory || (bytes == 0 && std::strtod(given.c_str(), nullptr) == 0))
    return bytes;
  if (!from_option)
    throw ConfigError(fmt::format(
        "PERFGATE_MAX_INPUT_MEMORY={}: under 1 MiB, too little for any input (0: no limit)", given));
  throw RequestError("max_input_memory", [given](const RequestError::FieldNames& name) {
    return fmt::format("{} {}: under 1 MiB, too little for any input (0: no limit)", name("max_input_memory"),
                       given);
  });
}

RunLabels run_labels(const RunLabels& explicit_labels) {
  return merge_labels(ci_labels([](const char* name) { return std::getenv(name); }), explicit_labels);
}

}  // namespace perfgate
