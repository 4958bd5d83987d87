#include "cli/pipeline.h"

namespace perfgate::cli {

RunAnalysis load_and_analyse(const std::vector<InputFile>& inputs, const LoadOptions& load_options,
                             const Classification& classification, const AnalysisOptions& options) {
  // Each worker's analysis gets the threads its input was loaded with.
  AnalysisOptions threaded = options;
  threaded.threads = threads_per_input(load_options, inputs.size());
  const WorkerAnalyser analyse(classification, threaded);
  RunCombiner run(options.detailed_workers);
  std::vector<std::size_t> loaded(inputs.size());  // each slot: one loading thread
  load_each(inputs, load_options, [&](std::size_t input, Profile&& worker) {
    Profile profile = std::move(worker);  // freed when this returns
    run.add({input, loaded[input]++}, analyse(profile));
  });
  return run.finish();
}

}  // namespace perfgate::cli
