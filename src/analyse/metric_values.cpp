#include "analyse/metric_values.h"

#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "analyse/neuron/neuron_metrics.h"
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
  for (const GpuMetrics* g : gpus) {
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
  for (const GpuMetrics* g : gpus)
    if (std::optional<double> v = get(*g); v && (!lowest || *v < *lowest)) lowest = v;
  return lowest;
}

// The median and highest GPU utilization: with the lowest and the mean, what a large run's first
// screen shows instead of every GPU.
void set_utilization_spread(MetricValues& m, const std::vector<const GpuMetrics*>& gpus) {
  std::vector<double> values;
  for (const GpuMetrics* g : gpus)
    if (g->utilization_pct) values.push_back(*g->utilization_pct);
  if (std::optional<SummaryStats> s = summarize(std::move(values))) {
    m.set("gpu.median_utilization_pct", s->median);
    m.set("gpu.max_utilization_pct", s->max);
  }
}

// 7.5 for sm_75; minors above 9 do not occur.
std::optional<double> compute_capability(const GpuMetrics& g) {
  if (g.compute_major < 0) return std::nullopt;
  return g.compute_major + std::max(g.compute_minor, 0) / 10.0;
}

void set_step_metrics(MetricValues& m, const std::vector<double>& durations) {
  m.set("steps.count", d(durations.size()));
  std::optional<SummaryStats> s = summarize(durations);
  if (!s) return;
  m.set("steps.mean_us", s->mean);
  m.set("steps.median_us", s->median);
  m.set("steps.stddev_us", s->stddev);
  if (s->stddev && s->mean > 0) m.set("steps.cv_pct", 100.0 * *s->stddev / s->mean);
  m.set("steps.min_us", s->min);
  m.set("steps.max_us", s->max);
  m.set("steps.p90_us", s->p90);
  m.set("steps.p99_us", s->p99);
  if (s->median <= 0) return;
  m.set("steps.max_over_median", s->max / s->median);
  if (durations.size() >= 2) m.set("steps.first_over_median", durations.front() / s->median);
  if (durations.size() >= 3) {
    m.set("steps.outliers", d(robust_outliers(durations)));
    m.set("steps.trend_pct", 100.0 * trend_slope(durations) / s->median);
  }
}

