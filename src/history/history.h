// The run history: analysed runs kept in a database (a SQLite file, or a PostgreSQL server shared by
// CI runners), the baselines a gate draws from it, and the series a trend reads. One schema for
// both databases, versioned migrations (docs/history.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "baseline/baseline.h"
#include "report_model/report.h"
#include "report_model/trend.h"

namespace perfgate {

// The context a run is recorded with: --branch, --commit, --label key=value, and the CI
// system's variables when present (GitHub Actions, GitLab CI, Jenkins).
struct RunLabels {
  std::string branch;
  std::string commit;
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by key, each key once
};

struct HistoryGpu {
  std::string name;
  int count = 0;
};

// One recorded run: what the gate and the trend need, not the whole report.
struct HistoryRun {
  std::int64_t id = 0;  // assigned by the store, increasing in recording order
  std::string time;     // UTC, ISO 8601: "2026-11-22T10:38:11Z"
  RunLabels labels;
  std::vector<HistoryGpu> gpus;  // by name, sorted
  Baseline data;                 // metrics, window step durations, op and kernel totals, inputs, tool version
};

struct HistoryQuery {
  std::string branch;                  // empty: every branch
  std::vector<std::string> gpu_names;  // empty: any hardware; else runs with exactly these names
  bool without_gpus = false;           // only runs that had no GPU (gpu_names must be empty)
  std::size_t last = 0;                // the most recent N runs; 0: all
  bool with_tables = true;             // false: metrics and labels only (list, trend)
};

class HistoryStore {
 public:
  virtual ~HistoryStore() = default;
  // Adds a run in one transaction and returns its id. Safe with concurrent writers.
  virtual std::int64_t record(const HistoryRun& run) = 0;
  // Matching runs, oldest first (by id).
  virtual std::vector<HistoryRun> runs(const HistoryQuery& query) = 0;
  // The SQLite file's path, or "postgresql://USER@HOST:PORT/DB" (no password, no parameters), for
  // messages and for naming baseline runs ("LOCATION#ID").
  virtual std::string describe() const = 0;
};

// True for a PostgreSQL connection string (is_postgres_location), and for a SQLite file holding
// perfgate's history schema (an Nsight Systems export is also SQLite, and is a profile). A path
// ending in ".db" that does not exist yet, is empty, or is a SQLite database without tables is a
// history too: the one a first CI run is about to create (or failed to).
bool is_history_location(const std::string& location);

// True for what perfgate takes for a PostgreSQL connection string, never for a file name: a URI
// whose scheme is postgresql: or postgres: in any case (a malformed one is refused when opened),
// or a libpq keyword/value string ("host=db.example.com dbname=perf ...": it starts with a word
// and '='). Throws nothing.
bool is_postgres_location(const std::string& location);

// Refuses (ConfigError, exit 2) a malformed PostgreSQL connection string, before any work and
// without naming its password; anything else passes.
void check_history_location(const std::string& location);

// How a history is opened. Read: read-only, needing no write access; never created, migrated or
// written. A SQLite file without tables (or of 0 bytes), or a PostgreSQL database without
// perfgate's tables, is an empty history; an older schema is read as it is. Record: created when
// missing, and migrated to this perfgate's schema.
enum class HistoryAccess { Read, Record };

// Opens a history store. Throws InputError naming the location and the cause: unreachable, not a
// history, written by a newer schema; ConfigError for a malformed connection string.
std::unique_ptr<HistoryStore> open_history(const std::string& location, HistoryAccess access);

// The location for messages: a PostgreSQL connection string without its password and parameters
// ("postgresql://USER@HOST:PORT/DB", "host=H dbname=D user=U"), or the path.
std::string describe_history_location(const std::string& location);

// The run of an analysed (and gated) report, as the history keeps it.
HistoryRun history_run_of(const ReportModel& report, RunLabels labels, std::string time);

// The run of a JSON report written by `perfgate analyze --json` (history import); its time is the
// file's modification time. Throws InputError as read_baseline_report does.
HistoryRun history_run_of_report_file(const std::string& path, RunLabels labels);

// The current time, UTC, ISO 8601 to the second.
std::string utc_now();

// --- labels ---

// The labels a CI system sets in the environment: GitHub Actions (GITHUB_ACTIONS), GitLab CI
// (GITLAB_CI), Jenkins (JENKINS_URL); none elsewhere. `getenv` reads a variable (nullptr: unset).
using EnvironmentReader = std::function<const char*(const char*)>;
RunLabels ci_labels(const EnvironmentReader& getenv);

// "KEY=VALUE" as a label; throws ConfigError for a missing '=' or an empty key.
std::pair<std::string, std::string> parse_label(const std::string& text);

// The CI system's labels with the explicit ones on top: a non-empty branch or commit, and each
// label key, given explicitly wins.
RunLabels merge_labels(RunLabels from_ci, const RunLabels& explicit_labels);

// --- the gate's baseline from a history ---

// The runs a gate compares with, each as one Baseline (info.kind "history", info.path
// "LOCATION#ID (commit abc1234)"), and, when there are none, why.
struct HistoryBaselines {
  std::vector<Baseline> runs;
  std::string skip_reason;      // set when runs is empty: no runs, none of the branch, other hardware
  std::optional<Note> warning;  // when the branch has runs only on other GPUs, or this run no GPU work
};

// The last `count` runs of `branch` on exactly the GPU names `gpu_names` (sorted, distinct).
HistoryBaselines history_baselines(HistoryStore& store, const std::string& branch,
                                   const std::vector<std::string>& gpu_names, std::size_t count);

// What a trend reads of the rules: a metric an enabled baseline rule gates, once, with the first
// such rule (the engine makes the list from the rule book: gated_metrics_of, engine/front_end_support.h;
// the history never reads the rules themselves).
enum class Improves { Lower, Higher };
struct GatedMetric {
  std::string metric;                // a catalog name, as the rule wrote it
  std::string rule;                  // the rule's id
  std::optional<Improves> better;    // which way it improves, where the rule says
  std::optional<ChangeLimit> limit;  // the rule's warning change, else its failure change
};

// The metrics a trend shows by default: those the enabled baseline rules read, in rule order, of
// the kinds of profile `runs` holds, by the device families each run recorded: the neuron.* metrics
// when a run has a Neuron profile, the others when a run has a GPU or CPU-only one, or when there is
// no run. A history of GPU runs shows no Neuron series, and a history of Neuron runs no GPU series
// (all n/a there). A run whose families are not recorded (Baseline::families) counts as a Neuron
// profile's when it has a neuron.* value, and as another's when not.
std::vector<std::string> gated_metrics(const std::vector<GatedMetric>& gated,
                                       const std::vector<HistoryRun>& runs = {});

// The trend of `runs` (oldest first, as HistoryStore::runs returns them). Throws ConfigError for a
// metric name that is not in the catalog.
TrendReport build_trend(const std::vector<HistoryRun>& runs, const std::vector<GatedMetric>& gated,
                        TrendSettings settings);

// The recent values of each gated metric for the report of a run gated against a history: the
// last `max_points - 1` baseline runs with a value, then the current run (is_current). The report
// stage puts it into the report (add_recent_trends, report/build_report.h); the renderers show it
// next to the findings that read the metric.
std::vector<ReportMetricTrend> recent_trends(const std::vector<HistoryRun>& baseline_runs,
                                             const ReportModel& current,
                                             const std::vector<GatedMetric>& gated,
                                             const std::string& current_commit, std::size_t max_points = 10);

}  // namespace perfgate
