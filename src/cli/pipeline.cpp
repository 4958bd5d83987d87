#include "cli/pipeline.h"

#include "perfgate/analysis.h"
#include "perfgate/build_report.h"

#include <future>
#include <memory>

namespace perfgate {

void apply_gate(ReportModel& report, const RuleSet& rules, const Baseline* baseline,
                const GateOptions& options) {
  if (baseline) add_baseline(report, *baseline);
  GateOutcome outcome = evaluate_gate(rules, report, baseline, options);
  add_gate(report, std::move(outcome.findings), std::move(outcome.rules), std::move(outcome.verdict));
}

RunAnalysis analyse_run(const LoadedRun& run, const Classification& classification,
                        const AnalysisOptions& options) {
  WorkerAnalyser analyse(classification, options);
  RunCombiner combiner(options.detailed_workers);
  for (std::size_t i = 0; i < run.workers.size(); ++i) combiner.add({i, 0}, analyse(run.workers[i]));
  RunAnalysis analysis = combiner.finish(run.missing_ranks);
  analysis.warnings.insert(analysis.warnings.begin(), run.skipped.begin(), run.skipped.end());
  return analysis;
}
}  // namespace perfgate

namespace perfgate::cli {
namespace {

using SharedAnalyser = std::shared_future<std::shared_ptr<const WorkerAnalyser>>;

// The graph-capture traces of a replay trace (--graph-capture, else those beside it) merged in.
void merge_captures(Profile& profile, const std::string& path, const LoadOptions& load_options,
                    const Classification& classification, const AnalysisOptions& options) {
  std::vector<std::string> files;
  for (const std::string& given : options.graph_captures) {
    CaptureFiles found = graph_capture_files(given, load_options.max_input_memory);
    files.insert(files.end(), found.files.begin(), found.files.end());
    profile.notes.insert(profile.notes.end(), found.warnings.begin(), found.warnings.end());
  }
  if (options.graph_captures.empty()) {
    CaptureFiles found = captures_beside(path, load_options.max_input_memory);
    files = std::move(found.files);
    profile.notes.insert(profile.notes.end(), found.warnings.begin(), found.warnings.end());
  }
  if (files.empty()) return;
  LoadOptions one = load_options;
  one.max_threads = 1;
  one.progress = nullptr;
  merge_graph_captures(profile, load_run(files, one).workers, classification);
}

// Compiling the classification's patterns (RE2) is a fixed cost of every run, a quarter of the
// example's CPU: unless --threads is 1 it runs beside the reading of the first input.
SharedAnalyser start_analyser(const Classification& classification, const AnalysisOptions& options,
                              bool beside_loading) {
  auto make = [&classification, options] {
    return std::make_shared<const WorkerAnalyser>(classification, options);
  };
  return std::async(beside_loading ? std::launch::async : std::launch::deferred, make).share();
}

}  // namespace

RunInputs load_into(RunCombiner& run, const std::vector<std::string>& paths, const LoadOptions& load_options,
                    const Classification& classification, const AnalysisOptions& options,
                    const std::function<std::vector<InputFile>(std::vector<InputFile>)>& choose) {
  std::vector<std::string> input_paths;  // of the inputs read, by index
  std::vector<std::size_t> loaded;       // workers per input so far; each slot: one loading thread
  SharedAnalyser analyser;               // made once the inputs are known, unless there are none
  RunSink sink;
  sink.choose = choose;
  sink.start = [&](const std::vector<InputFile>& inputs) {
    for (const InputFile& i : inputs) input_paths.push_back(i.path);
    loaded.assign(inputs.size(), 0);
    if (inputs.empty()) return;
    // Each worker's analysis gets the threads its input is loaded with.
    AnalysisOptions threaded = options;
    threaded.threads = threads_per_input(load_options, inputs.size());
    analyser = start_analyser(classification, threaded, load_options.max_threads != 1);
  };
  sink.worker = [&](std::size_t input, Profile&& worker) {
    Profile profile = std::move(worker);  // freed when this returns
    merge_captures(profile, input_paths[input], load_options, classification, options);
    SharedAnalyser mine = analyser;  // each thread waits through its own copy
    run.add({input, loaded[input]++}, (*mine.get())(profile));
  };
  try {
    return load_run(paths, load_options, sink);
  } catch (...) {
    // A pattern that does not compile is reported first, as before any input is read.
    if (analyser.valid()) analyser.get();
    throw;
  }
}

LoadedAnalysis load_and_analyse(const std::vector<std::string>& paths, const LoadOptions& load_options,
                                const Classification& classification, const AnalysisOptions& options) {
  RunCombiner run(options.detailed_workers);
  RunInputs inputs = load_into(run, paths, load_options, classification, options);
  RunAnalysis analysis = run.finish(inputs.missing_ranks);
  analysis.warnings.insert(analysis.warnings.begin(), inputs.warnings.begin(), inputs.warnings.end());
  return {std::move(analysis), std::move(inputs)};
}

std::vector<ReportInput> report_inputs(const std::vector<InputFile>& inputs) {
  std::vector<ReportInput> out;
  out.reserve(inputs.size());
  for (const InputFile& i : inputs) out.push_back({i.path, i.bytes, i.format, i.worker, i.folder});
  return out;
}

}  // namespace perfgate::cli
