// The aggregation window (DLProf's --iter_start/--iter_stop): the steps every metric is computed
// over. Default: all kept steps; without steps, the whole trace.
#pragma once

#include <vector>

#include "analyse/analysis_options.h"
#include "analyse/intervals.h"
#include "analyse/steps/step_results.h"
#include "common/notes.h"

namespace perfgate {

// Marks Step::in_window. Throws a RequestError naming the option (common/errors.h) when the options
// select no step.
Window select_window(StepDetection& detection, const WindowOptions& options);

// The capture span (first start to last end of any host range, runtime call, GPU activity, GPU
// range, synchronisation or memory sample) and the GPU span (first kernel, memcpy or memset start
// to last end, any GPU), whatever the window: what a trace without steps states beside its window,
// so that one long host wait inside a short stretch of GPU work reads as what it is.
void set_capture_spans(const Profile& profile, Window& window);

// The window's steps on the GPUs' clock, for a trace whose host and GPU timelines cannot be read
// together (a clock offset, docs/metrics.md "Clock offsets"): each step from the first start of the
// GPU work it launched (no earlier than the previous step's end) to that work's last end; a step
// that launched nothing is empty at the previous one's end. Without steps: the GPU span of the
// capture. Empty where no window step launched GPU work (the host's window stands).
std::vector<Interval> steps_on_gpu_clock(const StepDetection& detection, const Window& window);

// The note a window limited to a time range (WindowOptions::time_start, time_stop) carries: the range
// and the steps wholly inside it.
Note time_range_note(const Window& window, const WindowOptions& options);

}  // namespace perfgate
