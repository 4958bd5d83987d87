// The report tables of a Neuron device profile (docs/metrics.md, "Neuron tables").
#pragma once

#include <vector>

#include "perfgate/report.h"
#include "perfgate/tables.h"

namespace perfgate {

// neuron_ops, neuron_engines, neuron_dma_queues, neuron_layers, neuron_notes, neuron_timeline.
std::vector<ReportTable> neuron_report_tables(const NeuronTables& tables);

}  // namespace perfgate
