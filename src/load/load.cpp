// A run's inputs read in parallel, each by its format's reader (load/reader.h), and every worker
// handed on as soon as it is loaded.
#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "common/errors.h"
#include "load/load.h"
#include "load/reader.h"

namespace perfgate {
namespace {

// The capture traces beside the traces of a run (captures_beside), looked for once per folder: a
// run folder's 65,536 ranks share one capture_traces/ (issue 78: two stats a rank). A refusal is
// kept and thrown for each trace of that folder, as when each looked for itself.
class CapturesBeside {
 public:
  CapturesBeside(const std::vector<InputFile>& inputs, const LoadOptions& options) {
    if (!options.read_graph_captures || !options.graph_captures.empty()) return;
    for (const InputFile& input : inputs) {
      if (input.held) continue;  // given as bytes: no folder beside it
      std::string folder = captures_folder_of(input.path);
      if (found_.count(folder)) continue;
      Found& f = found_[folder];
      try {
        f.files = captures_beside(input.path, options.max_input_memory);
      } catch (...) {
        f.error = std::current_exception();
      }
    }
  }
  // Those beside `trace`, one of the inputs it was made of.
  const CaptureFiles& of(const std::string& trace) const {
    const Found& f = found_.at(captures_folder_of(trace));
    if (f.error) std::rethrow_exception(f.error);
    return f.files;
  }

 private:
  struct Found {
    CaptureFiles files;
    std::exception_ptr error;
  };
  std::map<std::string, Found> found_;
};

// The graph-capture traces of a worker of `trace` (LoadOptions::read_graph_captures), read on this
// thread; what was left out of them goes to the worker's notes.
std::optional<std::vector<Profile>> read_captures(const InputFile& trace, const LoadOptions& options,
                                                  const CapturesBeside& beside, std::vector<Note>& notes) {
  std::vector<std::string> files;
  for (const std::string& given : options.graph_captures) {
    CaptureFiles found = graph_capture_files(given, options.max_input_memory, options.memory_budget);
    files.insert(files.end(), found.files.begin(), found.files.end());
    notes.insert(notes.end(), found.warnings.begin(), found.warnings.end());
  }
  if (options.graph_captures.empty() && !trace.held) {
    const CaptureFiles& found = beside.of(trace.path);
    files = found.files;
    notes.insert(notes.end(), found.warnings.begin(), found.warnings.end());
  }
  if (files.empty()) return std::nullopt;
  LoadOptions one = options;
  one.max_threads = 1;
  one.progress = nullptr;
  one.read_graph_captures = false;
  one.resolved = nullptr;
  one.given.clear();
  return load_run(files, one).workers;
}

// One input is one worker, except an nsys export (one per process with GPU work) and a Neuron
// summary-json (one per node). `threads`: threads this input may parse on.
void load_one(const InputFile& input, const LoadOptions& options, const CapturesBeside& beside,
              unsigned threads, const std::function<void(std::uint64_t)>& on_progress, const WorkerSink& sink,
              std::size_t index) {
  const Reader* reader = find_reader(input.format);
  if (!reader) throw InputError(fmt::format("{}: not {}", input.path, formats_read()));
  std::unique_ptr<ByteInput> taken = input.sniffed ? input.sniffed->take() : nullptr;
  if (!taken && !input.held) taken = open_input_file(input.path);
  const ByteInput& bytes = taken ? *taken : *input.held;
  reader->read({bytes, input.worker, options, threads, on_progress}, [&](Profile&& p) {
    p.source_bytes = input.bytes;
    LoadedWorker worker{std::move(p), std::nullopt};
    if (options.read_graph_captures)
      worker.captures = read_captures(input, options, beside, worker.profile.notes);
    sink(index, std::move(worker));
  });
}

// Keeps per-input byte counts and reports their sum; the callback runs under a lock.
class ProgressTotal {
 public:
  ProgressTotal(const LoadOptions& options, const std::vector<InputFile>& inputs)
      : callback_(options.progress), done_(inputs.size(), 0) {
    for (const auto& i : inputs) total_ += i.bytes;
  }
  std::function<void(std::uint64_t)> for_input(std::size_t index) {
    if (!callback_) return {};
    return [this, index](std::uint64_t bytes) {
      std::lock_guard lock(mutex_);
      sum_ += bytes - done_[index];
      done_[index] = bytes;
      callback_(sum_, total_);
    };
  }

