// The longest blocking copy of the window named for what it is: the call, its size and direction,
// how long it held the host, how much of that the GPU sat idle, and the GPU work queued behind it
// (launched before the call, not started when it began): issue 53.
#pragma once

#include <string>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/ops/op_results.h"
#include "analyse/steps/step_results.h"
#include "common/notes.h"

namespace perfgate {

// Shorter blocking copies (and those under 5% of the window) are not noted in the run warnings.
inline constexpr TimeNs kNotedBlockingCopyNs = 1'000'000;

std::optional<BlockingCopy> longest_blocking_copy(const Profile& profile, const Attribution& attribution,
                                                  NameClasses& classes, const Window& window);

// The note that names it (NoteId::ops_blocking_copy).
Note blocking_copy_note(const BlockingCopy& copy);

}  // namespace perfgate
