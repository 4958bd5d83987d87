// Run perfgate from a C++ program (public API; docs/api.md): a training framework's harness or a
// CI tool analyses its profiles and gates them as `perfgate analyze` does, without a process.
//   perfgate::AnalysisRequest request;
//   request.profiles = {"trace.pt.trace.json.gz"};
//   perfgate::Report report = perfgate::analyze(request);
//   if (report.verdict() == perfgate::Verdict::Fail) ...
// The request holds what the command line's options hold for one run; docs/api.md names each
// field's option, whose definition (docs/usage.md) is the field's. A field left as it is keeps the
// option's default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/report.h"

namespace perfgate {

// A profile held in memory (a harness's trace not yet written, a test's): read as a file named
// `name` would be, its format known from its bytes (gzip or not), and named so in the report.
struct InMemoryProfile {
  std::string name;  // as a file's name: "rank-0.pt.trace.json.gz"; unique in the request
  std::string bytes;
};

struct AnalysisRequest {
  std::vector<std::string> profiles;                // traces and run folders (PROFILE...)
  std::vector<InMemoryProfile> in_memory_profiles;  // after `profiles`; no capture traces beside them
  std::vector<std::string> rule_files;              // --rules: on top of the shipped default set, in order
  std::vector<std::string> settings;                // --set: "ID.KEY=VALUE"
  std::vector<std::string> disabled_rules;          // --disable
  std::vector<std::string> baselines;               // --baseline: JSON reports, profiles or run histories
  std::string workload;                             // --workload; empty: what the analysis found
  std::string fail_on = "error";                    // --fail-on: error, warning, inconclusive, never
  int warnings_exit_code = 0;                       // --warnings-exit-code
  std::optional<std::int64_t> iter_start;           // --iter-start
  std::optional<std::int64_t> iter_stop;            // --iter-stop
  std::int64_t skip_first = 0;                      // --skip-first
  std::optional<double> time_start_us;              // --time-start, on the trace's clock
  std::optional<double> time_stop_us;               // --time-stop
  std::optional<std::int32_t> device;               // --device: only this GPU's work
  std::string key_op;                               // --key-op
  std::string step_pattern;                         // --step-pattern
  std::optional<std::size_t> detailed_workers;      // --detailed-workers; empty: the default
  std::vector<std::string> graph_captures;          // --graph-capture
  std::string device_memory;                        // --device-memory; empty: not given
  bool one_run = false;                             // --one-run
  std::size_t baseline_runs = 10;                   // --baseline-runs: of a run history given as a baseline
  std::string baseline_branch = "main";             // --baseline-branch
  unsigned threads = 0;                             // --threads; 0: one per usable core
  std::string max_input_memory;                     // --max-input-memory; empty: the default
};

// A request that cannot run, an input that cannot be read or is refused: the message names the
// option or the file and the cause; exit_code() is the one `perfgate analyze` ends with (2 usage
// or rule file, 3 input, 4 inputs refused as not one run).
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int exit_code) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// Loads the request's profiles, analyses them, compares them with the baselines and gates them with
// the rules. Throws Error.
Report analyze(const AnalysisRequest& request);

// perfgate's version, "0.1.0".
std::string_view version();

}  // namespace perfgate
