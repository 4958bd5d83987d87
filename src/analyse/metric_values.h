// Maps analysis results to catalog metrics: the one place where a metric meets its value, set by
// id. A worker and a run of several workers go through the same MetricInputs.
#pragma once

#include <array>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/communication/communication_results.h"
#include "analyse/critical_path/critical_path_results.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/memory/memory_results.h"
#include "analyse/neuron/neuron_results.h"
#include "analyse/ops/op_results.h"
#include "analyse/steps/step_results.h"
#include "common/device_family.h"
#include "common/metrics.h"

namespace perfgate {

struct MetricInputs {
  std::vector<double> step_durations_us;  // the window's steps
  TimeNs window = 0;
  TimeNs capture_span = 0;  // Window::capture_end - capture_start (a run: the longest worker's)
  TimeNs gpu_span = 0;      // Window::gpu_end - gpu_start (a run: the longest worker's)
  double gpu_seconds = 0;   // window x GPUs, summed over workers (MFU's denominator)
  // A clock offset: `window` and the steps are the GPUs' span (WorkerAnalysis::gpu_steps), and
  // TFLOP/s is over MFU's span (gpu_seconds per GPU).
  bool over_gpu_span = false;
  std::size_t steps_total = 0;
  std::size_t steps_dropped = 0;
  std::optional<std::int64_t> iter_start;
  std::optional<std::int64_t> iter_stop;
  std::vector<const GpuMetrics*> gpus;
  std::array<double, kBreakdownParts> breakdown_us{};
  std::array<double, kResourceParts> resources_us{};
  bool has_runtime = false;
  bool has_devices = false;
  TensorCoreSums tensor_cores;
  ComputeSums compute;
  RooflineSums roofline;
  ServingPhases serving;
  HostActivitySums host;
  IdleSums idle;
  CommunicationSums communication;
  MemorySums memory;
  ParallelismSums parallelism;
  OpCallSums op_calls;
  NeuronSums neuron;
  DeviceFamilies families;  // of the worker's profile; a run: of every worker's
  // The window's critical paths: their summed length and split, over how many steps.
  TimeNs path_length = 0;
  PathSplit path_by{};
  std::size_t path_steps = 0;
  TimeNs path_span = 0;  // the host ranges the paths were built over, summed (the steps' time)
  std::vector<double> rank_mean_steps_us;  // run only
  std::vector<std::int64_t> rank_ids;
  std::size_t ranks_present = 1;               // distinct ranks of the workers
  std::optional<std::int64_t> world_size;      // the largest the traces state
  std::optional<std::int64_t> ranks_expected;  // expected_ranks() (analyse/run/capture_check.h)
};

// The metrics of the parts of a split, by the part's enum (BreakdownPart, ResourcePart, PathBound,
// IdleCause): "<family>.<part>_us" and "_pct" (tests/analyse/metric_families_test.cpp checks each
// name against the part's).
struct PartMetrics {
  Metric us;
  Metric pct;
};
inline constexpr std::array<PartMetrics, kBreakdownParts> kBreakdownMetrics = {{
    {Metric::BreakdownKernelUs, Metric::BreakdownKernelPct},
    {Metric::BreakdownMemcpyUs, Metric::BreakdownMemcpyPct},
    {Metric::BreakdownMemsetUs, Metric::BreakdownMemsetPct},
    {Metric::BreakdownCommunicationUs, Metric::BreakdownCommunicationPct},
    {Metric::BreakdownRuntimeUs, Metric::BreakdownRuntimePct},
    {Metric::BreakdownDataloaderUs, Metric::BreakdownDataloaderPct},
    {Metric::BreakdownCpuExecUs, Metric::BreakdownCpuExecPct},
    {Metric::BreakdownOtherUs, Metric::BreakdownOtherPct},
}};
inline constexpr std::array<PartMetrics, kResourceParts> kResourceMetrics = {{
    {Metric::ResourcesTcKernelsUs, Metric::ResourcesTcKernelsPct},
    {Metric::ResourcesNonTcKernelsUs, Metric::ResourcesNonTcKernelsPct},
    {Metric::ResourcesMemoryUs, Metric::ResourcesMemoryPct},
    {Metric::ResourcesCpuUs, Metric::ResourcesCpuPct},
    {Metric::ResourcesOtherUs, Metric::ResourcesOtherPct},
}};
// critical_path.<bound>_pct of the path, and critical_path.<bound>_step_pct of the steps.
struct PathBoundMetrics {
  Metric of_path;
  Metric of_steps;
};
inline constexpr std::array<PathBoundMetrics, kPathBounds> kPathBoundMetrics = {{
    {Metric::CriticalPathCpuBoundPct, Metric::CriticalPathCpuBoundStepPct},
    {Metric::CriticalPathDataLoadingPct, Metric::CriticalPathDataLoadingStepPct},
    {Metric::CriticalPathGpuKernelLaunchOverheadPct, Metric::CriticalPathGpuKernelLaunchOverheadStepPct},
    {Metric::CriticalPathGpuKernelKernelOverheadPct, Metric::CriticalPathGpuKernelKernelOverheadStepPct},
    {Metric::CriticalPathGpuComputeBoundPct, Metric::CriticalPathGpuComputeBoundStepPct},
    {Metric::CriticalPathGpuCommunicationBoundPct, Metric::CriticalPathGpuCommunicationBoundStepPct},
}};
// gpu.idle_<cause>_pct.
inline constexpr std::array<Metric, kIdleCauses> kIdleCauseMetrics = {
    Metric::GpuIdleDataloaderPct, Metric::GpuIdleSyncPct,       Metric::GpuIdleLaunchPct,
    Metric::GpuIdleCpuOpPct,      Metric::GpuIdleUnrecordedPct, Metric::GpuIdleShortGapsPct,
    Metric::GpuIdleQueuedPct,     Metric::GpuIdleNvtxPct,       Metric::GpuIdleRuntimeOtherPct};

MetricValues metrics_of(const MetricInputs& in);
MetricInputs worker_inputs(const WorkerAnalysis& worker);
// The window's step durations the step metrics summarise: its steps', or under a clock offset the
// GPUs' (WorkerAnalysis::gpu_step_times).
std::vector<double> window_step_durations_us(const WorkerAnalysis& worker);
// How long the worker took, as a run chooses its detailed workers by it (RunCombiner): its mean
// step (steps.mean_us, exactly as worker_metrics sets it), or its window without steps. Known once
// its steps and window are, before the analyses that make its tables.
double worker_pace_us(const WorkerAnalysis& worker);
MetricValues worker_metrics(const WorkerAnalysis& worker);

// A run of several workers: steps matched by name take the slowest worker's duration; GPU metrics
// average over every GPU of every worker; breakdowns average over workers; counts and times add
// up; shares are ratios of the summed times.
MetricInputs run_inputs(const WorkerList& workers, const std::vector<std::int64_t>& rank_ids,
                        const std::vector<std::int64_t>& missing_ranks = {});
MetricValues run_metrics(const WorkerList& workers, const std::vector<std::int64_t>& rank_ids,
                         const std::vector<std::int64_t>& missing_ranks = {});

// The run's steps: names present in every worker's window, each with the longest duration (µs).
std::vector<std::pair<std::string, double>> run_steps(const WorkerList& workers);

}  // namespace perfgate
