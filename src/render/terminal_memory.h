// The terminal's Memory lines for a PyTorch memory snapshot: the replayed peak and the state at the
// end with its fragmentation, the sites most live at the peak, and each out-of-memory error, read
// from the snapshot's metrics and tables (report/memory_snapshot_tables.cpp).
#pragma once

#include <vector>

#include "render/terminal_neuron.h"
#include "report_model/report.h"

namespace perfgate {

// Empty when the run holds no memory snapshot.
std::vector<TerminalLine> memory_snapshot_lines(const ReportModel& r);

// A run of memory snapshots alone: no step, no GPU activity, so the GPU lines would read n/a throughout.
bool snapshot_alone(const ReportModel& r);

}  // namespace perfgate
