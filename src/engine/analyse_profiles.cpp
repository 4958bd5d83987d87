#include "engine/analyse_profiles.h"

#include <future>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyse/analysis.h"
#include "common/errors.h"
#include "common/notes.h"
#include "engine/engine.h"
#include "model/device_filter.h"
#include "report/build_report.h"
#include "report_model/table_limits.h"

namespace perfgate {
namespace {

using SharedAnalyser = std::shared_future<std::shared_ptr<const WorkerAnalyser>>;

// Compiling the classification's patterns (RE2) is a fixed cost of every run, a quarter of the
// example's CPU: unless --threads is 1 it runs beside the reading of the first input.
SharedAnalyser start_analyser(const Classification& classification, const AnalysisOptions& options,
                              bool beside_loading) {
  auto make = [&classification, options] {
    return std::make_shared<const WorkerAnalyser>(classification, options);
  };
  return std::async(beside_loading ? std::launch::async : std::launch::deferred, make).share();
}

// Inputs whose clocks differ, or whose wall-clock windows do not overlap, are not one capture:
// analysed as one run their GPUs' busy time and their kernels' would be shares of a span that
// never existed ("GPU utilization 97.0%" beside "Kernel 1.7%"). Refused, naming the files, unless
// the request says they are one run (--one-run).
void refuse_unless_one_capture(const LoadedAnalysis& run) {
  for (const Note& warning : run.analysis.warnings) {
    if (warning.id != NoteId::run_clocks_differ && warning.id != NoteId::run_windows_disjoint) continue;
    std::string files;
    constexpr std::size_t kNamed = 4;
    const std::vector<InputFile>& kept = run.inputs.kept;
    for (std::size_t i = 0; i < kept.size() && i < kNamed; ++i) files += (i ? ", " : "") + kept[i].path;
    if (kept.size() > kNamed) files += fmt::format(" and {} more", kept.size() - kNamed);
    throw RefusedError(
        fmt::format("{}: not one capture, so not one run: {} Analyse each alone, or give "
                    "--one-run if they are one run",
                    files, note_text(warning)));
  }
}

// --device: only that GPU's work of each profile, with a note that says so; a profile that ran no
// work on it is a usage error naming the GPUs it did run on.
void keep_only_device(Profile& profile, std::int32_t device) {
  std::set<std::int32_t> ran_on;
  for (const GpuActivity& a : profile.gpu_activities) ran_on.insert(a.device);
  DeviceFilterResult kept = keep_device(profile, device);
  if (kept.kept == 0)
    throw ConfigError(fmt::format(
        "--device {}: {} ran no GPU work on GPU {} ({})", device, profile.source_path, device,
        ran_on.empty() ? std::string("it ran none") : fmt::format("its GPUs: {}", fmt::join(ran_on, ", "))));
  profile.notes.push_back(note<NoteId::device_selected>(arg<"device">(device), arg<"kept">(kept.kept),
                                                        arg<"total">(kept.kept + kept.dropped)));
}

// The analyses keep of a table with a row per name only the rows the report keeps (--max-rows).
AnalysisOptions with_report_row_limit(AnalysisOptions options) {
  options.table_rows = max_table_rows();
  return options;
}

}  // namespace

LoadOptions load_options_of(const RunRequest& request, const Classification& knowledge) {
  LoadOptions options;
  options.classification = &knowledge;
  options.max_threads = request.limits.threads;
  options.max_input_memory = request.limits.max_input_memory;
  options.graph_captures = request.options.graph_captures;
  if (request.progress || request.stop_requested)
    options.progress = [&request](std::uint64_t done, std::uint64_t total) {
      stop_if_asked(request);  // between two chunks of an input: the load ends with RunStopped
      if (request.progress) request.progress(done, total);
    };
  return options;
}

RunAnalysis analyse_run(const LoadedRun& run, const Classification& classification,
                        const AnalysisOptions& options) {
  WorkerAnalyser analyse(classification, with_report_row_limit(options));
  RunCombiner combiner(options.detailed_workers);
  for (std::size_t i = 0; i < run.workers.size(); ++i) combiner.add({i, 0}, analyse(run.workers[i]));
  RunAnalysis analysis = combiner.finish(run.missing_ranks);
  analysis.warnings.insert(analysis.warnings.begin(), run.skipped.begin(), run.skipped.end());
  return analysis;
}

RunInputs load_into(RunCombiner& run, const std::vector<std::string>& paths, const LoadOptions& load_options,
                    const Classification& classification, const AnalysisOptions& options,
                    const std::function<std::vector<InputFile>(std::vector<InputFile>)>& choose) {
  std::vector<std::size_t> loaded;  // workers per input so far; each slot: one loading thread
  SharedAnalyser analyser;          // made once the inputs are known, unless there are none
  RunSink sink;
  sink.choose = choose;
  sink.start = [&](const std::vector<InputFile>& inputs) {
    loaded.assign(inputs.size(), 0);
    if (inputs.empty()) return;
    // Each worker's analysis gets the threads its input is loaded with.
    AnalysisOptions threaded = with_report_row_limit(options);
    threaded.threads = threads_per_input(load_options, inputs.size(), text_bytes(inputs));
    analyser = start_analyser(classification, threaded, load_options.max_threads != 1);
  };
  sink.worker = [&](std::size_t input, LoadedWorker&& worker) {
    LoadedWorker mine = std::move(worker);  // freed when this returns
    if (mine.captures) merge_graph_captures(mine.profile, *mine.captures, classification);
    if (options.device) keep_only_device(mine.profile, *options.device);
    SharedAnalyser each = analyser;  // each thread waits through its own copy
    run.add({input, loaded[input]++}, (*each.get())(mine.profile));
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

ReportModel analyse_profiles(const RunRequest& request, const RuleBook& book,
                             const AnalysisOptions& options) {
  LoadedAnalysis run =
      load_and_analyse(request.paths, load_options_of(request, book.knowledge), book.knowledge, options);
  if (request.on_loaded) request.on_loaded();
  stop_if_asked(request);
  if (!request.one_run) refuse_unless_one_capture(run);
  if (request.on_input_warning)
    for (const Note& w : run.inputs.warnings) request.on_input_warning(w);
  return build_report(report_inputs(run.inputs.kept), std::move(run.analysis), book.rules.sources, options);
}

}  // namespace perfgate
