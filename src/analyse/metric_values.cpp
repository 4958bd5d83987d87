#include "analyse/metric_values.h"

#include <algorithm>

#include "analyse/neuron/neuron_metrics.h"
#include "analyse/run/worker_hold.h"
#include "analyse/steps/step_stats.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}
double d(std::uint64_t n) {
  return static_cast<double>(n);
}

std::optional<double> ratio_pct(double part, double whole) {
  if (whole <= 0) return std::nullopt;
  return 100.0 * part / whole;
}

template <typename Get>
std::optional<double> mean_over(const std::vector<const GpuMetrics*>& gpus, Get get) {
  double sum = 0;
  std::size_t n = 0;
  for (const GpuMetrics* g : looked(gpus)) {
    if (std::optional<double> v = get(*g)) {
      sum += *v;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

template <typename Get>
std::optional<double> min_over(const std::vector<const GpuMetrics*>& gpus, Get get) {
  std::optional<double> lowest;
  for (const GpuMetrics* g : looked(gpus))
    if (std::optional<double> v = get(*g); v && (!lowest || *v < *lowest)) lowest = v;
  return lowest;
}

// The median and highest GPU utilization: with the lowest and the mean, what a large run's first
// screen shows instead of every GPU.
void set_utilization_spread(MetricValues& m, const std::vector<const GpuMetrics*>& gpus) {
  std::vector<double> values;
  for (const GpuMetrics* g : looked(gpus))
    if (g->utilization_pct) values.push_back(*g->utilization_pct);
  if (std::optional<SummaryStats> s = summarize(std::move(values))) {
    m.set(Metric::GpuMedianUtilizationPct, s->median);
    m.set(Metric::GpuMaxUtilizationPct, s->max);
  }
}

// 7.5 for sm_75; minors above 9 do not occur.
std::optional<double> compute_capability(const GpuMetrics& g) {
  if (g.compute_major < 0) return std::nullopt;
  return g.compute_major + std::max(g.compute_minor, 0) / 10.0;
}

void set_step_metrics(MetricValues& m, const std::vector<double>& durations) {
  m.set(Metric::StepsCount, d(durations.size()));
  std::optional<SummaryStats> s = summarize(durations);
  if (!s) return;
  m.set(Metric::StepsMeanUs, s->mean);
  m.set(Metric::StepsMedianUs, s->median);
  m.set(Metric::StepsStddevUs, s->stddev);
  if (s->stddev && s->mean > 0) m.set(Metric::StepsCvPct, 100.0 * *s->stddev / s->mean);
  m.set(Metric::StepsMinUs, s->min);
  m.set(Metric::StepsMaxUs, s->max);
  m.set(Metric::StepsP90Us, s->p90);
  m.set(Metric::StepsP99Us, s->p99);
  if (s->median <= 0) return;
  m.set(Metric::StepsMaxOverMedian, s->max / s->median);
  if (durations.size() >= 2) m.set(Metric::StepsFirstOverMedian, durations.front() / s->median);
  if (durations.size() >= 3) {
    m.set(Metric::StepsOutliers, d(robust_outliers(durations)));
    m.set(Metric::StepsTrendPct, 100.0 * trend_slope(durations) / s->median);
  }
}

void set_gpu_metrics(MetricValues& m, const MetricInputs& in) {
  const auto& gpus = in.gpus;
  m.set(Metric::GpuCount, d(gpus.size()));
  if (gpus.empty()) return;
  const LaunchDelays& delays = in.idle.delays;
  m.set(Metric::GpuClockOffset, d(delays.offset_workers));
  if (delays.min_ns) m.set(Metric::GpuLaunchDelayMinUs, us(*delays.min_ns));
  if (delays.median_ns) m.set(Metric::GpuLaunchDelayMedianUs, us(*delays.median_ns));
  m.set(Metric::GpuUtilizationPct, mean_over(gpus, [](const GpuMetrics& g) { return g.utilization_pct; }));
  m.set(Metric::GpuMinUtilizationPct, min_over(gpus, [](const GpuMetrics& g) { return g.utilization_pct; }));
  set_utilization_spread(m, gpus);
  m.set(Metric::GpuMinChunkBusyPct, min_over(gpus, [](const GpuMetrics& g) { return g.min_chunk_busy_pct; }));
  m.set(Metric::GpuComputeCapability,
        min_over(gpus, [](const GpuMetrics& g) { return compute_capability(g); }));
  m.set(Metric::GpuBusyPct, mean_over(gpus, [](const GpuMetrics& g) { return g.busy_pct; }));
  m.set(Metric::GpuIdlePct, mean_over(gpus, [](const GpuMetrics& g) { return g.idle_pct; }));
  m.set(Metric::GpuCaptureBusyUs,
        mean_over(gpus, [](const GpuMetrics& g) -> std::optional<double> { return us(g.capture_busy_ns); }));
  m.set(Metric::GpuBusyOfCapturePct,
        mean_over(gpus, [](const GpuMetrics& g) { return g.busy_of_capture_pct; }));
  m.set(Metric::GpuBusyOfGpuSpanPct,
        mean_over(gpus, [](const GpuMetrics& g) { return g.busy_of_gpu_span_pct; }));
  m.set(Metric::GpuSmEfficiencyPct, mean_over(gpus, [](const GpuMetrics& g) { return g.sm_efficiency_pct; }));
  m.set(Metric::GpuAchievedOccupancyPct,
        mean_over(gpus, [](const GpuMetrics& g) { return g.achieved_occupancy_pct; }));
  const IdleSums& idle = in.idle;
  if (idle.longest_gap) m.set(Metric::GpuLongestGapUs, us(*idle.longest_gap));
  m.set(Metric::GpuGapsOver500us, d(idle.long_gaps));
  // Clocks offset: what the host did at a GPU gap's time is not what it did while the GPU waited.
  if (delays.offset_workers > 0) return;
  double idle_total = us(idle.host_wait + idle.kernel_wait + idle.other);
  m.set(Metric::GpuIdleHostWaitPct, ratio_pct(us(idle.host_wait), idle_total));
  m.set(Metric::GpuIdleKernelWaitPct, ratio_pct(us(idle.kernel_wait), idle_total));
  m.set(Metric::GpuIdleOtherPct, ratio_pct(us(idle.other), idle_total));
  double caused_total = 0;
  for (TimeNs t : idle.by_cause) caused_total += us(t);
  for (std::size_t c = 0; c < kIdleCauses; ++c)
    m.set(kIdleCauseMetrics[c], ratio_pct(us(idle.by_cause[c]), caused_total));
  // What synchronising calls cost the GPUs: the idle time they overlap, not their duration.
  double sync_us = us(idle.by_cause[static_cast<std::size_t>(IdleCause::Sync)]);
  if (auto idle_pct = m.get(Metric::GpuIdlePct))
    m.set(Metric::HostSyncIdlePct, caused_total > 0 ? *idle_pct * sync_us / caused_total : 0.0);
}

// Sets `<family>.<part>_us` and `_pct` (share of the sum) for each part of an exclusive split
// that applies.
template <std::size_t N, typename Applies>
void set_split_metrics(MetricValues& m, const std::array<PartMetrics, N>& metrics,
                       const std::array<double, N>& parts_us, Applies applies) {
  double total = 0;
  for (double v : parts_us) total += v;
  if (total <= 0) return;
  for (std::size_t i = 0; i < N; ++i) {
    if (!applies(i)) continue;
    m.set(metrics[i].us, parts_us[i]);
    m.set(metrics[i].pct, 100.0 * parts_us[i] / total);
  }
}

// Every device is a TPU (an XSpace's /device:TPU:N, which its reader names "TPU ...") or an MTIA:
// it has matrix units (MXU, dot-product engines), not Tensor Cores, so the Tensor Core metrics are
// n/a, never 0%.
bool tpu_only(const MetricInputs& in) {
  return !in.gpus.empty() && std::all_of(in.gpus.begin(), in.gpus.end(), [](const GpuMetrics* g) {
    return g->name.starts_with("TPU") || g->name.starts_with("MTIA");
  });
}

// GPU parts are not applicable without GPU activity; runtime not without runtime calls either.
void set_breakdown_and_resources(MetricValues& m, const MetricInputs& in) {
  bool has_gpu = !in.gpus.empty();
  set_split_metrics(m, kBreakdownMetrics, in.breakdown_us, [&](std::size_t i) {
    switch (static_cast<BreakdownPart>(i)) {
      case BreakdownPart::Kernel:
      case BreakdownPart::Memcpy:
      case BreakdownPart::Memset:
        return has_gpu;
      case BreakdownPart::Runtime:
        return has_gpu || in.has_runtime;
      default:
        return true;
    }
  });
  set_split_metrics(m, kResourceMetrics, in.resources_us, [&](std::size_t i) {
    auto part = static_cast<ResourcePart>(i);
    if (part == ResourcePart::TensorCoreKernels && tpu_only(in)) return false;
    return has_gpu || (part != ResourcePart::TensorCoreKernels && part != ResourcePart::OtherKernels &&
                       part != ResourcePart::Memory);
  });
}

void set_tensor_core_metrics(MetricValues& m, const TensorCoreSums& t) {
  auto pct = [](TimeNs part, TimeNs whole) {
    return ratio_pct(static_cast<double>(part), static_cast<double>(whole));
  };
  m.set(Metric::TensorCoreKernelTimePct, pct(t.tc_kernel_ns, t.kernel_ns));
  m.set(Metric::ComputeNarrowWeightPct, pct(t.narrow_tc_kernel_ns, t.tc_kernel_ns));
  auto bf16 = t.tc_kernel_ns_by_precision.find("bf16");
  m.set(Metric::ComputeBf16Pct,
        pct(bf16 == t.tc_kernel_ns_by_precision.end() ? 0 : bf16->second, t.tc_kernel_ns));
  m.set(Metric::GpuTensorrtKernelPct, pct(t.tensorrt_kernel_ns, t.kernel_ns));
  m.set(Metric::TensorCoreEligibleKernelTimePct, pct(t.eligible_self_kernel_ns, t.op_kernel_ns));
  auto judged = pct(t.kernel_ns - std::min(t.unowned_kernel_ns, t.kernel_ns), t.kernel_ns);
  m.set(Metric::TensorCoreJudgedKernelTimePct, judged);
  // Efficiency over a small part of the kernel time says nothing about the rest (a graph replay
  // without its capture): n/a below the rules' threshold.
  if (judged && *judged >= t.min_judged_pct)
    m.set(Metric::TensorCoreEfficiencyPct, pct(t.eligible_tc_kernel_ns, t.eligible_total_kernel_ns));
  // What kept the eligible ops' kernel time off Tensor Cores: shares of that time.
  TimeNs off_tc = t.eligible_total_kernel_ns - t.eligible_tc_kernel_ns;
  m.set(Metric::TensorCoreNonTcLayoutPct, pct(t.eligible_layout_kernel_ns, off_tc));
  m.set(Metric::TensorCoreNonTcFp32Pct, pct(t.eligible_fp32_kernel_ns, off_tc));
  m.set(Metric::TensorCoreNonTcHalfPrecisionPct, pct(t.eligible_half_kernel_ns, off_tc));
  m.set(Metric::TensorCoreNonTcUnknownPrecisionPct, pct(t.eligible_unknown_kernel_ns, off_tc));
  TimeNs without_tc =
      t.without_tc_fp32_kernel_ns + t.without_tc_half_kernel_ns + t.without_tc_unknown_kernel_ns;
  m.set(Metric::TensorCoreNoTcOpsFp32Pct, pct(t.without_tc_fp32_kernel_ns, without_tc));
  m.set(Metric::TensorCoreNoTcOpsHalfPrecisionPct, pct(t.without_tc_half_kernel_ns, without_tc));
  m.set(Metric::TensorCoreNoTcOpsUnknownPrecisionPct, pct(t.without_tc_unknown_kernel_ns, without_tc));
  if (t.kernel_ns > 0) {
    m.set(Metric::TensorCoreEligibleOpsNotUsingTc, d(t.eligible_op_names_without_tc));
    m.set(Metric::TensorCoreMisalignedShapes, d(t.misaligned_shapes));
  }
}

// The eligible ops that ran no Tensor Core kernel by their weight in the step: their kernel time
// over the GPUs' time (MFU's span), so that a rule can leave out what is too small to matter.
void set_eligible_no_tc_share(MetricValues& m, const MetricInputs& in) {
  const TensorCoreSums& t = in.tensor_cores;
  if (t.kernel_ns <= 0 || in.gpu_seconds <= 0) return;
  TimeNs without_tc =
      t.without_tc_fp32_kernel_ns + t.without_tc_half_kernel_ns + t.without_tc_unknown_kernel_ns;
  m.set(Metric::TensorCoreEligibleNoTcPct, 100.0 * static_cast<double>(without_tc) / 1e9 / in.gpu_seconds);
}

// The share of op calls in the backward pass, and the calls that show fused attention and
// GradScaler already applied: n/a where no op call was counted (op_results.h).
void set_op_call_metrics(MetricValues& m, const OpCallSums& o) {
  if (o.calls == 0) return;
  m.set(Metric::OpsBackwardPct, 100.0 * d(o.backward_calls) / d(o.calls));
  m.set(Metric::OpsFusedAttentionCalls, d(o.fused_attention_calls));
  m.set(Metric::OpsGradScalerCalls, d(o.grad_scaler_calls));
}

// memcpy.<direction>_count, _bytes and _gbps.
struct CopyMetrics {
  Metric count, bytes, gbps;
};

void set_copies(MetricValues& m, const CopyMetrics& metrics, const HostActivitySums::Copies& c) {
  m.set(metrics.count, d(c.count));
  m.set(metrics.bytes, d(c.bytes));
  if (c.time > 0 && c.bytes > 0) m.set(metrics.gbps, d(c.bytes) / static_cast<double>(c.time));
}

void set_host_metrics(MetricValues& m, const MetricInputs& in) {
  const HostActivitySums& h = in.host;
  if (in.has_runtime || !in.gpus.empty()) {
    // The steady state's: one-offs (warm-up, outlier calls, teardown, the profiler) left out of both.
    m.set(Metric::HostRuntimePct, ratio_pct(us(h.runtime_time - h.one_off_runtime_time),
                                            us(std::max<TimeNs>(0, h.step_time - h.warmup.time))));
    m.set(Metric::HostSyncCalls, d(h.sync_calls));
    m.set(Metric::HostSyncUs, us(h.sync_time));
    m.set(Metric::HostSyncPct, ratio_pct(us(h.sync_time), us(h.step_time)));
    m.set(Metric::HostWarmupUs, us(h.warmup.time));
    m.set(Metric::HostWarmupPct, ratio_pct(us(h.warmup.time), us(h.step_time)));
    TimeNs setup_teardown = std::max<TimeNs>(0, h.warmup.time - h.warmup.profiler.time);
    m.set(Metric::HostSetupTeardownUs, us(setup_teardown));
    m.set(Metric::HostSetupTeardownPct, ratio_pct(us(setup_teardown), us(h.step_time)));
    m.set(Metric::HostProfilerUs, us(h.warmup.profiler.time));
    m.set(Metric::HostProfilerPct, ratio_pct(us(h.warmup.profiler.time), us(h.step_time)));
  }
  if (const auto& copy = h.longest_blocking_copy) {
    m.set(Metric::HostBlockingCopyUs, us(copy->host_wait));
    m.set(Metric::HostBlockingCopyPct, ratio_pct(us(copy->host_wait), us(copy->step_time)));
    m.set(Metric::HostBlockingCopyGpuIdlePct, ratio_pct(us(copy->gpu_idle), us(copy->host_wait)));
    m.set(Metric::HostBlockingCopyQueued, d(copy->queued_activities));
  }
  // Kernel and copy counts are 0, not n/a, where the GPU side was traced and nothing ran (an nsys
  // export with no kernel table); n/a only where there is no GPU at all.
  if (in.gpus.empty() && !in.has_runtime && !in.has_devices) return;
  m.set(Metric::KernelsCount, d(h.kernels));
  m.set(Metric::KernelsTotalUs, us(h.kernel_time));
  if (h.kernels > 0) {
    m.set(Metric::KernelsMeanUs, us(h.kernel_time) / d(h.kernels));
    m.set(Metric::KernelsShortPct, 100.0 * d(h.short_kernels) / d(h.kernels));
  }
  if (h.median_launch_gap) m.set(Metric::KernelsLaunchGapUs, us(*h.median_launch_gap));
  m.set(Metric::KernelsWithoutLaunch, d(h.kernels_without_launch));
  m.set(Metric::HostGraphLaunches, d(h.graph_launches));
  if (h.graph_capture_workers > 0 && h.graph_kernel_time > 0)
    m.set(Metric::KernelsGraphCaptureCoveragePct,
          100.0 * d(h.graph_kernel_time_placed) / d(h.graph_kernel_time));
  if (h.kernel_time > 0)
    m.set(Metric::KernelsGraphReplayPct, 100.0 * d(h.graph_kernel_time) / d(h.kernel_time));
  if (h.kernel_time > 0)
    m.set(Metric::KernelsCompiledPct, 100.0 * d(h.compiled_kernel_time) / d(h.kernel_time));
  m.set(Metric::MemcpyCount, d(h.all_copies.count));
  m.set(Metric::MemcpyBytes, d(h.all_copies.bytes));
  set_copies(m, {Metric::MemcpyH2dCount, Metric::MemcpyH2dBytes, Metric::MemcpyH2dGbps}, h.h2d);
  set_copies(m, {Metric::MemcpyD2hCount, Metric::MemcpyD2hBytes, Metric::MemcpyD2hGbps}, h.d2h);
  set_copies(m, {Metric::MemcpyD2dCount, Metric::MemcpyD2dBytes, Metric::MemcpyD2dGbps}, h.d2d);
  m.set(Metric::MemcpyPageableCount, d(h.pageable.count));
  m.set(Metric::MemcpyPageableBytes, d(h.pageable.bytes));
  if (h.pageable.time > 0 && h.pageable.bytes > 0)
    m.set(Metric::MemcpyPageableGbps, d(h.pageable.bytes) / static_cast<double>(h.pageable.time));
  // The copies' share of their host link: their bytes at the link's bandwidth over their time.
  if (h.host_link_gbps) m.set(Metric::MemcpyHostLinkGbps, *h.host_link_gbps);
  for (auto [metric, c] :
       {std::pair{Metric::MemcpyH2dLinkPct, &h.h2d}, std::pair{Metric::MemcpyD2hLinkPct, &h.d2h}})
    if (c->linked_time > 0 && c->link_ps > 0)
      m.set(metric, d(c->link_ps) / 10.0 / static_cast<double>(c->linked_time));
  m.set(Metric::MemcpySyncCount, d(h.sync_copies));
  m.set(Metric::MemsetSyncCount, d(h.sync_memsets));
}

void set_parallelism_metrics(MetricValues& m, const ParallelismSums& p) {
  m.set(Metric::DistributedDataParallelCalls, d(p.data_parallel_calls));
  m.set(Metric::DistributedDdpCalls, d(p.ddp_calls));
  m.set(Metric::DistributedNcclCalls, d(p.nccl_calls));
}

void set_communication_metrics(MetricValues& m, const MetricInputs& in) {
  const CommunicationSums& c = in.communication;
  if (!in.gpus.empty()) {
    m.set(Metric::CommunicationPct, ratio_pct(us(c.kernel_time), us(c.window)));
    m.set(Metric::CommunicationOverlapPct, ratio_pct(us(c.overlapped), us(c.kernel_time)));
  }
  m.set(Metric::CommunicationCollectives, d(c.collectives));
  if (c.bytes_known) m.set(Metric::CommunicationBytes, d(c.bytes));
}

void set_critical_path_metrics(MetricValues& m, const MetricInputs& in) {
  if (in.path_steps == 0) return;
  m.set(Metric::CriticalPathLengthUs, us(in.path_length) / static_cast<double>(in.path_steps));
  for (std::size_t b = 0; b < kPathBounds; ++b) {
    m.set(kPathBoundMetrics[b].of_path, ratio_pct(us(in.path_by[b]), us(in.path_length)));
    // The same time as a share of the steps: what bounds a finding's gain (a rule's `on_path`).
    m.set(kPathBoundMetrics[b].of_steps, ratio_pct(us(in.path_by[b]), us(in.path_span)));
  }
  // The steps' time no path explains (HTA's path leaves out idle host gaps between top-level ops,
  // and without synchronisation events the GPU's work never joins the host's): a cause may own
  // that time too, so a gain's bound by the path adds it.
  m.set(Metric::CriticalPathUncoveredStepPct,
        ratio_pct(std::max(0.0, us(in.path_span) - us(in.path_length)), us(in.path_span)));
  m.set(Metric::CriticalPathCoveragePct, ratio_pct(us(in.path_length), us(in.path_span)));
}

// A memory snapshot's (analyse/memory/snapshot_analysis.h); none for other inputs.
void set_snapshot_metrics(MetricValues& m, const SnapshotSums& s) {
  if (s.devices == 0) return;
  auto bytes = [](std::uint64_t b) { return static_cast<double>(b); };
  m.set(Metric::MemorySnapshotPeakBytes, static_cast<double>(s.peak));
  m.set(Metric::MemorySnapshotReservedBytes, bytes(s.reserved));
  m.set(Metric::MemorySnapshotAllocatedBytes, bytes(s.allocated));
  m.set(Metric::MemoryReservedUnallocatedBytes,
        bytes(s.reserved > s.allocated ? s.reserved - s.allocated : 0));
  m.set(Metric::MemoryInactiveSplitBytes, bytes(s.split_inactive_bytes));
  m.set(Metric::MemoryFragmentationPct, ratio_pct(bytes(s.split_inactive_bytes), bytes(s.reserved)));
  m.set(Metric::MemoryLargestInactiveBytes, bytes(s.largest_inactive));
  m.set(Metric::MemoryExpandableSegments, bytes(s.expandable_segments));
  m.set(Metric::MemoryOomCount, bytes(s.ooms));
  if (s.ooms > 0) m.set(Metric::MemoryOomLargestRequestBytes, bytes(s.largest_oom_request));
  // The device's memory as --device-memory gives it, else as an out-of-memory error shows it.
  std::uint64_t capacity = s.device_memory > 0 ? s.device_memory : s.capacity_seen;
  if (capacity > 0) {
    m.set(Metric::MemorySnapshotCapacityBytes, bytes(capacity));
    m.set(Metric::MemorySnapshotPeakPct, ratio_pct(static_cast<double>(s.peak), bytes(capacity)));
  }
}

void set_memory_and_compute(MetricValues& m, const MetricInputs& in) {
  if (in.memory.peak_allocated)
    m.set(Metric::MemoryPeakAllocatedBytes, static_cast<double>(*in.memory.peak_allocated));
  m.set(Metric::MemoryPeakPct, in.memory.peak_pct);
  if (in.memory.peak_allocated)
    m.set(Metric::MemoryTotalsRecorded, in.memory.totals_from_changes ? 0.0 : 1.0);
  if (in.memory.peak_reserved)
    m.set(Metric::MemoryPeakReservedBytes, static_cast<double>(*in.memory.peak_reserved));
  set_snapshot_metrics(m, in.memory.snapshot);
  const ComputeSums& c = in.compute;
  // Tensor Core kernels no op owns (graph replays without their capture) are matrix work too, of
  // ops the trace does not show: their FLOPs are unknown.
  std::optional<double> coverage = ratio_pct(
      static_cast<double>(c.eligible_device_counted),
      static_cast<double>(c.eligible_device) + static_cast<double>(in.tensor_cores.unowned_tc_kernel_ns));
  m.set(Metric::ComputeFlopsCoveragePct, coverage);
  if (c.flops > 0) m.set(Metric::ComputeFlops, c.flops);
  if (c.flops > 0) m.set(Metric::ComputePeakKnownPct, 100.0 * c.flops_at_known_peak / c.flops);
  // FLOPs known for a sliver of the eligible work make a rate that means nothing: n/a below the
  // coverage (no eligible op at all: the counted ops are all there is).
  if (coverage && *coverage < c.min_coverage_pct) return;
  // Under a clock offset over MFU's span (each GPU's span in the window), so that TFLOP/s / MFU is the
  // peak: the window of the GPUs' steps also holds a GPU's idle before its first activity.
  double seconds = static_cast<double>(in.window) / 1e9;
  if (in.over_gpu_span && !in.gpus.empty()) seconds = in.gpu_seconds / static_cast<double>(in.gpus.size());
  if (c.flops > 0 && seconds > 0) m.set(Metric::ComputeTflopsAchieved, c.flops / seconds / 1e12);
  if (c.flops_at_known_peak > 0 && in.gpu_seconds > 0)
    m.set(Metric::ComputeMfuPct, 100.0 * c.ideal_seconds / in.gpu_seconds);
}

// The share of the step faster kernels would save (docs/metrics.md, "Roofline"): where the GPU
// idles waiting for the host (the next launch call came after the stream's previous activity ended),
// a kernel that ends sooner only lengthens the wait, so the saving counts beyond that idle time
// (the GPU idle share x the host-wait share of the gaps; no gaps: none). The one place the
// roofline's gain is bounded; a bound by the time on the critical path composes here.
double step_saving_pct(const MetricValues& m, double saving_pct) {
  double idle = m.get(Metric::GpuIdlePct).value_or(0);
  double host_wait = m.get(Metric::GpuIdleHostWaitPct).value_or(0);
  return std::max(0.0, saving_pct - idle * host_wait / 100.0);
}

// The roofline's metrics (docs/metrics.md, "Roofline"): n/a without modelled GPU work.
void set_roofline_metrics(MetricValues& m, const MetricInputs& in) {
  const RooflineSums& r = in.roofline;
  m.set(Metric::RooflineCoveragePct,
        ratio_pct(static_cast<double>(r.modelled_kernel_ns),
                  static_cast<double>(r.modelled_kernel_ns + r.unmodelled_kernel_ns)));
  m.set(Metric::RooflineMatrixCoveragePct,
        ratio_pct(static_cast<double>(r.matrix_modelled_kernel_ns), static_cast<double>(r.matrix_kernel_ns)));
  // MBU: the modelled bytes at the memory bandwidth over the window's GPU time, where the performance
  // model covers at least MFU's share of the kernel time (a rate from a sliver of the work says nothing).
  std::optional<double> coverage = m.get(Metric::RooflineCoveragePct);
  if (r.memory_ps > 0 && in.gpu_seconds > 0 && coverage && *coverage >= in.compute.min_coverage_pct)
    m.set(Metric::ComputeMbuPct, 100.0 * static_cast<double>(r.memory_ps) / 1e12 / in.gpu_seconds);
  if (r.peaked_kernel_ns <= 0) return;
  m.set(Metric::RooflinePct,
        100.0 * static_cast<double>(r.roofline_ps) / 1000.0 / static_cast<double>(r.peaked_kernel_ns));
  if (in.gpu_seconds <= 0) return;
  double saving = 100.0 * static_cast<double>(r.target_saving_ps) / 1e12 / in.gpu_seconds;
  m.set(Metric::RooflineSavingPct, saving);
  m.set(Metric::RooflineStepSavingPct, step_saving_pct(m, saving));
}

// The window's step time by serving phase (rules: serving_phases): 0 where no step names one.
void set_serving_metrics(MetricValues& m, const MetricInputs& in) {
  const ServingPhases& s = in.serving;
  auto share = [&](TimeNs t) { return s.steps > 0 ? 100.0 * us(t) / us(s.steps) : 0.0; };
  m.set(Metric::ServingDecodePct, share(s.decode));
  m.set(Metric::ServingPrefillPct, share(s.prefill));
  m.set(Metric::ServingMixedPct, share(s.mixed));
}

void set_rank_metrics(MetricValues& m, const MetricInputs& in) {
  const auto& means = in.rank_mean_steps_us;
  if (means.empty()) return;
  m.set(Metric::RanksCount, d(means.size()));
  if (means.size() < 2) return;
  // One tie rule everywhere: of equal mean steps, the first worker (std::max_element and
  // std::min_element return the first; std::minmax_element's maximum is the last).
  auto hi = std::max_element(means.begin(), means.end());
  auto lo = std::min_element(means.begin(), means.end());
  std::optional<SummaryStats> s = summarize(means);
  if (s && s->median > 0) m.set(Metric::RanksStepSpreadPct, 100.0 * (*hi - *lo) / s->median);
  m.set(Metric::RanksSlowest, static_cast<double>(in.rank_ids[static_cast<std::size_t>(hi - means.begin())]));
  m.set(Metric::RanksFastest, static_cast<double>(in.rank_ids[static_cast<std::size_t>(lo - means.begin())]));
}

// Which ranks of the job the profiles hold: "2 of 128" when a run folder holds a sample of them.
void set_world_metrics(MetricValues& m, const MetricInputs& in) {
  m.set(Metric::RanksPresent, d(in.ranks_present));
  if (in.world_size) m.set(Metric::RanksWorldSize, static_cast<double>(*in.world_size));
  if (in.ranks_expected) m.set(Metric::RanksExpected, static_cast<double>(*in.ranks_expected));
}

// A run of Neuron profiles alone: no GPU, CPU op or step was recorded, so every metric but the
// neuron.* family and the rank count is not applicable (never 0).
void keep_only_neuron_metrics(MetricValues& m) {
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    auto id = static_cast<Metric>(i);
    if (!is_neuron_metric(id) && id != Metric::RanksCount && id != Metric::RanksPresent &&
        id != Metric::RanksExpected)
      m.set(id, std::nullopt);
  }
}

}  // namespace

MetricValues metrics_of(const MetricInputs& in) {
  MetricValues m;
  // A memory snapshot whose trace has no timestamps states no wall time (its window is its
  // allocation order).
  bool untimed = in.memory.snapshot.untimed && in.gpus.empty() && in.steps_total == 0;
  if (!untimed) m.set(Metric::WindowWallUs, us(in.window));
  if (in.capture_span > 0 && !untimed) m.set(Metric::WindowCaptureSpanUs, us(in.capture_span));
  if (in.gpu_span > 0) m.set(Metric::WindowGpuSpanUs, us(in.gpu_span));
  // A memory snapshot alone records no steps and no time spent by nature: its step and breakdown
  // metrics are not applicable (not zero steps, not a window of idle time).
  bool snapshot_alone = in.memory.snapshot.devices > 0 && in.gpus.empty() && in.steps_total == 0;
  if (!snapshot_alone) {
    m.set(Metric::WindowStepsTotal, d(in.steps_total));
    m.set(Metric::WindowStepsInWindow, d(in.step_durations_us.size()));
    m.set(Metric::WindowStepsDropped, d(in.steps_dropped));
  }
  if (in.iter_start) m.set(Metric::WindowIterStart, static_cast<double>(*in.iter_start));
  if (in.iter_stop) m.set(Metric::WindowIterStop, static_cast<double>(*in.iter_stop));
  set_step_metrics(m, in.step_durations_us);
  set_gpu_metrics(m, in);
  if (!snapshot_alone) set_breakdown_and_resources(m, in);
  if (!tpu_only(in)) {
    set_tensor_core_metrics(m, in.tensor_cores);
    set_eligible_no_tc_share(m, in);
  }
  m.set(Metric::MatrixUnitOpTimePct, ratio_pct(static_cast<double>(in.tensor_cores.matrix_unit_ns),
                                               static_cast<double>(in.tensor_cores.units_stated_ns)));
  set_host_metrics(m, in);
  set_communication_metrics(m, in);
  set_critical_path_metrics(m, in);
  set_memory_and_compute(m, in);
  set_roofline_metrics(m, in);
  set_serving_metrics(m, in);
  set_op_call_metrics(m, in.op_calls);
  set_rank_metrics(m, in);
  set_world_metrics(m, in);
  set_parallelism_metrics(m, in.parallelism);
  if (in.families.only(DeviceFamily::Neuron)) {
    keep_only_neuron_metrics(m);
    // ranks.count counts the workers with steps (set_rank_metrics); a Neuron profile has none, so
    // each profile is a worker.
    m.set(Metric::RanksCount, static_cast<double>(in.neuron.profiles));
  }
  set_neuron_metrics(m, in.neuron);
  return m;
}

std::vector<double> window_step_durations_us(const WorkerAnalysis& w) {
  std::vector<double> durations;
  // Under a clock offset the steps are the GPUs' (one span for every time figure).
  if (!w.gpu_step_times.empty() && !w.window.steps.empty()) {
    durations.reserve(w.gpu_step_times.size());
    for (TimeNs t : w.gpu_step_times) durations.push_back(us(t));
    return durations;
  }
  durations.reserve(w.window.steps.size());
  for (std::size_t i : w.window.steps) durations.push_back(us(w.steps.steps[i].duration()));
  return durations;
}

double worker_pace_us(const WorkerAnalysis& w) {
  if (std::optional<SummaryStats> s = summarize(window_step_durations_us(w))) return s->mean;
  return static_cast<double>(w.window.length()) / 1000.0;
}

MetricInputs worker_inputs(const WorkerAnalysis& w) {
  MetricInputs in;
  in.step_durations_us = window_step_durations_us(w);
  in.window = w.window.length();
  // Under a clock offset the window is the GPUs' span of its steps.
  in.over_gpu_span = !w.gpu_step_times.empty();
  if (in.over_gpu_span) in.window = w.gpu_steps_span;
  in.capture_span = w.window.capture_end - w.window.capture_start;
  in.gpu_span = w.window.gpu_end - w.window.gpu_start;
  in.gpu_seconds = static_cast<double>(in.window) / 1e9 * static_cast<double>(w.gpus.size());
  // Under a clock offset each GPU's time is its span in the window (gpu_metrics): the window,
  // stretched by the offset, would understate MFU and MBU (issue 53).
  if (w.over_gpu_span) {
    in.gpu_seconds = 0;
    for (const GpuMetrics& g : w.gpus) in.gpu_seconds += static_cast<double>(g.span_end - g.span_start) / 1e9;
  }
  in.steps_total = w.steps.steps.size();
  in.steps_dropped = w.steps.dropped.size();
  in.iter_start = w.window.first_number;
  in.iter_stop = w.window.last_number;
  for (const auto& g : w.gpus) in.gpus.push_back(&g);
  for (std::size_t i = 0; i < kBreakdownParts; ++i) in.breakdown_us[i] = us(w.mean_breakdown[i]);
  for (std::size_t i = 0; i < kResourceParts; ++i) in.resources_us[i] = us(w.resources[i]);
  in.world_size = w.info.world_size;
  in.has_runtime = w.has_runtime_calls;
  in.has_devices = w.has_devices;
  in.tensor_cores = w.tensor_cores;
  in.compute = w.compute;
  in.roofline = w.roofline;
  in.serving = w.serving;
  in.op_calls = w.op_calls;
  in.host = w.host;
  in.idle = w.idle;
  in.communication = w.communication;
  in.memory = w.memory;
  in.parallelism = w.parallelism;
  in.neuron = w.neuron;
  in.families.add(w.info.family);
  for (const CriticalPathStep& s : w.critical_path.steps) {
    add_time(in.path_length, s.length);
    for (std::size_t b = 0; b < kPathBounds; ++b) add_time(in.path_by[b], s.by[b]);
    add_time(in.path_span, s.span);
  }
  in.path_steps = w.critical_path.steps.size();
  // The paths are of the window's steps: under a clock offset their time is the GPUs' steps'.
  if (in.over_gpu_span && in.path_steps == w.gpu_step_times.size()) {
    in.path_span = 0;
    for (TimeNs t : w.gpu_step_times) add_time(in.path_span, t);
  }
  return in;
}

MetricValues worker_metrics(const WorkerAnalysis& w) {
  return metrics_of(worker_inputs(w));
}

}  // namespace perfgate
