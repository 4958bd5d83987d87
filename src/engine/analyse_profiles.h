// Load and analysis wired together so that a worker's events live only while it is analysed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analyse/analysis.h"
#include "baseline/baseline.h"
#include "engine/run_request.h"
#include "gate/gate.h"
#include "load/load.h"
#include "report_model/report.h"

namespace perfgate {

// The loader's options for a request: its threads, input memory limit, memory budget, progress and
// graph-capture traces, and the knowledge its readers read.
LoadOptions load_options_of(const RunRequest& request, const Classification& knowledge);
// What the readers read of the knowledge: its attribution flags and memory categories.
ReadSettings read_settings_of(const Classification& knowledge);

// The workers of a run loaded whole (tests and small runs), analysed in worker order; the skipped
// files' warnings come first.
RunAnalysis analyse_run(const LoadedRun& run, const Classification& classification,
                        const AnalysisOptions& options);

struct LoadedAnalysis {
  RunAnalysis analysis;  // its warnings begin with the inputs' (RunInputs::warnings)
  RunInputs inputs;
};

// Loads the run of `paths` (load_run, once: each worker comes with its graph-capture traces, which
// are merged into it) and analyses each worker on its loading thread as soon as it is loaded, then
// lets its events go: only the workers being loaded are in memory at once (a run folder of many
// ranks, an export of many processes). Workers come out in input order. A file of a run folder that
// is not a profile is left out, and the run warns that it was skipped (and that its rank is
// missing, for a profile_rank_<i> file).
LoadedAnalysis load_and_analyse(const std::vector<std::string>& paths, const LoadOptions& load_options,
                                const Classification& classification, const AnalysisOptions& options);

// The same, folding the workers into `run` (positions: each input's index in RunInputs::inputs);
// `choose` picks the inputs to read among those found (RunSink::choose; unset: all).
RunInputs load_into(RunCombiner& run, const std::vector<std::string>& paths, const LoadOptions& load_options,
                    const Classification& classification, const AnalysisOptions& options,
                    const std::function<std::vector<InputFile>(std::vector<InputFile>)>& choose = {});

// The inputs as the report describes them.
std::vector<ReportInput> report_inputs(const std::vector<InputFile>& inputs);

}  // namespace perfgate
