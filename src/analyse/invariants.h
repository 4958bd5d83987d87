// The report invariants' checker (common/report_invariants.h): run on a worker's and a run's
// metrics and roofline rows once they are computed, it withholds each number that breaks one (an
// absent metric is n/a) and returns what it found, for the report to state.
#pragma once

#include <optional>
#include <vector>

#include "analyse/gpu/gpu_results.h"
#include "analyse/metric_values.h"
#include "common/report_invariants.h"

namespace perfgate {
struct WorkerAnalysis;
struct RunAnalysis;
}  // namespace perfgate

namespace perfgate {

// The invariants on metrics: shares of a peak, throughput and MFU over one span, partitions, coverage.
std::vector<InvariantViolation> check_metric_invariants(const MetricInputs& in, MetricValues& m);

// Roofline rows above their roofline: each such row is marked withheld; one violation names them.
std::optional<InvariantViolation> check_roofline_rows(std::vector<RooflineRow>& rows);
// Each transfer row's copies at most at its host link's bandwidth (memcpy.link_at_most_peak): sets
// RooflineRow::link_withheld.
std::optional<InvariantViolation> check_link_rows(std::vector<RooflineRow>& rows);

// A worker's metrics from its analysis, checked: its invariants (the reports' "Data quality").
void set_worker_metrics(WorkerAnalysis& w);
// The run's metrics, checked: its invariants (a lone worker's are its own, stated once as such).
void set_run_metrics(RunAnalysis& run, const std::vector<std::int64_t>& rank_ids,
                     const std::vector<std::int64_t>& missing_ranks);

}  // namespace perfgate
