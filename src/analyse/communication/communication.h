// Communication over the window: the share of time in communication kernels, how much of it
// compute kernels overlapped, and the collectives with their sizes where the trace records them.
#pragma once

#include "analyse/activity_intervals.h"
#include "analyse/communication/collective_calls.h"
#include "analyse/ops/op_info.h"
#include "analyse/ops/op_stats.h"

namespace perfgate {

// Kernel time in communication and its overlap with compute (the interval stage).
void communication_time(const ActivityIntervals& intervals, const Window& window, CommunicationSums& out);
// Collectives and their bytes (the op stage), in all and by op, and each call for the matching
// across ranks.
void collectives(const Profile& profile, const OpStats& stats, NameClasses& classes, ArgumentCache& args,
                 CommunicationSums& out, std::vector<CollectiveRow>& table, CollectiveCallRecorder& calls);

// Bytes of one element of a type as PyTorch names it ("Float", "c10::BFloat16", "float"), or 0.
int element_bytes(std::string_view type);

}  // namespace perfgate
