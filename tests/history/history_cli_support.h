// Shortcuts for the history's command-line tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {

// Clears the CI systems' variables for the test (perfgate would read them as labels), restoring
// them after; set() sets one for the test.
class CleanCiEnvironment {
 public:
  CleanCiEnvironment();
  ~CleanCiEnvironment();
  CleanCiEnvironment(const CleanCiEnvironment&) = delete;
  CleanCiEnvironment& operator=(const CleanCiEnvironment&) = delete;
  void set(const std::string& name, const std::string& value);

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

bool contains(const std::string& s, const std::string& part);

// A healthy run with a little step noise: no default rule fires.
TrainingRun steady();
std::string training_trace_file(const std::string& dir, const TrainingRun& run,
                                const std::string& name = "run");

std::string finding_status(const boost::json::value& report, const std::string& id);
std::string finding_reason(const boost::json::value& report, const std::string& id);

std::string finding_problem(const boost::json::value& report, const std::string& id);

// Issue 74, item 6: two runs recorded into the history at `location` (SQLite or PostgreSQL), then a
// run with 2 ms of host work (aten::cpu_preprocess, no kernels) at each step's start gated against
// them: the failing step-time finding names that op as moved onto the path, as against a JSON
// baseline, since the history keeps each run's critical-path ops (schema 5).
void expect_a_history_names_what_moved_onto_the_path(const std::string& location, const std::string& dir);

// `perfgate history list DB --json EXTRA`, parsed (fails the test when it does not parse).
boost::json::array list_runs(const std::string& db, const std::string& extra = "");

bool is_utc_time(const std::string& text);  // "2026-11-22T10:38:11Z"

// SQL on a SQLite file, directly: a statement, or the first column of the first row as text.
void sqlite_execute(const std::string& path, const std::string& sql);
std::string sqlite_text(const std::string& path, const std::string& sql);

}  // namespace perfgate::testing
