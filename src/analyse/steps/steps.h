// Step (iteration) detection, following the TensorBoard plugin: a step's host span comes from a
// ProfilerStep#N annotation (or, with a key op, from one start of that op to the next); its span
// then runs from max(previous step's end, host start) to max(host end, the end of the last GPU
// activity launched inside the host span). Trailing steps whose GPU work was cut off are dropped.
#pragma once

#include <string>
#include <string_view>

#include "analyse/analysis_options.h"
#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// --step-pattern's value that makes the inferred iterations (inferred.h) the steps.
inline constexpr std::string_view kInferredStepPattern = "inferred";

// Step ranges are named by --step-pattern, else by the rules' step ranges for the profile's format.
StepDetection detect_steps(const Profile& profile, const Attribution& attribution,
                           const CompiledClassification& rules, const AnalysisOptions& options,
                           std::vector<Note>& warnings);

}  // namespace perfgate
