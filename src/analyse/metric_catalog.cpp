// The metric catalog. Adding a metric: one row here, its computation in metric_values.cpp, and
// its row in docs/metrics.md (a test checks the documentation lists every name).
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "perfgate/metrics.h"

namespace perfgate {
namespace {

constexpr std::string_view kPlugin = "TensorBoard plugin";
constexpr std::string_view kDlprof = "DLProf";
constexpr std::string_view kPerfgate = "perfgate";

constexpr MetricInfo kCatalog[] = {
    {"window.wall_us", "us",
     "Wall time of the window: end of its last step minus start of its first (without steps: the span of the "
     "CPU ops)",
     kDlprof},
    {"window.steps_total", "count", "Steps detected and kept (cut-off trailing steps are dropped and listed)",
     kPlugin},
    {"window.steps_in_window", "count",
     "Steps inside the aggregation window (--iter-start/--iter-stop/--skip-first)", kDlprof},
    {"window.steps_dropped", "count",
     "Trailing steps dropped because profiling stopped before their GPU work was captured", kPlugin},
    {"window.iter_start", "count", "Number of the first step in the window (N of ProfilerStep#N)", kDlprof},
    {"window.iter_stop", "count", "Number of the last step in the window", kDlprof},

    {"steps.count", "count", "Steps in the window whose durations the step statistics use", kPerfgate},
    {"steps.mean_us", "us", "Mean step duration", kPlugin},
    {"steps.median_us", "us", "Median step duration", kPerfgate},
    {"steps.stddev_us", "us", "Sample standard deviation of step durations (n - 1; needs two steps)",
     kPerfgate},
    {"steps.cv_pct", "%", "Coefficient of variation of step durations: stddev / mean", kPerfgate},
    {"steps.min_us", "us", "Shortest step", kPerfgate},
    {"steps.max_us", "us", "Longest step", kPerfgate},
    {"steps.p90_us", "us", "90th percentile of step durations (linear interpolation)", kPerfgate},
    {"steps.max_over_median", "ratio", "Longest step divided by the median step", kPerfgate},

    {"gpu.count", "count", "GPUs with any kernel, memcpy or memset in the profile", kPlugin},
    {"gpu.utilization_pct", "%",
     "Mean over GPUs of: union of kernel intervals (NCCL kernels included, memcpy/memset excluded) in the "
     "window / window wall time",
     kPlugin},
    {"gpu.busy_pct", "%",
     "Mean over GPUs of: union of kernel, memcpy and memset intervals in the window / window wall time",
     kPerfgate},
    {"gpu.idle_pct", "%", "Mean over GPUs of: 100 - busy", kPerfgate},
    {"gpu.sm_efficiency_pct", "%",
     "Mean over GPUs of the estimated SM efficiency: time integral of min(sum of running kernels' blocks per "
     "SM, 1) / window wall time",
     kPlugin},
    {"gpu.achieved_occupancy_pct", "%",
     "Mean over GPUs of kernels' estimated achieved occupancy, weighted by kernel time in the window",
     kPlugin},

    {"breakdown.kernel_us", "us",
     "Mean per step of time with a compute kernel running (exclusive split, priority kernel > memcpy > "
     "memset > communication > runtime > dataloader > CPU exec)",
     kPlugin},
    {"breakdown.memcpy_us", "us", "Mean per step of time with a memcpy running and no kernel", kPlugin},
    {"breakdown.memset_us", "us", "Mean per step of time with a memset running and no kernel or memcpy",
     kPlugin},
    {"breakdown.communication_us", "us",
     "Mean per step of time in communication kernels or ops (NCCL, gloo) and no higher-priority activity",
     kPlugin},
    {"breakdown.runtime_us", "us",
     "Mean per step of time in CUDA/HIP runtime or driver calls and no GPU activity", kPlugin},
    {"breakdown.dataloader_us", "us",
     "Mean per step of time in DataLoader/DataPipe __next__ and nothing above", kPlugin},
    {"breakdown.cpu_exec_us", "us", "Mean per step of time in other CPU ops and nothing above", kPlugin},
    {"breakdown.other_us", "us", "Mean per step of time with none of the above recorded", kPlugin},
    {"breakdown.kernel_pct", "%", "breakdown.kernel_us as a share of the mean step", kPlugin},
    {"breakdown.memcpy_pct", "%", "breakdown.memcpy_us as a share of the mean step", kPlugin},
    {"breakdown.memset_pct", "%", "breakdown.memset_us as a share of the mean step", kPlugin},
    {"breakdown.communication_pct", "%", "breakdown.communication_us as a share of the mean step", kPlugin},
    {"breakdown.runtime_pct", "%", "breakdown.runtime_us as a share of the mean step", kPlugin},
    {"breakdown.dataloader_pct", "%", "breakdown.dataloader_us as a share of the mean step", kPlugin},
    {"breakdown.cpu_exec_pct", "%", "breakdown.cpu_exec_us as a share of the mean step", kPlugin},
    {"breakdown.other_pct", "%", "breakdown.other_us as a share of the mean step", kPlugin},

    {"tensor_core.kernel_time_pct", "%", "Tensor Core kernel time / all kernel time, in the window", kPlugin},
    {"tensor_core.eligible_kernel_time_pct", "%",
     "Self kernel time of bottom-most TC-eligible ops / self kernel time of all ops, in the window", kPlugin},
    {"tensor_core.efficiency_pct", "%",
     "Tensor Core kernel time inside bottom-most TC-eligible ops / all kernel time inside them, in the "
     "window",
     kDlprof},

    {"resources.tc_kernels_us", "us",
     "Window time with a Tensor Core kernel running (exclusive split, summed over steps)", kDlprof},
    {"resources.non_tc_kernels_us", "us", "Window time with another kernel running and no Tensor Core kernel",
     kDlprof},
    {"resources.memory_us", "us", "Window time with a memcpy or memset running and no kernel", kDlprof},
    {"resources.cpu_us", "us",
     "Window time with host activity (ops, annotations, runtime calls) and no GPU activity", kDlprof},
    {"resources.other_us", "us", "Window time with nothing recorded", kDlprof},
    {"resources.tc_kernels_pct", "%", "resources.tc_kernels_us as a share of the window's step time",
     kDlprof},
    {"resources.non_tc_kernels_pct", "%", "resources.non_tc_kernels_us as a share of the window's step time",
     kDlprof},
    {"resources.memory_pct", "%", "resources.memory_us as a share of the window's step time", kDlprof},
    {"resources.cpu_pct", "%", "resources.cpu_us as a share of the window's step time", kDlprof},
    {"resources.other_pct", "%", "resources.other_us as a share of the window's step time", kDlprof},
};

}  // namespace

std::span<const MetricInfo> metric_catalog() {
  return kCatalog;
}

std::optional<std::size_t> metric_index(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kCatalog); ++i)
    if (kCatalog[i].name == name) return i;
  return std::nullopt;
}

MetricValues::MetricValues() : values_(std::size(kCatalog)) {}

void MetricValues::set(std::string_view name, std::optional<double> value) {
  auto index = metric_index(name);
  if (!index) throw std::logic_error("metric not in catalog: " + std::string(name));
  values_[*index] = value;
}

std::optional<double> MetricValues::get(std::string_view name) const {
  auto index = metric_index(name);
  if (!index) throw std::logic_error("metric not in catalog: " + std::string(name));
  return values_[*index];
}

}  // namespace perfgate
