// Load and analysis wired together so that a worker's events live only while it is analysed.
#pragma once

#include <vector>

#include "perfgate/analysis.h"
#include "perfgate/load.h"

namespace perfgate::cli {

// Loads the inputs and analyses each worker on its loading thread as soon as it is loaded, then
// lets its events go: only the workers being loaded are in memory at once (a run folder of many
// ranks, an export of many processes). Workers come out in input order. A file of a run folder
// that is not a profile is removed from `inputs`, and the run warns that it was skipped.
RunAnalysis load_and_analyse(std::vector<InputFile>& inputs, const LoadOptions& load_options,
                             const Classification& classification, const AnalysisOptions& options);

}  // namespace perfgate::cli
