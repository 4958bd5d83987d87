// Wires the analysers together for one profile, then for a run of workers.
#include <fmt/format.h>

#include "analyse/activity_intervals.h"
#include "analyse/attribution.h"
#include "analyse/breakdown.h"
#include "analyse/classifier.h"
#include "analyse/gpu_utilization.h"
#include "analyse/metric_values.h"
#include "analyse/resources.h"
#include "analyse/steps.h"
#include "analyse/tensor_cores.h"
#include "analyse/window.h"
#include "perfgate/analysis.h"

namespace perfgate {
namespace {

WorkerAnalysis analyse_with(const Profile& profile, const CompiledClassification& compiled,
                            const AnalysisOptions& options) {
  WorkerAnalysis w;
  w.worker = profile.worker;
  w.warnings = profile.notes;
  NameClasses classes(compiled, profile);
  Attribution attribution = attribute(profile, compiled.attribute_by_time_containment);
  w.steps = detect_steps(profile, attribution, options.key_op, w.warnings);
  w.window = select_window(w.steps, options.window);
  w.gpus = gpu_metrics(profile, w.window, classes);
  w.tensor_cores = tensor_core_sums(profile, attribution, classes, w.window);
  {
    // Scoped: the interval lists are the largest transient data, freed before anything else grows.
    ActivityIntervals intervals = classify_intervals(profile, attribution, classes, w.steps.marker_events);
    w.mean_breakdown = window_breakdown(w.steps, w.window, intervals);
    w.resources = resource_split(w.steps, w.window, intervals);
  }
  w.has_runtime_calls = !profile.runtime_calls.empty();
  if (w.steps.source == StepSource::None && options.key_op.empty())
    w.warnings.push_back("no ProfilerStep# annotations: the whole trace is analysed as one window");
  w.metrics = worker_metrics(w);
  return w;
}

}  // namespace

const char* step_source_name(StepSource source) {
  switch (source) {
    case StepSource::ProfilerStep:
      return "profiler-step";
    case StepSource::KeyOp:
      return "key-op";
    case StepSource::None:
      break;
  }
  return "none";
}

WorkerAnalysis analyse_profile(const Profile& profile, const Classification& classification,
                               const AnalysisOptions& options) {
  CompiledClassification compiled(classification);
  return analyse_with(profile, compiled, options);
}

RunAnalysis analyse_run(const LoadedRun& run, const Classification& classification,
                        const AnalysisOptions& options) {
  CompiledClassification compiled(classification);
  RunAnalysis result;
  for (const Profile& profile : run.workers)
    result.workers.push_back(analyse_with(profile, compiled, options));
  result.metrics = run_metrics(result.workers);
  return result;
}

}  // namespace perfgate
