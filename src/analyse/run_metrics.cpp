// A run of several workers as one: the same MetricInputs as a worker, combined.
#include <algorithm>
#include <numeric>
#include <set>

#include "analyse/metric_values.h"
#include "analyse/step_stats.h"

namespace perfgate {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}

void add(HostActivitySums::Copies& to, const HostActivitySums::Copies& from) {
  to.count += from.count;
  to.bytes += from.bytes;
  add_time(to.time, from.time);
}

void add(HostActivitySums& to, const HostActivitySums& from) {
  to.sync_calls += from.sync_calls;
  add_time(to.sync_time, from.sync_time);
  add_time(to.runtime_time, from.runtime_time);
  add_time(to.step_time, from.step_time);
  to.kernels += from.kernels;
  to.short_kernels += from.short_kernels;
  to.kernels_without_launch += from.kernels_without_launch;
  add_time(to.kernel_time, from.kernel_time);
  add(to.h2d, from.h2d);
  add(to.d2h, from.d2h);
  add(to.d2d, from.d2d);
  add(to.all_copies, from.all_copies);
  to.pageable_copies += from.pageable_copies;
  to.sync_copies += from.sync_copies;
  to.sync_memsets += from.sync_memsets;
}

void add(ParallelismSums& to, const ParallelismSums& from) {
  to.data_parallel_calls += from.data_parallel_calls;
  to.ddp_calls += from.ddp_calls;
  to.nccl_calls += from.nccl_calls;
}

void add(TensorCoreSums& to, const TensorCoreSums& from) {
  add_time(to.kernel_ns, from.kernel_ns);
  add_time(to.tc_kernel_ns, from.tc_kernel_ns);
  add_time(to.op_kernel_ns, from.op_kernel_ns);
  add_time(to.eligible_self_kernel_ns, from.eligible_self_kernel_ns);
  add_time(to.eligible_total_kernel_ns, from.eligible_total_kernel_ns);
  add_time(to.eligible_tc_kernel_ns, from.eligible_tc_kernel_ns);
  add_time(to.eligible_layout_kernel_ns, from.eligible_layout_kernel_ns);
  add_time(to.eligible_fp32_kernel_ns, from.eligible_fp32_kernel_ns);
  add_time(to.eligible_half_kernel_ns, from.eligible_half_kernel_ns);
  add_time(to.eligible_unknown_kernel_ns, from.eligible_unknown_kernel_ns);
  add_time(to.without_tc_fp32_kernel_ns, from.without_tc_fp32_kernel_ns);
  add_time(to.without_tc_half_kernel_ns, from.without_tc_half_kernel_ns);
  add_time(to.without_tc_unknown_kernel_ns, from.without_tc_unknown_kernel_ns);
  to.eligible_ops_without_tc += from.eligible_ops_without_tc;
  // Distinct names cannot be summed across workers: the largest worker count is a lower bound.
  to.eligible_op_names_without_tc =
      std::max(to.eligible_op_names_without_tc, from.eligible_op_names_without_tc);
  to.misaligned_shapes = std::max(to.misaligned_shapes, from.misaligned_shapes);
}

void add(IdleSums& to, const IdleSums& from) {
  add_time(to.host_wait, from.host_wait);
  add_time(to.kernel_wait, from.kernel_wait);
  add_time(to.other, from.other);
  for (std::size_t c = 0; c < kIdleCauses; ++c) add_time(to.by_cause[c], from.by_cause[c]);
  if (from.longest_gap) to.longest_gap = std::max(to.longest_gap.value_or(0), *from.longest_gap);
  to.long_gaps += from.long_gaps;
}

void add(CommunicationSums& to, const CommunicationSums& from) {
  add_time(to.kernel_time, from.kernel_time);
  add_time(to.overlapped, from.overlapped);
  add_time(to.window, from.window);
  to.collectives += from.collectives;
  to.bytes += from.bytes;
  to.bytes_known = to.bytes_known || from.bytes_known;
}

void add(ComputeSums& to, const ComputeSums& from) {
  to.flops += from.flops;
  to.flops_at_known_peak += from.flops_at_known_peak;
  to.ideal_seconds += from.ideal_seconds;
  add_time(to.eligible_device, from.eligible_device);
  add_time(to.eligible_device_counted, from.eligible_device_counted);
}

void add(MemorySums& to, const MemorySums& from) {
  std::optional<std::int64_t> reserved = std::max(to.peak_reserved, from.peak_reserved);
  if (from.peak_allocated && (!to.peak_allocated || *from.peak_allocated > *to.peak_allocated)) to = from;
  to.peak_reserved = reserved;
}

// The median of the workers' median launch gaps (medians do not add up).
std::optional<TimeNs> median_of(const std::vector<WorkerAnalysis>& workers) {
  std::vector<double> gaps;
  for (const auto& w : workers)
    if (w.host.median_launch_gap) gaps.push_back(static_cast<double>(*w.host.median_launch_gap));
  if (gaps.empty()) return std::nullopt;
  std::sort(gaps.begin(), gaps.end());
  return static_cast<TimeNs>(percentile(gaps, 50));
}

}  // namespace

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

MetricValues run_metrics(const std::vector<WorkerAnalysis>& workers,
                         const std::vector<std::int64_t>& rank_ids) {
  MetricInputs run;
  if (workers.size() == 1) run = worker_inputs(workers.front());
  if (workers.size() > 1) {
    for (const auto& [name, duration] : run_steps(workers)) run.step_durations_us.push_back(duration);
    run.steps_total = workers.front().steps.steps.size();
    for (const auto& w : workers) {
      MetricInputs one = worker_inputs(w);
      run.window = std::max(run.window, one.window);
      run.gpu_seconds += one.gpu_seconds;
      run.steps_total = std::min(run.steps_total, one.steps_total);
      run.steps_dropped = std::max(run.steps_dropped, one.steps_dropped);
      run.gpus.insert(run.gpus.end(), one.gpus.begin(), one.gpus.end());
      for (std::size_t i = 0; i < kBreakdownParts; ++i)
        run.breakdown_us[i] += one.breakdown_us[i] / static_cast<double>(workers.size());
      for (std::size_t i = 0; i < kResourceParts; ++i)
        run.resources_us[i] += one.resources_us[i] / static_cast<double>(workers.size());
      run.has_runtime = run.has_runtime || one.has_runtime;
      add(run.tensor_cores, one.tensor_cores);
      add(run.compute, one.compute);
      add(run.host, one.host);
      add(run.idle, one.idle);
      add(run.communication, one.communication);
      add(run.memory, one.memory);
      add(run.parallelism, one.parallelism);
    }
    run.host.median_launch_gap = median_of(workers);
    run.ranks_present = std::set<std::int64_t>(rank_ids.begin(), rank_ids.end()).size();
    for (const auto& w : workers)
      if (w.info.world_size) run.world_size = std::max(run.world_size.value_or(0), *w.info.world_size);
  }
  for (std::size_t i = 0; i < workers.size(); ++i) {
    std::vector<double> durations;
    for (std::size_t s : workers[i].window.steps)
      durations.push_back(us(workers[i].steps.steps[s].duration()));
    if (durations.empty()) continue;
    run.rank_mean_steps_us.push_back(std::accumulate(durations.begin(), durations.end(), 0.0) /
                                     static_cast<double>(durations.size()));
    run.rank_ids.push_back(i < rank_ids.size() ? rank_ids[i] : static_cast<std::int64_t>(i));
  }
  return metrics_of(run);
}

}  // namespace perfgate
