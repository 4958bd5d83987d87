// The run's tables beside `ranks`: what differs between the workers of a run.
#pragma once

#include <string>
#include <string_view>

#include "analyse/analysis_fwd.h"
#include "analyse/critical_path/critical_path_results.h"
#include "report_model/report.h"

namespace perfgate {

// Each rank's collectives by op, side by side: the time and bandwidth of the same collective on
// every rank (a straggler's collectives wait longest).
ReportTable rank_collectives_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks);

// The run's collectives matched across ranks: "collective_bandwidth" (by group, type and size),
// "rank_communication" (transfer and synchronizing time per rank) and "stragglers".
std::vector<ReportTable> collective_tables(const RunAnalysis& analysis,
                                           const std::vector<std::int64_t>& ranks);

// A worker's critical paths: "critical_path" (a row per window step) and "critical_path_ops"; where
// it has paths per inferred unit, "critical_path_units" and "critical_path_unit_ops".
std::vector<ReportTable> critical_path_tables(const CriticalPathSums& sums);
// Its first, "critical_path" alone: the one a worker past --detailed-workers keeps.
ReportTable critical_path_steps_table(const CriticalPathSums& sums);

// An inferred unit's identity (ReportInferredIterations::unit_names): its opening range's name, the
// `occurrence`th of that name in the window (1, 2, ...) followed by " (2)", " (3)", ...
std::string inferred_unit_name(std::string_view name, std::size_t occurrence);

// The job's critical path through collectives (RunAnalysis::job_path): "job_critical_path" (a row
// per step: its length and the rank that decides most of it) and "job_critical_path_ranks" (each
// rank's time on the job's paths).
std::vector<ReportTable> job_critical_path_tables(const RunAnalysis& analysis,
                                                  const std::vector<std::int64_t>& ranks);

// A memory snapshot's "memory_snapshot" (its devices), "memory_live_at_peak" and "memory_ooms".
std::vector<ReportTable> memory_snapshot_tables(const WorkerTables& tables);

// A run of memory snapshots (every worker one, a folder of them): "memory_snapshots", a row per
// snapshot from its own sums, the largest peak first (ties in the run's order).
ReportTable memory_snapshots_table(const RunAnalysis& analysis);
// Whether every worker of a run of several is a memory snapshot.
bool run_of_snapshots(const RunAnalysis& analysis);

// The run's ops, kernels and user regions: every worker's summed by name ("run_ops", ...).
std::vector<ReportTable> run_sum_tables(const RunTables& tables);

}  // namespace perfgate
