// A rank's own work and its entry into the window (docs/metrics.md, "Ranks' own work and entry").
// A rank that enters a step early waits in its first collective for the others: its step is the
// longest without its work being the slowest. What decides the wait is each rank's arrival, its
// entry plus its own work before the collective; where the entries differ more than the own work,
// the skew came from before the window (a data loader, an earlier step) and the trace cannot show
// its cause.
#pragma once

#include <cstdint>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/communication/communication_results.h"
#include "common/metrics.h"

namespace perfgate {

// Sets each rank row's entered_after and own_work from the workers' steps (host starts) and the
// row's first arrivals; rows are in RunAnalysis::workers order (RankCommunicationRow::worker).
void set_rank_entries(RunCollectives& collectives, const WorkerList& workers);

// The ranks.* metrics of own work and entry, and ranks.work_spread_pct and ranks.most_work (which
// read the step spread where no rank's own work is known); after the run's metrics are set.
void set_rank_work_metrics(MetricValues& metrics, const RunCollectives& collectives,
                           const WorkerList& workers, const std::vector<std::int64_t>& rank_ids);

}  // namespace perfgate
