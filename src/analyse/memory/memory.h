// The GPU allocator from [memory] events (profile_memory=True): peak over the capture with the op
// that reached it, the totals over the window, and each op's allocations (the plugin's memory view).
#pragma once

#include "analyse/analysis_fwd.h"
#include "analyse/steps/step_results.h"
#include "model/profile.h"

namespace perfgate {

// Fills w.memory, w.tables.memory_ops and w.tables.memory_curve; `warnings` says when totals are
// counted from the capture's start.
void analyse_memory(const Profile& profile, const Window& window, WorkerAnalysis& w);

}  // namespace perfgate
