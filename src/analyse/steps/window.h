// The aggregation window (DLProf's --iter_start/--iter_stop): the steps every metric is computed
// over. Default: all kept steps; without steps, the whole trace.
#pragma once

#include "analyse/analysis_options.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// Marks Step::in_window. Throws ConfigError when the options select no step.
Window select_window(StepDetection& detection, const WindowOptions& options);

// The capture span (first start to last end of any host range, runtime call, GPU activity, GPU
// range, synchronisation or memory sample) and the GPU span (first kernel, memcpy or memset start
// to last end, any GPU), whatever the window: what a trace without steps states beside its window,
// so that one long host wait inside a short stretch of GPU work reads as what it is.
void set_capture_spans(const Profile& profile, Window& window);

}  // namespace perfgate
