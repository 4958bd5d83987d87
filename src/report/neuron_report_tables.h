// The report tables of a Neuron device profile (docs/metrics.md, "Neuron tables").
#pragma once

#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/neuron/neuron_results.h"
#include "report_model/report.h"

namespace perfgate {

// neuron_ops, neuron_engines, neuron_dma_queues, neuron_layers, neuron_notes, neuron_timeline.
std::vector<ReportTable> neuron_report_tables(const NeuronTables& tables);

// The "ranks" table of a run of Neuron profiles: each profile's total time, active share and
// utilizations, the slowest marked (the GPU ranks table's step columns do not apply).
ReportTable neuron_ranks_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks);

}  // namespace perfgate
