#include "engine/analyse_profiles.h"

#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyse/analysis.h"
#include "common/errors.h"
#include "common/notes.h"
#include "engine/annotated_profiles.h"
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
// never existed ("GPU utilization 97.0%" beside "Kernel 1.7%"). Neuron profiles of different
// compiled programs (NEFFs) are not one run's ranks either: a "slowest" of 117 unrelated matmuls. Refused,
// naming the files, unless the request says they are one run (--one-run).
void refuse_unless_one_capture(const LoadedAnalysis& run) {
  for (const Note& warning : run.analysis.warnings) {
    if (warning.id != NoteId::run_clocks_differ && warning.id != NoteId::run_windows_disjoint &&
        warning.id != NoteId::run_programs_differ)
      continue;
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

// --device: only that GPU's work of each worker. A worker that ran nothing on it (the process of
// another GPU in an nsys export, another rank's file) is left out of the run; a run in which none
// ran anything on it is a usage error naming the GPUs they ran on. Workers load in parallel.
class DeviceSelection {
 public:
  explicit DeviceSelection(std::int32_t device) : device_(device) {}

  // Whether the worker keeps any GPU work, once the other GPUs' work is removed from it.
  bool keep(Profile& profile) {
    DeviceFilterResult r = keep_device(profile, device_);
    std::lock_guard lock(mutex_);
    ran_on_.insert(r.ran_on.begin(), r.ran_on.end());
    kept_ += r.kept;
    total_ += r.kept + r.dropped;
    left_out_ += r.kept == 0;
    return r.kept > 0;
  }

  Note note_or_refusal(const std::vector<std::string>& paths) const {
    if (kept_ == 0)
      throw ConfigError(fmt::format("--device {}: {} ran no GPU work on GPU {} ({})", device_,
                                    fmt::join(paths, ", "), device_,
                                    ran_on_.empty() ? std::string("no GPU work at all")
                                                    : fmt::format("GPUs {}", fmt::join(ran_on_, ", "))));
    return note<NoteId::device_selected>(arg<"device">(device_), arg<"kept">(kept_), arg<"total">(total_),
                                         arg<"left_out">(left_out_));
  }

 private:
  std::int32_t device_;
  std::mutex mutex_;
  std::set<std::int32_t> ran_on_;
  std::uint64_t kept_ = 0, total_ = 0, left_out_ = 0;
};

// The analyses keep of a table with a row per name only the rows the report keeps (--max-rows).
AnalysisOptions with_report_row_limit(AnalysisOptions options) {
  options.table_rows = max_table_rows();
  return options;
}

}  // namespace

ReadSettings read_settings_of(const Classification& knowledge) {
  return {knowledge.count_driver_api_calls, knowledge.fold_nested_nvtx_ops, knowledge.memory_categories};
}

LoadOptions load_options_of(const RunRequest& request, const Classification& knowledge) {
  LoadOptions options;
  options.read = read_settings_of(knowledge);
  options.max_threads = request.limits.threads;
  options.max_input_memory = request.limits.max_input_memory;
  options.memory_budget = request.limits.memory.bytes;
  options.graph_captures = request.options.graph_captures;
  options.given = request.profile_bytes;
  options.resolved = request.resolved;
  if (request.progress || request.stop_requested || request.limits.memory.stated)
    options.progress = [&request](std::uint64_t done, std::uint64_t total) {
      stop_if_asked(request);  // between two chunks of an input: the load ends with RunStopped
      stop_if_unbounded(request.limits.memory);
      if (request.progress) request.progress(done, total);
    };
  return options;
}

void for_each_profile(const PreparedRun& run, const std::function<void(const Profile&)>& each) {
  RunSink sink;
  sink.worker = [&each](std::size_t, LoadedWorker&& worker) { each(worker.profile); };
  load_run(run.request.paths, load_options_of(run.request, run.book->knowledge), sink);
}

void for_each_annotated_profile(
    const PreparedRun& run, std::size_t path_steps,
    const std::function<bool(const std::string& input, const std::string& worker)>& wanted,
    const std::function<void(const Profile&, const AnnotatedSteps&)>& each) {
  const Classification& knowledge = run.book->knowledge;
  const AnalysisOptions& options = run.request.options;
  // The run's limits and stop, not its progress line: the run has loaded once and said so.
  RunRequest request = run.request;
  request.progress = nullptr;
  LoadOptions load = load_options_of(request, knowledge);
  std::size_t inputs = run.request.resolved ? run.request.resolved->inputs.size() : 1;
  // One input at a time (each on every thread its load may take), so that the workers come in
  // input order and one is held at once.
  for (std::size_t k = 0; k < inputs; ++k) {
    std::string path = run.request.resolved ? run.request.resolved->inputs[k].path : "";
    if (run.request.resolved && !wanted(path, "")) continue;
    RunSink sink;
    if (run.request.resolved)
      sink.choose = [k](std::vector<InputFile> found) {
        return k < found.size() ? std::vector<InputFile>{std::move(found[k])} : std::vector<InputFile>{};
      };
    sink.worker = [&](std::size_t, LoadedWorker&& worker) {
      LoadedWorker mine = std::move(worker);
      if (!wanted(path.empty() ? mine.profile.source_path : path, mine.profile.worker)) return;
      if (mine.captures) merge_graph_captures(mine.profile, *mine.captures, knowledge);
      if (options.device && keep_device(mine.profile, *options.device).kept == 0) return;
      each(mine.profile, annotated_steps(mine.profile, knowledge, options, path_steps));
    };
    load_run(run.request.paths, load, sink);
  }
}

RunAnalysis analyse_run(const LoadedRun& run, const Classification& classification,
                        const AnalysisOptions& options) {
  WorkerAnalyser analyse(classification, with_report_row_limit(options));
  RunCombiner combiner(options.detailed_workers);
  for (std::size_t i = 0; i < run.workers.size(); ++i) {
    const Profile& profile = run.workers[i];
    WorkerDetail detail = WorkerDetail::Whole;
    WorkerAnalysis worker = analyse(profile, combiner, {i, 0}, detail);
    if (detail == WorkerDetail::Later)  // `run` outlives the combiner's finish
      combiner.add({i, 0}, std::move(worker), [&analyse, &profile] { return analyse(profile); });
    else
      combiner.add({i, 0}, std::move(worker));
  }
  RunAnalysis analysis = combiner.finish(run.missing_ranks);
  analysis.warnings.insert(analysis.warnings.begin(), run.skipped.begin(), run.skipped.end());
  return analysis;
}

RunInputs load_into(RunCombiner& run, const std::vector<std::string>& paths, const LoadOptions& load_options,
                    const Classification& classification, const AnalysisOptions& options,
                    const std::function<std::vector<InputFile>(std::vector<InputFile>)>& choose) {
  std::vector<std::size_t> loaded;  // workers per input so far; each slot: one loading thread
  SharedAnalyser analyser;          // made once the inputs are known, unless there are none
  std::optional<DeviceSelection> selection;
  if (options.device) selection.emplace(*options.device);
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
    if (selection && !selection->keep(mine.profile)) return;
    SharedAnalyser each = analyser;  // each thread waits through its own copy
    WorkerPosition position{input, loaded[input]++};
    WorkerDetail detail = WorkerDetail::Whole;
    WorkerAnalysis analysed = (*each.get())(mine.profile, run, position, detail);
    if (detail != WorkerDetail::Later) return run.add(position, std::move(analysed));
    // The fastest so far, analysed without its tables: its (small) profile kept to make them if
    // it is still the fastest at the end.
    auto profile = std::make_shared<const Profile>(std::move(mine.profile));
    run.add(position, std::move(analysed), [profile, whole = each.get()] { return (*whole)(*profile); });
  };
  try {
    RunInputs inputs = load_run(paths, load_options, sink);
    if (selection) inputs.warnings.push_back(selection->note_or_refusal(paths));
    return inputs;
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
  stop_if_unbounded(request.limits.memory);
  if (!request.one_run) refuse_unless_one_capture(run);
  if (request.on_input_warning)
    for (const Note& w : run.inputs.warnings) request.on_input_warning(w);
  return build_report(report_inputs(run.inputs.kept), std::move(run.analysis), book.rules.sources, options);
}

}  // namespace perfgate
