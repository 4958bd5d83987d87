// What one run of perfgate is asked to do, whatever asked it: the command line, the MCP server, the
// benchmarks. A front end turns its own options into a RunRequest; the engine (engine/engine.h)
// runs it: the rules and knowledge read, the profiles loaded with their capture traces, analysed,
// described as a report model, gated against the baselines and the history, and recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analyse/analysis_options.h"
#include "common/capture_profile.h"
#include "common/notes.h"
#include "engine/memory_budget.h"
#include "gate/gate.h"
#include "history/history.h"
#include "io/io.h"

namespace perfgate {

struct ResolvedInputs;  // load/load.h

// The rule files of a run and the overrides on top of them (--rules, --set, --disable).
struct RuleRequest {
  std::vector<std::string> files;     // applied on top of the shipped default set, in order
  std::vector<std::string> settings;  // "ID.KEY=VALUE"
  std::vector<std::string> disabled;  // rule ids
  // --workload: the capture's workload (kCaptureWorkloadNames), over the rule files' `capture:`.
  std::optional<CaptureWorkload> workload;
};

// The run history: recorded into after the gate, and drawn from where it is a baseline.
struct HistoryRequest {
  std::string location;                  // a SQLite file or a PostgreSQL connection string; empty: none
  bool record = false;                   // record the run into `location`
  RunLabels labels;                      // the run's labels (the CI system's with the explicit ones on top)
  std::size_t baseline_runs = 10;        // a history as a baseline: its last N runs ...
  std::string baseline_branch = "main";  // ... of this branch, on the run's GPUs
};

// What a run may take of the machine.
struct RunLimits {
  unsigned threads = 0;                                     // 0: one per usable core
  std::uint64_t max_input_memory = kDefaultMaxInputMemory;  // per input; 0: no limit
  // The memory budget (--max-memory, --spill-dir; engine/memory_budget.h): handed as a value to the
  // stages that size by it (the sniffed bytes the load keeps, the workbook's rows), installed once
  // for the allocator by apply_memory_budget. Default: none.
  MemoryBudget memory;
};

// Where the run's inputs come from: profiles (traces and run folders), or the partial reports of
// one run (`perfgate merge`), whose own analysis options replace the request's.
enum class RunInputKind { Profiles, Partials };

struct RunRequest {
  RunInputKind kind = RunInputKind::Profiles;
  std::vector<std::string> paths;
  // Profiles held in memory: a path among `paths` that names one is read from its bytes, never from
  // the disk, and is named so in the reports. No capture traces are looked for beside it.
  std::vector<ProfileBytes> profile_bytes;
  bool allow_missing_ranks = false;  // partial reports: merge without every rank of the world size
  RuleRequest rules;
  AnalysisOptions options;
  std::vector<std::string> baselines;  // JSON reports, profiles or run histories, pooled
  // How the reports name the baseline where its path would mislead (the Python API passes an
  // in-memory Report through a temporary file); empty: the paths as given.
  std::string baseline_name;
  // The profiles are one run even where they are not one capture (clocks that differ, windows that
  // do not overlap): analysed together, with the run notes that say so, instead of refused.
  bool one_run = false;
  HistoryRequest history;
  GateOptions gate;  // what fails the gate; the exit code of a pass with warnings
  RunLimits limits;
  // Told the bytes read so far and the total while profiles load (from loading threads), and
  // that a load ended (a baseline profile's, then the run's); unset: not told.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  std::function<void()> on_loaded;
  // Told, as the run goes, what it left out of its inputs ("skipped FILE: why"): a front end says
  // it whatever its verbosity, since a run on fewer ranks than were given must not pass silently.
  std::function<void(const Note& warning)> on_input_warning;
  // Asked as the profiles load (from loading threads) and between the run's stages: true stops the
  // run with RunStopped before the next stage, so that nothing is gated, written or recorded (an
  // MCP client's cancellation). Unset: never asked.
  std::function<bool()> stop_requested;
  // The profiles' inputs as prepare_run resolved them, for the load (LoadOptions::resolved); unset:
  // the load resolves the paths itself.
  std::shared_ptr<const ResolvedInputs> resolved;
};

// The engine's checks of a request, before any work: each throws a RequestError (common/errors.h)
// naming the request's field, which the front end says in its own words.
// The gate's FailOn of its name: error, warning, inconclusive or never (field "fail_on").
FailOn fail_on_named(std::string_view name);
// A step window that can hold steps: iter_start not after iter_stop (field "iter_start"). What it
// selects of a profile is the analysis' to check (analyse/steps/window.h).
void check_step_window(const WindowOptions& window);
// Every check above that a made request still needs (its step window), that a history as a
// baseline compares with at least one run, and that each profile given as bytes has a name of its
// own (field "profile_bytes"); prepare_run makes them.
void check_request(const RunRequest& request);

// A run its front end stopped (RunRequest::stop_requested): no report, no exit code of its own.
class RunStopped : public std::runtime_error {
 public:
  RunStopped() : std::runtime_error("the run was stopped before it ended") {}
};

// Throws RunStopped when the request's front end asks the run to stop.
inline void stop_if_asked(const RunRequest& request) {
  if (request.stop_requested && request.stop_requested()) throw RunStopped();
}

}  // namespace perfgate
