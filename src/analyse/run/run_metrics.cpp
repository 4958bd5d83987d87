// A run of several workers as one: the same MetricInputs as a worker, combined.
#include <algorithm>
#include <numeric>
#include <set>

#include "analyse/metric_values.h"
#include "analyse/run/capture_check.h"
#include "analyse/steps/step_stats.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
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
      run.capture_span = std::max(run.capture_span, one.capture_span);
      run.gpu_span = std::max(run.gpu_span, one.gpu_span);
      run.gpu_seconds += one.gpu_seconds;
      run.steps_total = std::min(run.steps_total, one.steps_total);
      run.steps_dropped = std::max(run.steps_dropped, one.steps_dropped);
      run.gpus.insert(run.gpus.end(), one.gpus.begin(), one.gpus.end());
      for (std::size_t i = 0; i < kBreakdownParts; ++i)
        run.breakdown_us[i] += one.breakdown_us[i] / static_cast<double>(workers.size());
      for (std::size_t i = 0; i < kResourceParts; ++i)
        run.resources_us[i] += one.resources_us[i] / static_cast<double>(workers.size());
      run.has_runtime = run.has_runtime || one.has_runtime;
      run.tensor_cores += one.tensor_cores;
      run.compute += one.compute;
      run.roofline += one.roofline;
      run.serving += one.serving;
      run.host += one.host;
      run.idle += one.idle;
      run.communication += one.communication;
      run.memory += one.memory;
      run.parallelism += one.parallelism;
      run.neuron += one.neuron;
      run.families.add(w.info.family);
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
    for (const auto& w : workers)
      if (w.info.world_size) run.world_size = std::max(run.world_size.value_or(0), *w.info.world_size);
    run.ranks_expected = expected_ranks(workers);
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
