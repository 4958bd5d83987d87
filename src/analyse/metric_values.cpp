#include "analyse/metric_values.h"

#include <fmt/format.h>

#include "analyse/step_stats.h"

namespace perfgate {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
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

void set_step_metrics(MetricValues& m, const std::vector<double>& durations_us) {
  m.set("steps.count", static_cast<double>(durations_us.size()));
  std::optional<SummaryStats> s = summarize(durations_us);
  if (!s) return;
  m.set("steps.mean_us", s->mean);
  m.set("steps.median_us", s->median);
  m.set("steps.stddev_us", s->stddev);
  if (s->stddev && s->mean > 0) m.set("steps.cv_pct", 100.0 * *s->stddev / s->mean);
  m.set("steps.min_us", s->min);
  m.set("steps.max_us", s->max);
  m.set("steps.p90_us", s->p90);
  if (s->median > 0) m.set("steps.max_over_median", s->max / s->median);
}

void set_gpu_metrics(MetricValues& m, const std::vector<const GpuMetrics*>& gpus) {
  m.set("gpu.count", static_cast<double>(gpus.size()));
  if (gpus.empty()) return;
  m.set("gpu.utilization_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.utilization_pct; }));
  m.set("gpu.busy_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.busy_pct; }));
  m.set("gpu.idle_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.idle_pct; }));
  m.set("gpu.sm_efficiency_pct", mean_over(gpus, [](const GpuMetrics& g) { return g.sm_efficiency_pct; }));
  m.set("gpu.achieved_occupancy_pct",
        mean_over(gpus, [](const GpuMetrics& g) { return g.achieved_occupancy_pct; }));
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
void set_breakdown_metrics(MetricValues& m, const std::array<double, kBreakdownParts>& mean_us, bool has_gpu,
                           bool has_runtime) {
  set_split_metrics(
      m, "breakdown", mean_us,
      [](std::size_t i) { return breakdown_part_name(static_cast<BreakdownPart>(i)); },
      [&](std::size_t i) {
        switch (static_cast<BreakdownPart>(i)) {
          case BreakdownPart::Kernel:
          case BreakdownPart::Memcpy:
          case BreakdownPart::Memset:
            return has_gpu;
          case BreakdownPart::Runtime:
            return has_gpu || has_runtime;
          default:
            return true;
        }
      });
}

void set_resource_metrics(MetricValues& m, const std::array<double, kResourceParts>& resource_us,
                          bool has_gpu) {
  set_split_metrics(
      m, "resources", resource_us,
      [](std::size_t i) { return resource_part_name(static_cast<ResourcePart>(i)); },
      [&](std::size_t i) {
        auto part = static_cast<ResourcePart>(i);
        return has_gpu || (part != ResourcePart::TensorCoreKernels && part != ResourcePart::OtherKernels &&
                           part != ResourcePart::Memory);
      });
}

void set_tensor_core_metrics(MetricValues& m, const TensorCoreSums& t) {
  m.set("tensor_core.kernel_time_pct",
        ratio_pct(static_cast<double>(t.tc_kernel_ns), static_cast<double>(t.kernel_ns)));
  m.set("tensor_core.eligible_kernel_time_pct",
        ratio_pct(static_cast<double>(t.eligible_self_kernel_ns), static_cast<double>(t.op_kernel_ns)));
  m.set("tensor_core.efficiency_pct", ratio_pct(static_cast<double>(t.eligible_tc_kernel_ns),
                                                static_cast<double>(t.eligible_total_kernel_ns)));
}

std::vector<const GpuMetrics*> gpus_of(const std::vector<WorkerAnalysis>& workers) {
  std::vector<const GpuMetrics*> all;
  for (const auto& w : workers)
    for (const auto& g : w.gpus) all.push_back(&g);
  return all;
}

}  // namespace

MetricValues worker_metrics(const WorkerAnalysis& w) {
  MetricValues m;
  m.set("window.wall_us", us(w.window.length()));
  m.set("window.steps_total", static_cast<double>(w.steps.steps.size()));
  m.set("window.steps_in_window", static_cast<double>(w.window.steps.size()));
  m.set("window.steps_dropped", static_cast<double>(w.steps.dropped.size()));
  if (w.window.first_number) m.set("window.iter_start", static_cast<double>(*w.window.first_number));
  if (w.window.last_number) m.set("window.iter_stop", static_cast<double>(*w.window.last_number));

  std::vector<double> durations;
  for (std::size_t i : w.window.steps) durations.push_back(us(w.steps.steps[i].duration()));
  set_step_metrics(m, durations);

  std::vector<const GpuMetrics*> gpus;
  for (const auto& g : w.gpus) gpus.push_back(&g);
  set_gpu_metrics(m, gpus);

  std::array<double, kBreakdownParts> breakdown{};
  for (std::size_t i = 0; i < kBreakdownParts; ++i) breakdown[i] = us(w.mean_breakdown[i]);
  set_breakdown_metrics(m, breakdown, !w.gpus.empty(), w.has_runtime_calls);

  std::array<double, kResourceParts> resources{};
  for (std::size_t i = 0; i < kResourceParts; ++i) resources[i] = us(w.resources[i]);
  set_resource_metrics(m, resources, !w.gpus.empty());

  set_tensor_core_metrics(m, w.tensor_cores);
  return m;
}

std::vector<std::pair<std::string, double>> run_steps(const std::vector<WorkerAnalysis>& workers) {
  std::vector<std::pair<std::string, double>> steps;
  if (workers.empty()) return steps;
  for (std::size_t i : workers.front().window.steps) {
    const Step& first = workers.front().steps.steps[i];
    double longest = us(first.duration());
    bool everywhere = true;
    for (std::size_t w = 1; w < workers.size() && everywhere; ++w) {
      everywhere = false;
      for (std::size_t j : workers[w].window.steps) {
        const Step& s = workers[w].steps.steps[j];
        if (s.name == first.name) {
          longest = std::max(longest, us(s.duration()));
          everywhere = true;
          break;
        }
      }
    }
    if (everywhere) steps.emplace_back(first.name, longest);
  }
  return steps;
}

MetricValues run_metrics(const std::vector<WorkerAnalysis>& workers) {
  if (workers.size() == 1) return workers.front().metrics;
  MetricValues m;
  if (workers.empty()) return m;
  std::vector<std::pair<std::string, double>> steps = run_steps(workers);
  std::vector<double> durations;
  double wall = 0, steps_total = 1e300, dropped = 0;
  for (const auto& w : workers) {
    wall = std::max(wall, us(w.window.length()));
    steps_total = std::min(steps_total, static_cast<double>(w.steps.steps.size()));
    dropped = std::max(dropped, static_cast<double>(w.steps.dropped.size()));
  }
  for (const auto& [name, duration] : steps) durations.push_back(duration);
  m.set("window.wall_us", wall);
  m.set("window.steps_total", steps_total);
  m.set("window.steps_in_window", static_cast<double>(steps.size()));
  m.set("window.steps_dropped", dropped);
  set_step_metrics(m, durations);

  std::vector<const GpuMetrics*> gpus = gpus_of(workers);
  set_gpu_metrics(m, gpus);

  std::array<double, kBreakdownParts> breakdown{};
  std::array<double, kResourceParts> resources{};
  TensorCoreSums tc;
  bool has_runtime = false;
  for (const auto& w : workers) {
    for (std::size_t i = 0; i < kBreakdownParts; ++i)
      breakdown[i] += us(w.mean_breakdown[i]) / static_cast<double>(workers.size());
    for (std::size_t i = 0; i < kResourceParts; ++i)
      resources[i] += us(w.resources[i]) / static_cast<double>(workers.size());
    tc.kernel_ns += w.tensor_cores.kernel_ns;
    tc.tc_kernel_ns += w.tensor_cores.tc_kernel_ns;
    tc.op_kernel_ns += w.tensor_cores.op_kernel_ns;
    tc.eligible_self_kernel_ns += w.tensor_cores.eligible_self_kernel_ns;
    tc.eligible_total_kernel_ns += w.tensor_cores.eligible_total_kernel_ns;
    tc.eligible_tc_kernel_ns += w.tensor_cores.eligible_tc_kernel_ns;
    has_runtime = has_runtime || w.has_runtime_calls;
  }
  set_breakdown_metrics(m, breakdown, !gpus.empty(), has_runtime);
  set_resource_metrics(m, resources, !gpus.empty());
  set_tensor_core_metrics(m, tc);
  return m;
}

}  // namespace perfgate
