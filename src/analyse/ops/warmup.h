// Warm-up one-offs inside the window (issue 53): the first call of each warm-up runtime or driver
// call (context creation, the first cudaMalloc, module loads; rules: warmup_calls) and every JIT
// compilation range (rules: warmup_ranges), and where the window starts at the capture's own start
// (nsys), the start-up before its first recorded event. A window that holds them is not the steady state, and
// their host time is no launch overhead that CUDA graphs would remove.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyse/classifier.h"
#include "analyse/intervals.h"
#include "analyse/ops/op_results.h"
#include "common/notes.h"

namespace perfgate {

// `spans`: the window's steps (window_spans, host_activity.h); `host_start`: the window's host start.
Warmup warmup_in_window(const Profile& profile, NameClasses& classes, const std::vector<Interval>& spans,
                        TimeNs host_start);

// The note that names the longest one, or none where warm-up is under 5% of the window.
std::optional<Note> warmup_note(const Warmup& warmup, TimeNs step_time);

}  // namespace perfgate
