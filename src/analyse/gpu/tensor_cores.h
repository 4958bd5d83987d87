// Tensor Core use over the window. An op is TC-eligible when its name matches an eligible-op
// pattern, when an op it calls is eligible, or when it launched a Tensor Core kernel itself;
// "bottom-most" eligible ops have no eligible op below them (the TensorBoard plugin's rule).
#pragma once

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// `count_unlaunched`: kernels with no launching call count in the Tensor Core share
// (Classification::tc_share_counts_unlaunched_kernels).
TensorCoreSums tensor_core_sums(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                                const Window& window, bool count_unlaunched = true);

}  // namespace perfgate
