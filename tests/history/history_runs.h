// Run histories made in code for the trend tests: runs with chosen metric values, and 30 runs of
// the default gate's metrics with noise, optionally with a step planted in the step time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "history/history.h"
#include "support/noise.h"

namespace perfgate::testing {

using MetricList = std::vector<std::pair<Metric, std::optional<double>>>;

inline HistoryRun history_run(std::int64_t id, std::string commit, MetricList metrics,
                              std::string branch = "main") {
  HistoryRun run;
  run.id = id;
  run.time = fmt::format("2026-11-{:02d}T10:00:00Z", 1 + id % 28);
  run.labels.branch = std::move(branch);
  run.labels.commit = std::move(commit);
  for (const auto& [metric, value] : metrics) run.data.metrics.set(metric, value);
  return run;
}

// `before` runs at one value of each metric given, then `after` runs at another; commits c0, c1, ...
inline std::vector<HistoryRun> stepped_runs(std::size_t before, std::size_t after,
                                            const std::vector<std::tuple<Metric, double, double>>& metrics) {
  std::vector<HistoryRun> runs;
  for (std::size_t i = 0; i < before + after; ++i) {
    MetricList values;
    for (const auto& [name, old_value, new_value] : metrics)
      values.emplace_back(name, i < before ? old_value : new_value);
    runs.push_back(history_run(static_cast<std::int64_t>(i + 1), fmt::format("c{}", i), values));
  }
  return runs;
}

// A 40-hex-digit commit id, different for each run.
inline std::string commit_of(std::size_t i) {
  return fmt::format("{:08x}{:032x}", 0x5eed0000u + i, std::uint64_t{0x9e3779b97f4a7c15u} * (i + 1));
}

inline constexpr std::size_t kPlantedRuns = 30;
inline constexpr std::size_t kPlantedAt = 17;  // the 18th run is the first 10% slower one

// 30 runs: median step 12 ms (+10% from run index 17 when `step`), GPU utilization 70%, Tensor
// Core time 40%, data loader 5%, each with 2% noise; peak memory a constant 8 GB.
inline std::vector<HistoryRun> planted_history(std::uint64_t seed, bool step) {
  auto level = [](double v) { return [v](std::size_t) { return v; }; };
  std::vector<double> steps = noisy_series(
      kPlantedRuns, seed, [&](std::size_t i) { return step && i >= kPlantedAt ? 13200.0 : 12000.0; }, 2);
  std::vector<double> util = noisy_series(kPlantedRuns, seed + 1, level(70), 2);
  std::vector<double> tc = noisy_series(kPlantedRuns, seed + 2, level(40), 2);
  std::vector<double> loader = noisy_series(kPlantedRuns, seed + 3, level(5), 2);
  std::vector<HistoryRun> runs;
  for (std::size_t i = 0; i < kPlantedRuns; ++i)
    runs.push_back(history_run(static_cast<std::int64_t>(i + 1), commit_of(i),
                               {{Metric::StepsMedianUs, steps[i]},
                                {Metric::GpuUtilizationPct, util[i]},
                                {Metric::TensorCoreKernelTimePct, tc[i]},
                                {Metric::BreakdownDataloaderPct, loader[i]},
                                {Metric::MemoryPeakAllocatedBytes, 8e9}}));
  return runs;
}

}  // namespace perfgate::testing
