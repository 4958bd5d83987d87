// How long GPU work waited between its launch call's return and its start (launch delays), and
// whether the host's and the GPU's clocks agree: a trace whose every activity starts late has a
// clock offset or a queue that never drained, and its idle time is measured over the GPU's span.
#pragma once

#include <optional>
#include <string>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"
#include "common/notes.h"

namespace perfgate {

// Above this least launch delay a trace's host and GPU timelines are not read together. Normal
// traces (every shared and recorded one) stay at or under 19 us; the offset ones start at 6.4 ms
// (vLLM decode on an MI300X) and 21 ms (MI300X ResNet): docs/metrics.md, "Clock offsets".
inline constexpr TimeNs kClockOffsetMinDelayNs = 1'000'000;

LaunchDelays launch_delays(const Profile& profile, const Attribution& attribution, NameClasses& classes);

// The note that says what the delays mean, or none where the clocks are read together.
std::optional<Note> clock_offset_note(const LaunchDelays& delays);

}  // namespace perfgate
