// A run of several workers as one: the same MetricInputs as a worker, combined.
#include <algorithm>
#include <numeric>
#include <set>

#include "analyse/metric_values.h"
#include "analyse/run/capture_check.h"
#include "analyse/run/worker_hold.h"
#include "analyse/steps/step_stats.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}

// The median of the workers' median launch gaps (medians do not add up).
std::optional<TimeNs> median_of(const WorkerList& workers) {
  std::vector<double> gaps;
  for (const auto& w : looked(workers))
    if (w.host.median_launch_gap) gaps.push_back(static_cast<double>(*w.host.median_launch_gap));
  if (gaps.empty()) return std::nullopt;
  std::sort(gaps.begin(), gaps.end());
  return static_cast<TimeNs>(percentile(gaps, 50));
}

// Whether `worker` is of the run's host and GPU side: every worker but a Neuron profile in a run
// that has others (a run of Neuron profiles alone keeps them all).
bool counts_for_host_and_gpu(const WorkerList& workers, const WorkerAnalysis& worker) {
  if (worker.info.family != DeviceFamily::Neuron) return true;
  return std::all_of(workers.begin(), workers.end(),
                     [](const WorkerAnalysis& w) { return w.info.family == DeviceFamily::Neuron; });
}

// A window step's time: under a clock offset the GPUs' (WorkerAnalysis::gpu_step_times, one span
// for every time figure of the worker, docs/metrics.md "Clock offsets"), else the host's.
double window_step_us(const WorkerAnalysis& w, std::size_t in_window) {
  if (w.gpu_step_times.size() == w.window.steps.size()) return us(w.gpu_step_times[in_window]);
  return us(w.steps.steps[w.window.steps[in_window]].duration());
}

}  // namespace

std::vector<std::pair<std::string, double>> run_steps(const WorkerList& workers) {
  std::vector<std::pair<std::string, double>> steps;
  auto counted = [&](const WorkerAnalysis& w) { return counts_for_host_and_gpu(workers, w); };
  auto front = std::find_if(workers.begin(), workers.end(), counted);
  if (front == workers.end()) return steps;
  for (std::size_t k = 0; k < front->window.steps.size(); ++k) {
    const Step& first = front->steps.steps[front->window.steps[k]];
    double longest = window_step_us(*front, k);
    bool everywhere = true;
    for (std::size_t w = 0; w < workers.size() && everywhere; ++w) {
      look_after_worker(w);
      if (&workers[w] == &*front || !counted(workers[w])) continue;
      everywhere = false;
      for (std::size_t j = 0; j < workers[w].window.steps.size(); ++j) {
        const Step& s = workers[w].steps.steps[workers[w].window.steps[j]];
        if (s.name == first.name) {
          longest = std::max(longest, window_step_us(workers[w], j));
          everywhere = true;
          break;
        }
      }
    }
    if (everywhere) steps.emplace_back(first.name, longest);
  }
  return steps;
}

MetricInputs run_inputs(const WorkerList& workers, const std::vector<std::int64_t>& rank_ids,
                        const std::vector<std::int64_t>& missing_ranks) {
  MetricInputs run;
  if (workers.size() == 1) run = worker_inputs(workers.front());
  if (workers.size() > 1) {
    for (const auto& [name, duration] : run_steps(workers)) run.step_durations_us.push_back(duration);
    // A mixed run's host and GPU side is its GPU and CPU-only workers: a Neuron profile has no steps
    // and no GPU, and adds its neuron.* values only (issue 54), never zeros to their means.
    auto counted = [&](const WorkerAnalysis& w) { return counts_for_host_and_gpu(workers, w); };
    std::size_t counted_workers = 0;
    for (const WorkerAnalysis& w : looked(workers)) counted_workers += counted(w) ? 1 : 0;
    const auto gpu_side = static_cast<double>(counted_workers);
    run.steps_total = std::find_if(workers.begin(), workers.end(), counted)->steps.steps.size();
    for (std::size_t at = 0; at < workers.size(); ++at) {
      const WorkerAnalysis& w = workers[at];
      look_after_worker(at);
      run.neuron += w.neuron;
      run.families.add(w.info.family);
      if (!counted(w)) continue;
      MetricInputs one = worker_inputs(w);
      run.window = std::max(run.window, one.window);
      run.capture_span = std::max(run.capture_span, one.capture_span);
      run.gpu_span = std::max(run.gpu_span, one.gpu_span);
      run.gpu_seconds += one.gpu_seconds;
      run.over_gpu_span = run.over_gpu_span || one.over_gpu_span;
      run.steps_total = std::min(run.steps_total, one.steps_total);
      run.steps_dropped = std::max(run.steps_dropped, one.steps_dropped);
      run.gpus.insert(run.gpus.end(), one.gpus.begin(), one.gpus.end());
      for (std::size_t i = 0; i < kBreakdownParts; ++i) run.breakdown_us[i] += one.breakdown_us[i] / gpu_side;
      for (std::size_t i = 0; i < kResourceParts; ++i) run.resources_us[i] += one.resources_us[i] / gpu_side;
      run.has_runtime = run.has_runtime || one.has_runtime;
      run.tensor_cores += one.tensor_cores;
      run.compute += one.compute;
      run.roofline += one.roofline;
      run.serving += one.serving;
      run.op_calls += one.op_calls;
      run.host += one.host;
      run.idle += one.idle;
      run.communication += one.communication;
      run.memory += one.memory;
      run.parallelism += one.parallelism;
      // The job's step waits for its slowest rank: the rank whose mean path is longest (the first
      // on a tie), until the path runs across ranks (docs/metrics.md, "Critical path").
      if (one.path_steps > 0 &&
          (run.path_steps == 0 ||
           static_cast<double>(one.path_length) / static_cast<double>(one.path_steps) >
               static_cast<double>(run.path_length) / static_cast<double>(run.path_steps))) {
        run.path_length = one.path_length;
        run.path_by = one.path_by;
        run.path_steps = one.path_steps;
        run.path_span = one.path_span;
      }
    }
    run.host.median_launch_gap = median_of(workers);
    run.ranks_present = std::set<std::int64_t>(rank_ids.begin(), rank_ids.end()).size();
    for (const auto& w : looked(workers))
      if (w.info.world_size) run.world_size = std::max(run.world_size.value_or(0), *w.info.world_size);
  }
  // A rank whose file was skipped is expected though absent (issue 54), a lone worker's run too.
  if (workers.size() > 1 || !missing_ranks.empty())
    run.ranks_expected = expected_ranks(workers, missing_ranks);
  for (std::size_t i = 0; i < workers.size(); ++i) {
    look_after_worker(i);
    std::vector<double> durations;
    for (std::size_t k = 0; k < workers[i].window.steps.size(); ++k)
      durations.push_back(window_step_us(workers[i], k));
    if (durations.empty()) continue;
    run.rank_mean_steps_us.push_back(std::accumulate(durations.begin(), durations.end(), 0.0) /
                                     static_cast<double>(durations.size()));
    run.rank_ids.push_back(i < rank_ids.size() ? rank_ids[i] : static_cast<std::int64_t>(i));
  }
  return run;
}

MetricValues run_metrics(const WorkerList& workers, const std::vector<std::int64_t>& rank_ids,
                         const std::vector<std::int64_t>& missing_ranks) {
  return metrics_of(run_inputs(workers, rank_ids, missing_ranks));
}

}  // namespace perfgate
