#include "analyse/critical_path/step_paths.h"

#include <algorithm>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/critical_path/critical_path.h"
#include "analyse/steps/steps.h"
#include "analyse/steps/window.h"
#include "analyse/worker_attribution.h"

namespace perfgate {
namespace {

PathRecord record_of(PathEventKind kind) {
  switch (kind) {
    case PathEventKind::HostOp:
      return PathRecord::HostEvent;
    case PathEventKind::Runtime:
      return PathRecord::RuntimeCall;
    case PathEventKind::Gpu:
      break;
  }
  return PathRecord::GpuActivity;
}

void keep_path(const RangePath& path, AnnotatedStep& step) {
  step.has_path = true;
  step.path_length = path.length;
  step.path.reserve(path.events.size());
  for (const PathEvent& e : path.events)
    step.path.push_back({record_of(e.kind), e.bound, e.index, e.start, e.time});
}

}  // namespace

AnnotatedSteps annotated_steps(const Profile& profile, const Classification& classification,
                               const AnalysisOptions& options, std::size_t path_steps) {
  AnnotatedSteps out;
  if (profile.info.family == DeviceFamily::Neuron) return out;  // no host steps: its own timeline
  // As analyse_gpu_profile (analyse.cpp) prepares the worker: the path is the report's.
  CompiledClassification compiled(classification);
  NameClasses classes(compiled, profile);
  Attribution attribution = worker_attribution(profile, compiled, classes, options.threads);
  std::vector<Note> warnings;
  StepDetection steps = detect_steps(profile, attribution, compiled, options, warnings);
  Window window = select_window(steps, options.window);
  out.window_start = std::min(window.start, window.host_start);
  out.window_end = window.end;
  if (window.steps.empty()) {
    out.steps.push_back({"window",
                         std::nullopt,
                         out.window_start,
                         window.end,
                         window.host_start,
                         window.host_end,
                         0,
                         false,
                         {}});
  } else {
    for (std::size_t i : window.steps) {
      const Step& s = steps.steps[i];
      out.steps.push_back({s.name, s.number, s.start, s.end, s.host_start, s.host_end, 0, false, {}});
    }
  }
  if (profile.host_events.empty() && profile.runtime_calls.empty()) return out;
  CriticalPathAnalyser analyser(profile, attribution, classes,
                                static_cast<TimeNs>(compiled.critical_path_max_kernel_gap_us * 1000));
  if (steps.source == StepSource::ProfilerStep || steps.source == StepSource::StepPattern)
    analyser.leave_out(steps.marker_events);
  std::size_t n = path_steps == 0 ? out.steps.size() : std::min(path_steps, out.steps.size());
  for (std::size_t i = 0; i < n; ++i)
    keep_path(analyser.path(out.steps[i].host_start, out.steps[i].host_end), out.steps[i]);
  return out;
}

}  // namespace perfgate
