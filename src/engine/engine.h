// The engine: one run of perfgate, whatever front end asked for it (the command line, the MCP
// server, the benchmarks). A front end makes a RunRequest (engine/run_request.h), prepares it (the
// rules read and the inputs resolved before any profile is: what it will read is then known, so
// that no output names an input), runs it (load with the capture traces, analyse, report model,
// baselines and history, gate) and records it; it writes the outputs and chooses the exit code.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "engine/partials.h"
#include "engine/rule_book.h"
#include "engine/run_request.h"
#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

struct Profile;

// A request ready to run: its rules read, its inputs resolved (a merge's partial reports read and
// checked as one run), before any profile is read.
struct PreparedRun {
  RunRequest request;  // a merge's analysis options are its parts'
  std::shared_ptr<const RuleBook> book;
  std::optional<PartialSet> partials;  // the partial reports of a merge
  // Every file the run reads (its profiles as given and found, the capture traces and their
  // execution_details.json, partial reports, rule files, baselines, a history file): what no output
  // may name.
  std::vector<std::string> reads;
  // The run's traces, as given (a merge's: its parts' inputs), for the outputs that name one.
  std::vector<std::string> profiles;
};
// Reads the rules (unless `book` is given) and resolves the inputs. Throws ConfigError for a request
// that cannot be run, InputError (naming the file) for an input that is refused.
PreparedRun prepare_run(RunRequest request, std::shared_ptr<const RuleBook> book = nullptr);

// A run gated as `perfgate analyze` gates it: the report with the baseline's changes, the gate's
// findings and the recent trends in it.
struct GatedRun {
  ReportModel report;
  std::shared_ptr<const RuleBook> book;
};
// Reads the baselines (reports and profiles first, so that a bad one fails before the analysis),
// makes the report (the profiles loaded and analysed, or the partial reports merged), draws the
// history's baseline runs on the run's GPUs, and gates. `given`: baselines already read, pooled
// with the request's.
GatedRun run_gated(const PreparedRun& run, std::vector<Baseline> given = {});

// The gate wired up: the baseline's changes put into the report (the report stage), the rules
// evaluated on it (they only read it), and what they return put in (the report stage again).
void apply_gate(ReportModel& report, const RuleSet& rules, const Baseline* baseline,
                const GateOptions& options);

// The report of the request's profiles, analysed with `options` and not gated (a baseline profile,
// the benchmarks).
ReportModel analyse_profiles(const RunRequest& request, const RuleBook& book, const AnalysisOptions& options);

// Each profile of the prepared run as the run loads it (its limits, progress and stop, the rule
// book's knowledge), handed to `each` on its loading thread and let go after it returns: the door
// for a front end that reads a run's events rather than its report (MCP's `events` tool; issue 90).
void for_each_profile(const PreparedRun& run, const std::function<void(const Profile&)>& each);

// Records the gated report into the request's history (after its outputs are written). Throws
// ConfigError for a malformed connection string, else a RecordError saying why it could not.
class RecordError : public OutputError {
 public:
  using OutputError::OutputError;
};
void record_run(const ReportModel& report, const HistoryRequest& history);

// The memory limit on each input: `text` (--max-input-memory) where given, else the environment's
// (PERFGATE_MAX_INPUT_MEMORY), else the default. Throws ConfigError for a malformed or too small one.
std::uint64_t max_input_memory_of(const std::string& text);

// The threads a run's outputs are written with (the reports side by side): `threads` (--threads)
// where given, else as many as one input's load would take of the usable cores.
unsigned output_threads(unsigned threads);

// The run's labels: the CI system's (from the environment), with `explicit_labels` on top.
RunLabels run_labels(const RunLabels& explicit_labels);

}  // namespace perfgate
