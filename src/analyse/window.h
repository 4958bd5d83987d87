// The aggregation window (DLProf's --iter_start/--iter_stop): the steps every metric is computed
// over. Default: all kept steps; without steps, the whole trace.
#pragma once

#include "perfgate/analysis.h"

namespace perfgate {

// Marks Step::in_window. Throws ConfigError when the options select no step.
Window select_window(StepDetection& detection, const WindowOptions& options);

}  // namespace perfgate