void set_gpu_metrics(MetricValues& m, const MetricInputs& in) {
  const auto& gpus = in.gpus;
  m.set("gpu.count", d(gpus.size()));
  if (gpus.empty()) return;
  m.set("gpu.utilization_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.utilization_pct; }));
  m.set("gpu.min_utilization_pct", min_over(gpus, [](const GpuMetrics& g) { return g.utilization_pct; }));
  set_utilization_spread(m, gpus);
  m.set("gpu.min_chunk_busy_pct", min_over(gpus, [](const GpuMetrics& g) { return g.min_chunk_busy_pct; }));
  m.set("gpu.compute_capability", min_over(gpus, [](const GpuMetrics& g) { return compute_capability(g); }));
  m.set("gpu.busy_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.busy_pct; }));
  m.set("gpu.idle_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.idle_pct; }));
  m.set("gpu.capture_busy_us",
        mean_over(gpus, [](const GpuMetrics& g) -> std::optional<double> { return us(g.capture_busy_ns); }));
  m.set("gpu.busy_of_capture_pct",
        mean_over(gpus, [](const GpuMetrics& g) { return g.busy_of_capture_pct; }));
  m.set("gpu.busy_of_gpu_span_pct",
        mean_over(gpus, [](const GpuMetrics& g) { return g.busy_of_gpu_span_pct; }));
  m.set("gpu.sm_efficiency_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.sm_efficiency_pct; }));
  m.set("gpu.achieved_occupancy_pct",
        mean_over(gpus, [](const GpuMetrics& g) { return g.achieved_occupancy_pct; }));
  const IdleSums& idle = in.idle;
  double idle_total = us(idle.host_wait + idle.kernel_wait + idle.other);
  m.set("gpu.idle_host_wait_pct", ratio_pct(us(idle.host_wait), idle_total));
  m.set("gpu.idle_kernel_wait_pct", ratio_pct(us(idle.kernel_wait), idle_total));
  m.set("gpu.idle_other_pct", ratio_pct(us(idle.other), idle_total));
  double caused_total = 0;
  for (TimeNs t : idle.by_cause) caused_total += us(t);
  for (std::size_t c = 0; c < kIdleCauses; ++c) {
    m.set(fmt::format("gpu.idle_{}_pct", idle_cause_name(static_cast<IdleCause>(c))),
          ratio_pct(us(idle.by_cause[c]), caused_total));
  }
  // What synchronising calls cost the GPUs: the idle time they overlap, not their duration.
  double sync_us = us(idle.by_cause[static_cast<std::size_t>(IdleCause::Sync)]);
  if (auto idle_pct = m.get("gpu.idle_pct"))
    m.set("host.sync_idle_pct", caused_total > 0 ? *idle_pct * sync_us / caused_total : 0.0);
  if (idle.longest_gap) m.set("gpu.longest_gap_us", us(*idle.longest_gap));
  m.set("gpu.gaps_over_500us", d(idle.long_gaps));
}

// Sets `<family>.<part>_us` and `_pct` (share of the sum) for each part of an exclusive split
// that applies.
template <std::size_t N, typename NameOf, typename Applies>
void set_split_metrics(MetricValues& m, std::string_view family, const std::array<double, N>& parts_us,
                       NameOf name_of, Applies applies) {
  double total = 0;
  for (double v : parts_us) total += v;
  if (total <= 0) return;
  for (std::size_t i = 0; i < N; ++i) {
    if (!applies(i)) continue;
    std::string name = name_of(i);
    m.set(fmt::format("{}.{}_us", family, name), parts_us[i]);
    m.set(fmt::format("{}.{}_pct", family, name), 100.0 * parts_us[i] / total);
  }
}

// GPU parts are not applicable without GPU activity; runtime not without runtime calls either.
void set_breakdown_and_resources(MetricValues& m, const MetricInputs& in) {
  bool has_gpu = !in.gpus.empty();
  set_split_metrics(
      m, "breakdown", in.breakdown_us,
      [](std::size_t i) { return breakdown_part_name(static_cast<BreakdownPart>(i)); },
      [&](std::size_t i) {
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
  set_split_metrics(
      m, "resources", in.resources_us,
      [](std::size_t i) { return resource_part_name(static_cast<ResourcePart>(i)); },
      [&](std::size_t i) {
        auto part = static_cast<ResourcePart>(i);
        return has_gpu || (part != ResourcePart::TensorCoreKernels && part != ResourcePart::OtherKernels &&
                           part != ResourcePart::Memory);
      });
}

void set_tensor_core_metrics(MetricValues& m, const TensorCoreSums& t) {
  auto pct = [](TimeNs part, TimeNs whole) {
    return ratio_pct(static_cast<double>(part), static_cast<double>(whole));
  };
  m.set("tensor_core.kernel_time_pct", pct(t.tc_kernel_ns, t.kernel_ns));
  m.set("tensor_core.eligible_kernel_time_pct", pct(t.eligible_self_kernel_ns, t.op_kernel_ns));
  m.set("tensor_core.efficiency_pct", pct(t.eligible_tc_kernel_ns, t.eligible_total_kernel_ns));
  // What kept the eligible ops' kernel time off Tensor Cores: shares of that time.
  TimeNs off_tc = t.eligible_total_kernel_ns - t.eligible_tc_kernel_ns;
  m.set("tensor_core.non_tc_layout_pct", pct(t.eligible_layout_kernel_ns, off_tc));
  m.set("tensor_core.non_tc_fp32_pct", pct(t.eligible_fp32_kernel_ns, off_tc));
  m.set("tensor_core.non_tc_half_precision_pct", pct(t.eligible_half_kernel_ns, off_tc));
  m.set("tensor_core.non_tc_unknown_precision_pct", pct(t.eligible_unknown_kernel_ns, off_tc));
  TimeNs without_tc =
      t.without_tc_fp32_kernel_ns + t.without_tc_half_kernel_ns + t.without_tc_unknown_kernel_ns;
  m.set("tensor_core.no_tc_ops_fp32_pct", pct(t.without_tc_fp32_kernel_ns, without_tc));
  m.set("tensor_core.no_tc_ops_half_precision_pct", pct(t.without_tc_half_kernel_ns, without_tc));
  m.set("tensor_core.no_tc_ops_unknown_precision_pct", pct(t.without_tc_unknown_kernel_ns, without_tc));
  if (t.kernel_ns > 0) {
    m.set("tensor_core.eligible_ops_not_using_tc", d(t.eligible_op_names_without_tc));
    m.set("tensor_core.misaligned_shapes", d(t.misaligned_shapes));
  }
}

void set_copies(MetricValues& m, std::string_view direction, const HostActivitySums::Copies& c) {
  m.set(fmt::format("memcpy.{}_count", direction), d(c.count));
  m.set(fmt::format("memcpy.{}_bytes", direction), d(c.bytes));
  if (c.time > 0 && c.bytes > 0)
    m.set(fmt::format("memcpy.{}_gbps", direction), d(c.bytes) / static_cast<double>(c.time));
}

void set_host_metrics(MetricValues& m, const MetricInputs& in) {
  const HostActivitySums& h = in.host;
  if (in.has_runtime || !in.gpus.empty()) {
    m.set("host.runtime_pct", ratio_pct(us(h.runtime_time), us(h.step_time)));
    m.set("host.sync_calls", d(h.sync_calls));
    m.set("host.sync_us", us(h.sync_time));
    m.set("host.sync_pct", ratio_pct(us(h.sync_time), us(h.step_time)));
  }
  // Kernel and copy counts are 0, not n/a, where the GPU side was traced and nothing ran (an nsys
  // export with no kernel table); n/a only where there is no GPU at all.
  if (in.gpus.empty() && !in.has_runtime && !in.has_devices) return;
  m.set("kernels.count", d(h.kernels));
  m.set("kernels.total_us", us(h.kernel_time));
  if (h.kernels > 0) {
    m.set("kernels.mean_us", us(h.kernel_time) / d(h.kernels));
    m.set("kernels.short_pct", 100.0 * d(h.short_kernels) / d(h.kernels));
  }
  if (h.median_launch_gap) m.set("kernels.launch_gap_us", us(*h.median_launch_gap));
  m.set("kernels.without_launch", d(h.kernels_without_launch));
  m.set("host.graph_launches", d(h.graph_launches));
  if (h.graph_capture_workers > 0 && h.graph_kernel_time > 0)
    m.set("kernels.graph_capture_coverage_pct",
          100.0 * d(h.graph_kernel_time_placed) / d(h.graph_kernel_time));
  if (h.kernel_time > 0) m.set("kernels.graph_replay_pct", 100.0 * d(h.graph_kernel_time) / d(h.kernel_time));
  if (h.kernel_time > 0) m.set("kernels.compiled_pct", 100.0 * d(h.compiled_kernel_time) / d(h.kernel_time));
  m.set("memcpy.count", d(h.all_copies.count));
  m.set("memcpy.bytes", d(h.all_copies.bytes));
  set_copies(m, "h2d", h.h2d);
  set_copies(m, "d2h", h.d2h);
  set_copies(m, "d2d", h.d2d);
  m.set("memcpy.pageable_count", d(h.pageable_copies));
  m.set("memcpy.sync_count", d(h.sync_copies));
  m.set("memset.sync_count", d(h.sync_memsets));
}

void set_parallelism_metrics(MetricValues& m, const ParallelismSums& p) {
  m.set("distributed.data_parallel_calls", d(p.data_parallel_calls));
  m.set("distributed.ddp_calls", d(p.ddp_calls));
  m.set("distributed.nccl_calls", d(p.nccl_calls));
}

void set_communication_metrics(MetricValues& m, const MetricInputs& in) {
  const CommunicationSums& c = in.communication;
  if (!in.gpus.empty()) {
    m.set("communication.pct", ratio_pct(us(c.kernel_time), us(c.window)));
    m.set("communication.overlap_pct", ratio_pct(us(c.overlapped), us(c.kernel_time)));
  }
  m.set("communication.collectives", d(c.collectives));
  if (c.bytes_known) m.set("communication.bytes", d(c.bytes));
}

void set_critical_path_metrics(MetricValues& m, const MetricInputs& in) {
  if (in.path_steps == 0) return;
  m.set("critical_path.length_us", us(in.path_length) / static_cast<double>(in.path_steps));
  for (std::size_t b = 0; b < kPathBounds; ++b) {
    const char* bound = path_bound_name(static_cast<PathBound>(b));
    m.set(fmt::format("critical_path.{}_pct", bound), ratio_pct(us(in.path_by[b]), us(in.path_length)));
    // The same time as a share of the steps: what bounds a finding's gain (a rule's `on_path`).
    m.set(fmt::format("critical_path.{}_step_pct", bound), ratio_pct(us(in.path_by[b]), us(in.path_span)));
  }
  // The steps' time no path explains (HTA's path leaves out idle host gaps between top-level ops,
  // and without synchronisation events the GPU's work never joins the host's): a cause may own
  // that time too, so a gain's bound by the path adds it.
  m.set("critical_path.uncovered_step_pct",
        ratio_pct(std::max(0.0, us(in.path_span) - us(in.path_length)), us(in.path_span)));
}

void set_memory_and_compute(MetricValues& m, const MetricInputs& in) {
  if (in.memory.peak_allocated)
    m.set("memory.peak_allocated_bytes", static_cast<double>(*in.memory.peak_allocated));
  m.set("memory.peak_pct", in.memory.peak_pct);
  if (in.memory.peak_allocated) m.set("memory.totals_recorded", in.memory.totals_from_changes ? 0.0 : 1.0);
  if (in.memory.peak_reserved)
    m.set("memory.peak_reserved_bytes", static_cast<double>(*in.memory.peak_reserved));
  const ComputeSums& c = in.compute;
  std::optional<double> coverage =
      ratio_pct(static_cast<double>(c.eligible_device_counted), static_cast<double>(c.eligible_device));
  m.set("compute.flops_coverage_pct", coverage);
  if (c.flops > 0) m.set("compute.flops", c.flops);
  if (c.flops > 0) m.set("compute.peak_known_pct", 100.0 * c.flops_at_known_peak / c.flops);
  // FLOPs known for a sliver of the eligible work make a rate that means nothing: n/a below the
  // coverage (no eligible op at all: the counted ops are all there is).
  if (coverage && *coverage < c.min_coverage_pct) return;
  if (c.flops > 0 && in.window > 0)
    m.set("compute.tflops_achieved", c.flops / (static_cast<double>(in.window) / 1e9) / 1e12);
  if (c.flops_at_known_peak > 0 && in.gpu_seconds > 0)
    m.set("compute.mfu_pct", 100.0 * c.ideal_seconds / in.gpu_seconds);
}

// The share of the step faster kernels would save (docs/metrics.md, "Roofline"): where the GPU
// idles waiting for the host (the next launch call came after the stream's previous activity ended),
// a kernel that ends sooner only lengthens the wait, so the saving counts beyond that idle time
// (the GPU idle share x the host-wait share of the gaps; no gaps: none). The one place the
// roofline's gain is bounded; a bound by the time on the critical path composes here.
double step_saving_pct(const MetricValues& m, double saving_pct) {
  double idle = m.get("gpu.idle_pct").value_or(0);
  double host_wait = m.get("gpu.idle_host_wait_pct").value_or(0);
  return std::max(0.0, saving_pct - idle * host_wait / 100.0);
}

// The roofline's metrics (docs/metrics.md, "Roofline"): n/a without modelled GPU work.
void set_roofline_metrics(MetricValues& m, const MetricInputs& in) {
  const RooflineSums& r = in.roofline;
  m.set("roofline.coverage_pct",
        ratio_pct(static_cast<double>(r.modelled_kernel_ns),
                  static_cast<double>(r.modelled_kernel_ns + r.unmodelled_kernel_ns)));
  m.set("roofline.matrix_coverage_pct",
        ratio_pct(static_cast<double>(r.matrix_modelled_kernel_ns), static_cast<double>(r.matrix_kernel_ns)));
  if (r.peaked_kernel_ns <= 0) return;
  m.set("roofline.pct",
        100.0 * static_cast<double>(r.roofline_ps) / 1000.0 / static_cast<double>(r.peaked_kernel_ns));
  if (in.gpu_seconds <= 0) return;
  double saving = 100.0 * static_cast<double>(r.target_saving_ps) / 1e12 / in.gpu_seconds;
  m.set("roofline.saving_pct", saving);
  m.set("roofline.step_saving_pct", step_saving_pct(m, saving));
}

void set_rank_metrics(MetricValues& m, const MetricInputs& in) {
  const auto& means = in.rank_mean_steps_us;
  if (means.empty()) return;
  m.set("ranks.count", d(means.size()));
  if (means.size() < 2) return;
  // One tie rule everywhere: of equal mean steps, the first worker (std::max_element and
  // std::min_element return the first; std::minmax_element's maximum is the last).
  auto hi = std::max_element(means.begin(), means.end());
  auto lo = std::min_element(means.begin(), means.end());
  std::optional<SummaryStats> s = summarize(means);
  if (s && s->median > 0) m.set("ranks.step_spread_pct", 100.0 * (*hi - *lo) / s->median);
  m.set("ranks.slowest", static_cast<double>(in.rank_ids[static_cast<std::size_t>(hi - means.begin())]));
  m.set("ranks.fastest", static_cast<double>(in.rank_ids[static_cast<std::size_t>(lo - means.begin())]));
}

// Which ranks of the job the profiles hold: "2 of 128" when a run folder holds a sample of them.
void set_world_metrics(MetricValues& m, const MetricInputs& in) {
  m.set("ranks.present", d(in.ranks_present));
  if (in.world_size) m.set("ranks.world_size", static_cast<double>(*in.world_size));
  if (in.ranks_expected) m.set("ranks.expected", static_cast<double>(*in.ranks_expected));
}

// A run of Neuron profiles alone: no GPU, CPU op or step was recorded, so every metric but the
// neuron.* family and the rank count is not applicable (never 0).
void keep_only_neuron_metrics(MetricValues& m) {
  std::span<const MetricInfo> catalog = metric_catalog();
  for (std::size_t i = 0; i < catalog.size(); ++i)
    if (!catalog[i].name.starts_with("neuron.") && catalog[i].name != "ranks.count" &&
        catalog[i].name != "ranks.present" && catalog[i].name != "ranks.expected")
      m.set_at(i, std::nullopt);
}

}  // namespace

MetricValues metrics_of(const MetricInputs& in) {
  MetricValues m;
  m.set("window.wall_us", us(in.window));
  if (in.capture_span > 0) m.set("window.capture_span_us", us(in.capture_span));
  if (in.gpu_span > 0) m.set("window.gpu_span_us", us(in.gpu_span));
  m.set("window.steps_total", d(in.steps_total));
  m.set("window.steps_in_window", d(in.step_durations_us.size()));
  m.set("window.steps_dropped", d(in.steps_dropped));
  if (in.iter_start) m.set("window.iter_start", static_cast<double>(*in.iter_start));
  if (in.iter_stop) m.set("window.iter_stop", static_cast<double>(*in.iter_stop));
  set_step_metrics(m, in.step_durations_us);
  set_gpu_metrics(m, in);
  set_breakdown_and_resources(m, in);
  set_tensor_core_metrics(m, in.tensor_cores);
  set_host_metrics(m, in);
  set_communication_metrics(m, in);
  set_critical_path_metrics(m, in);
  set_memory_and_compute(m, in);
  set_roofline_metrics(m, in);
  set_rank_metrics(m, in);
  set_world_metrics(m, in);
  set_parallelism_metrics(m, in.parallelism);
  if (in.neuron.profiles > 0 && in.gpus.empty()) {
    keep_only_neuron_metrics(m);
    // ranks.count counts the workers with steps (set_rank_metrics); a Neuron profile has none, so
    // each profile is a worker.
    m.set("ranks.count", static_cast<double>(in.neuron.profiles));
  }
  set_neuron_metrics(m, in.neuron);
  return m;
}

MetricInputs worker_inputs(const WorkerAnalysis& w) {
  MetricInputs in;
  for (std::size_t i : w.window.steps) in.step_durations_us.push_back(us(w.steps.steps[i].duration()));
  in.window = w.window.length();
  in.capture_span = w.window.capture_end - w.window.capture_start;
  in.gpu_span = w.window.gpu_end - w.window.gpu_start;
  in.gpu_seconds = static_cast<double>(in.window) / 1e9 * static_cast<double>(w.gpus.size());
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
  in.host = w.host;
  in.idle = w.idle;
  in.communication = w.communication;
  in.memory = w.memory;
  in.parallelism = w.parallelism;
  in.neuron = w.neuron;
  for (const CriticalPathStep& s : w.critical_path.steps) {
    add_time(in.path_length, s.length);
    for (std::size_t b = 0; b < kPathBounds; ++b) add_time(in.path_by[b], s.by[b]);
    add_time(in.path_span, s.span);
  }
  in.path_steps = w.critical_path.steps.size();
  return in;
}

MetricValues worker_metrics(const WorkerAnalysis& w) {
  return metrics_of(worker_inputs(w));
}

}  // namespace perfgate
