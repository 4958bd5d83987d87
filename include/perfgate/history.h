// The run history: analysed runs kept in a database (a SQLite file, or a PostgreSQL server shared by
// CI runners), the baselines a gate draws from it, and the series a trend reads. One schema for
// both databases, versioned migrations (docs/history.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/baseline.h"
#include "perfgate/report.h"

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
  // "sqlite FILE" or "postgresql HOST/DB" (no password), for messages.
  virtual std::string describe() const = 0;
};

// True for a postgresql:// or postgres:// URI, and for a SQLite file holding perfgate's history
// schema (an Nsight Systems export is also SQLite, and is a profile).
bool is_history_location(const std::string& location);

// Opens (creating when `create`, and migrating an older schema) a history store. Throws InputError
// naming the location and the cause: unreachable, not a history, written by a newer schema.
std::unique_ptr<HistoryStore> open_history(const std::string& location, bool create);

// The run of an analysed (and gated) report, as the history keeps it.
HistoryRun history_run_of(const ReportModel& report, RunLabels labels, std::string time);

}  // namespace perfgate
