// The public door (include/perfgate/engine.h): an AnalysisRequest made into the engine's
// RunRequest, run and gated as `perfgate analyze` runs it, and the engine's errors made into the
// public Error with the exit code the command line gives them.
#include <memory>
#include <mutex>
#include <utility>

#include "common/error_report.h"
#include "common/errors.h"
#include "common/version.h"
#include "engine/default_rule_book.h"
#include "engine/engine.h"
#include "engine/request_options.h"
#include "engine/rule_book.h"
#include "perfgate/engine.h"

namespace perfgate {
namespace {

// The AnalysisRequest field of a run option (a RequestError's field): most have the option's name.
std::string api_field_of(std::string_view field) {
  static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
      {"rules", "rule_files"},
      {"set", "settings"},
      {"disable", "disabled_rules"},
      {"baseline", "baselines"},
      {"time_start", "time_start_us"},
      {"time_stop", "time_stop_us"},
      {"graph_capture", "graph_captures"},
      {"profile_bytes", "in_memory_profiles"}};
  for (const auto& [option, name] : kRenamed)
    if (option == field) return std::string(name);
  return std::string(field);
}

// The request's fields are the command line's options (engine/request_options.def), each checked
// there as the command line's are.
RunRequest run_request_of(const AnalysisRequest& a) {
  RequestSettings s;
  s.rules = a.rule_files;
  s.set = a.settings;
  s.disable = a.disabled_rules;
  s.workload = a.workload;
  s.fail_on = a.fail_on;
  s.warnings_exit_code = a.warnings_exit_code;
  s.baseline = a.baselines;
  s.baseline_runs = static_cast<std::int64_t>(a.baseline_runs);
  s.baseline_branch = a.baseline_branch;
  s.iter_start = a.iter_start;
  s.iter_stop = a.iter_stop;
  s.skip_first = a.skip_first;
  s.time_start = a.time_start_us;
  s.time_stop = a.time_stop_us;
  s.key_op = a.key_op;
  s.step_pattern = a.step_pattern;
  s.device = a.device;
  if (a.detailed_workers) s.detailed_workers = static_cast<std::int64_t>(*a.detailed_workers);
  s.graph_capture = a.graph_captures;
  s.device_memory = a.device_memory;
  s.one_run = a.one_run;
  s.threads = a.threads;
  s.max_input_memory = a.max_input_memory;
  s.max_memory = "0";  // a library leaves its process's memory alone: no budget, nothing spilled
  RunRequest request;
  request.kind = RunInputKind::Profiles;
  request.paths = a.profiles;
  for (const InMemoryProfile& profile : a.in_memory_profiles) {
    request.paths.push_back(profile.name);
    request.profile_bytes.push_back({profile.name, std::make_shared<const std::string>(profile.bytes)});
  }
  apply_settings(s, request);
  return request;
}

}  // namespace

Report analyze(const AnalysisRequest& a) {
  // The shipped rules as the build encoded them, as the program's main() sets them.
  static std::once_flag snapshot_set;
  std::call_once(snapshot_set, [] { use_default_rule_book_snapshot(default_rule_book_snapshot()); });
  try {
    if (a.profiles.empty() && a.in_memory_profiles.empty())
      throw ConfigError("give at least one profile (a trace file or a run folder)");
    GatedRun gated = run_gated(prepare_run(run_request_of(a)));
    return Report(std::make_shared<const ReportModel>(std::move(gated.report)));
  } catch (const std::exception& e) {
    ErrorReport error = error_report(e, api_field_of);
    throw Error(error.message, error.exit_code);
  }
}

std::string_view version() {
  return kVersion;
}

}  // namespace perfgate
