// Who launched what, as every reading of a worker counts it: the report's analysis
// (analyse_gpu_profile), the annotated trace's critical paths and `perfgate events` start alike,
// so that each shows the same launches under the same ops.
#pragma once

#include "analyse/attribution.h"
#include "analyse/classifier.h"

namespace perfgate {

// The launches attributed (attribute), graph replays attached to their captures, and the runtime
// calls under a collective op owned by it.
Attribution worker_attribution(const Profile& profile, const CompiledClassification& compiled,
                               const NameClasses& classes, unsigned threads);

}  // namespace perfgate
