// The job's critical path through collectives (docs/metrics.md, "Job critical path"): per step, the
// chain of the late ranks' work between the step's collectives. No peer computes one (HTA lists
// multi-rank critical paths as future work); the definition is perfgate's, stated in the docs.
#pragma once

#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/communication/communication_results.h"
#include "analyse/critical_path/critical_path_results.h"
#include "common/metrics.h"

namespace perfgate {

// The job path of each step that has matched collectives; `positions` are the workers' in
// RunAnalysis::workers order. Empty for fewer than 2 workers.
std::vector<JobPathStep> job_critical_path(const std::vector<MatchedCollective>& matched,
                                           const WorkerList& workers,
                                           const std::vector<WorkerPosition>& positions);

// The job path's metrics: critical_path.job_length_us, .job_communication_pct,
// .job_bounding_rank and .job_bounding_rank_pct; `rank_ids` are the workers' ranks.
void set_job_path_metrics(MetricValues& metrics, const std::vector<JobPathStep>& steps,
                          const std::vector<std::int64_t>& rank_ids);

}  // namespace perfgate