 private:
  std::function<void(std::uint64_t, std::uint64_t)> callback_;
  std::mutex mutex_;
  std::vector<std::uint64_t> done_;
  std::uint64_t sum_ = 0;
  std::uint64_t total_ = 0;
};

// The threads a load of `input_bytes` of text may use: --threads, else default_threads.
unsigned thread_budget(const LoadOptions& options, std::uint64_t input_bytes) {
  if (options.max_threads) return options.max_threads;
  CoreState cores = core_state();
  return default_threads(input_bytes, cores.allowed, cores.load);
}

// A folder whose every file was skipped has no profile to analyse: an input error, as a folder
// with no trace file is.
void require_a_profile_per_folder(const std::vector<InputFile>& inputs,
                                  const std::vector<SkippedInput>& skipped) {
  std::map<std::string, std::size_t> files;  // per folder
  for (const InputFile& i : inputs)
    if (!i.folder.empty()) ++files[i.folder];
  for (const SkippedInput& s : skipped)
    if (--files[inputs[s.input].folder] == 0)
      throw InputError(fmt::format("{}: the folder holds no profile ({})", inputs[s.input].folder, s.reason));
}

// Loads the inputs in parallel and hands every worker to `sink`. Throws the first input's error,
// in input order; returns the files of run folders that are not profiles, in input order.
std::vector<SkippedInput> load_each(const std::vector<InputFile>& inputs, const LoadOptions& options,
                                    const WorkerSink& sink) {
  std::vector<std::exception_ptr> errors(inputs.size());
  std::vector<std::string> not_profiles(inputs.size());
  ProgressTotal progress(options, inputs);
  std::uint64_t bytes = text_bytes(inputs);
  unsigned per_input = threads_per_input(options, inputs.size(), bytes);
  unsigned threads =
      static_cast<unsigned>(std::min<std::size_t>(thread_budget(options, bytes), inputs.size()));
  CapturesBeside beside(inputs, options);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      try {
        load_one(inputs[i], options, beside, per_input, progress.for_input(i), sink, i);
      } catch (const NotAProfileError& e) {
        if (inputs[i].folder.empty())
          errors[i] = std::current_exception();
        else
          not_profiles[i] = e.what();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<SkippedInput> skipped;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!not_profiles[i].empty()) skipped.push_back({i, std::move(not_profiles[i])});
  require_a_profile_per_folder(inputs, skipped);
  return skipped;
}

std::vector<Note> skipped_notes(const std::vector<InputFile>& inputs,
                                const std::vector<SkippedInput>& skipped) {
  std::vector<Note> out;
  for (const SkippedInput& s : skipped) out.push_back(skipped_note(s));
  for (const SkippedInput& s : skipped)
    if (std::optional<std::int64_t> rank = rank_from_file_name(inputs[s.input].path))
      out.push_back(note<NoteId::rank_file_skipped>(arg<"rank">(*rank), arg<"path">(inputs[s.input].path)));
  return out;
}

std::vector<InputFile> kept_inputs(const std::vector<InputFile>& inputs,
                                   const std::vector<SkippedInput>& skipped) {
  std::vector<InputFile> kept;
  std::size_t next = 0;  // skipped is in input order
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (next < skipped.size() && skipped[next].input == i) {
      ++next;
      continue;
    }
    kept.push_back(inputs[i]);
  }
  return kept;
}

// The sniffed bytes of the inputs a slice left out are let go now, not when the request ends.
void drop_unchosen(const std::vector<std::shared_ptr<SniffedBytes>>& found,
                   const std::vector<InputFile>& chosen) {
  std::set<const SniffedBytes*> chosen_bytes;
  for (const InputFile& input : chosen) chosen_bytes.insert(input.sniffed.get());
  for (const auto& bytes : found)
    if (!chosen_bytes.count(bytes.get())) bytes->take();
}

}  // namespace

unsigned threads_per_input(const LoadOptions& options, std::size_t inputs, std::uint64_t input_bytes) {
  unsigned cores = thread_budget(options, input_bytes);
  std::size_t parallel = std::max<std::size_t>(1, std::min<std::size_t>(cores, inputs));
  return std::max(1u, static_cast<unsigned>(cores / parallel));
}

Note skipped_note(const SkippedInput& skipped) {
  return note<NoteId::input_skipped>(arg<"reason">(skipped.reason));
}

RunInputs load_run(const std::vector<std::string>& paths, const LoadOptions& options, const RunSink& sink) {
  RunInputs run;
  const ResolvedInputs* resolved = options.resolved.get();
  run.inputs = resolved && resolved->paths == paths
                   ? resolved->inputs
                   : resolve_inputs(paths, options.memory_budget, options.given);
  if (sink.choose) {
    std::vector<std::shared_ptr<SniffedBytes>> found;
    for (const InputFile& input : run.inputs)
      if (input.sniffed) found.push_back(input.sniffed);
    run.inputs = sink.choose(std::move(run.inputs));
    drop_unchosen(found, run.inputs);
  }
  if (sink.start) sink.start(run.inputs);
  run.skipped = load_each(run.inputs, options, sink.worker);
  run.kept = kept_inputs(run.inputs, run.skipped);
  run.warnings = skipped_notes(run.inputs, run.skipped);
  for (const SkippedInput& s : run.skipped)
    if (std::optional<std::int64_t> rank = rank_from_file_name(run.inputs[s.input].path))
      run.missing_ranks.push_back(*rank);
  return run;
}

LoadedRun load_run(const std::vector<std::string>& paths, const LoadOptions& options) {
  std::vector<std::vector<Profile>> loaded;
  RunSink sink;
  sink.start = [&](const std::vector<InputFile>& inputs) { loaded.resize(inputs.size()); };
  sink.worker = [&](std::size_t input, LoadedWorker&& w) { loaded[input].push_back(std::move(w.profile)); };
  LoadOptions without_captures = options;
  without_captures.read_graph_captures = false;
  RunInputs inputs = load_run(paths, without_captures, sink);
  LoadedRun run;
  for (auto& profiles : loaded)
    for (Profile& p : profiles) run.workers.push_back(std::move(p));
  run.inputs = std::move(inputs.kept);
  run.skipped = std::move(inputs.warnings);
  run.missing_ranks = std::move(inputs.missing_ranks);
  return run;
}

}  // namespace perfgate
