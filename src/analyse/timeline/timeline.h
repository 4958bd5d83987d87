// The timeline of one representative step (the median one): per stream, its GPU activities, and
// above them what the threads that launch GPU work did (their outermost ops and DataLoader ops, and
// their runtime calls), merged where they are shorter than a pixel of a 1000-pixel-wide drawing,
// at most 5,000 boxes. Host boxes have a device of kHostOpsDevice or kRuntimeDevice and the thread
// id as their stream. Without steps, the timeline spans the whole window. `gpu_steps`, where not
// empty (a clock offset: steps_on_gpu_clock, window.h), are the window's steps on the GPUs' clock:
// the timeline is then the median of those, with its GPU activities alone (Timeline::gpu_clock).
#pragma once

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/intervals.h"
#include "analyse/steps/step_results.h"
#include "analyse/timeline/timeline_results.h"

namespace perfgate {

inline constexpr std::size_t kMaxTimelineBoxes = 5000;
inline constexpr TimeNs kTimelinePixels = 1000;
// The timeline's step name when the profile has no steps and the timeline spans the whole window.
inline constexpr const char* kWholeCaptureName = "the whole capture";

// `boxes_too`: false for a worker its run will not detail, whose boxes would be let go: the step and
// its activities only.
Timeline step_timeline(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                       const StepDetection& steps, const Window& window,
                       const std::vector<Interval>& gpu_steps = {}, bool boxes_too = true);

}  // namespace perfgate
