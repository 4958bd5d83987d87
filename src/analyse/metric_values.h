// Maps analysis results to catalog metrics: the one place where a metric name meets its value.
#pragma once

#include <vector>

#include "perfgate/analysis.h"

namespace perfgate {

MetricValues worker_metrics(const WorkerAnalysis& worker);

// A run of several workers: steps matched by name take the slowest worker's duration; GPU
// metrics average over every GPU of every worker; breakdowns average over workers; Tensor Core
// shares are ratios of the summed times.
MetricValues run_metrics(const std::vector<WorkerAnalysis>& workers);

// The run's steps: names present in every worker's window, each with the longest duration (µs).
std::vector<std::pair<std::string, double>> run_steps(const std::vector<WorkerAnalysis>& workers);

}  // namespace perfgate
