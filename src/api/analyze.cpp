// The public door (include/perfgate/engine.h): an AnalysisRequest made into the engine's
// RunRequest, run and gated as `perfgate analyze` runs it, and the engine's errors made into the
// public Error with the exit code the command line gives them.
#include <memory>
#include <mutex>
#include <utility>

#include "common/capture_profile.h"
#include "common/errors.h"
#include "common/version.h"
#include "engine/default_rule_book.h"
#include "engine/engine.h"
#include "engine/front_end_support.h"
#include "engine/rule_book.h"
#include "perfgate/engine.h"

namespace perfgate {
namespace {

RunRequest run_request_of(const AnalysisRequest& a) {
  RunRequest request;
  request.kind = RunInputKind::Profiles;
  request.paths = a.profiles;
  request.rules = {a.rule_files, a.settings, a.disabled_rules, std::nullopt};
  if (!a.workload.empty()) {
    request.rules.workload = capture_enum_named<CaptureWorkload>(kCaptureWorkloadNames, a.workload);
    if (!request.rules.workload)
      throw ConfigError("workload " + a.workload +
                        ": not one of training, serving, offline-inference, benchmark");
  }
  AnalysisOptions& options = request.options;
  options.window.iter_start = a.iter_start;
  options.window.iter_stop = a.iter_stop;
  options.window.skip_first = a.skip_first;
  if (a.time_start_us) options.window.time_start = window_time_ns("time_start", *a.time_start_us);
  if (a.time_stop_us) options.window.time_stop = window_time_ns("time_stop", *a.time_stop_us);
  options.device = a.device;
  options.key_op = a.key_op;
  options.step_pattern = a.step_pattern;
  if (a.detailed_workers) options.detailed_workers = *a.detailed_workers;
  options.graph_captures = a.graph_captures;
  if (!a.device_memory.empty()) options.device_memory = device_memory_bytes(a.device_memory);
  request.baselines = a.baselines;
  request.history.baseline_runs = a.baseline_runs;
  request.history.baseline_branch = a.baseline_branch;
  request.one_run = a.one_run;
  request.gate = GateOptions{fail_on_named(a.fail_on), a.warnings_exit_code, ""};
  request.limits.threads = a.threads;
  request.limits.max_input_memory = max_input_memory_of(a.max_input_memory);
  request.history.labels = run_labels({});
  check_request(request);
  return request;
}

}  // namespace

Report analyze(const AnalysisRequest& a) {
  // The shipped rules as the build encoded them, as the program's main() sets them.
  static std::once_flag snapshot_set;
  std::call_once(snapshot_set, [] { use_default_rule_book_snapshot(default_rule_book_snapshot()); });
  try {
    if (a.profiles.empty()) throw ConfigError("give at least one profile (a trace file or a run folder)");
    GatedRun gated = run_gated(prepare_run(run_request_of(a)));
    return Report(std::make_shared<const ReportModel>(std::move(gated.report)));
  } catch (const ConfigError& e) {
    throw Error(e.what(), kExitUsage);
  } catch (const RefusedError& e) {
    throw Error(e.what(), kExitRefused);
  } catch (const InputError& e) {
    throw Error(e.what(), kExitInput);
  } catch (const OutputError& e) {
    throw Error(e.what(), kExitInput);
  }
}

std::string_view version() {
  return kVersion;
}

}  // namespace perfgate
