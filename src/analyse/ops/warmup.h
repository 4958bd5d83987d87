// One-offs inside the window. Warm-up (issue 53): the first call of each warm-up runtime or driver
// call (context creation, the first cudaMalloc, module loads; rules: warmup_calls) and every JIT
// compilation range (rules: warmup_ranges), and where the window starts at the capture's own start
// (nsys), the start-up before its first recorded event. Issue 72: a kernel launch at least 10 times
// the median of its name (a lazy module load inside a first launch), teardown calls after the
// capture's last GPU activity (rules: teardown_calls), and the profiler's own start and stop (rules:
// profiler_events). A window that holds them is not the steady state, and their host time is no
// launch overhead that CUDA graphs would remove: the steady-state shares leave them out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/intervals.h"
#include "analyse/ops/op_results.h"
#include "common/capture_profile.h"
#include "common/notes.h"

namespace perfgate {

// `spans`: the window's steps (window_spans, host_activity.h); `host_start`: the window's host start;
// `last_gpu_end`: the capture's last GPU activity's end (Window::gpu_end). `one_offs`: every one-off,
// merged (what the steady-state shares leave out).
Warmup warmup_in_window(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                        const std::vector<Interval>& spans, TimeNs host_start, TimeNs last_gpu_end,
                        IntervalList& one_offs);

// The window's phases as the capture profile holds them (issue 89): set-up (warm-up and outlier
// calls), teardown, the profiler's own start and stop, and the steady state (the window's steps
// less every one-off), each within the window's steps; the longest one-off named.
CapturePhases capture_phases(const Warmup& warmup, TimeNs step_time);

// The note that names the longest warm-up, or none where warm-up is under 5% of the window.
std::optional<Note> warmup_note(const Warmup& warmup, TimeNs step_time);
// A note for each other kind of one-off found (outlier calls, teardown, profiler start and stop).
std::vector<Note> one_off_notes(const Warmup& warmup, TimeNs step_time);

}  // namespace perfgate
