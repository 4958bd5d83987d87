#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "io/gzip.h"
#include "load/kineto/kineto_reader.h"
#include "load/legacy/legacy_reader.h"
#include "load/neuron/neuron_reader.h"
#include "load/nsys/nsys_reader.h"
#include "perfgate/errors.h"
#include "perfgate/load.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

bool looks_like_trace_name(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".sqlite");
}

}  // namespace

bool natural_path_less(const std::string& a, const std::string& b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && digit(a[i_end])) ++i_end;
      while (j_end < b.size() && digit(b[j_end])) ++j_end;
      std::size_t i_first = a.find_first_not_of('0', i), j_first = b.find_first_not_of('0', j);
      i_first = std::min(i_first, i_end);
      j_first = std::min(j_first, j_end);
      std::string_view x(a.data() + i_first, i_end - i_first), y(b.data() + j_first, j_end - j_first);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      if (i_end - i != j_end - j) return i_end - i < j_end - j;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

namespace {

const char* file_type_name(fs::file_type type) {
  switch (type) {
    case fs::file_type::fifo:
      return "a named pipe";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    default:
      return "not a plain file";
  }
}

// Why a folder entry with a trace's name cannot be a worker's trace, or empty when it is a regular
// file (or a link to one). Only its status is read: opening a FIFO would block.
std::string not_a_trace_file(const fs::directory_entry& entry) {
  std::error_code ec;
  fs::file_status target = entry.status(ec);
  if (fs::is_regular_file(target)) return {};
  std::error_code link_ec;
  if (entry.is_symlink(link_ec) && target.type() == fs::file_type::not_found)
    return fmt::format("a dangling symbolic link (to '{}')",
                       fs::read_symlink(entry.path(), link_ec).string());
  if (fs::is_directory(target)) return "a folder";
  if (target.type() == fs::file_type::none || target.type() == fs::file_type::not_found)
    return fmt::format("unreadable ({})", ec.message());
  return file_type_name(target.type());
}

// A run folder: its trace files, in natural order of their names (rank-2 before rank-10), are the
// workers. An entry with a trace's name that is not a regular file would be a worker lost without
// a word (the plugin lists it as a run's file too): the first of them, in that order, is an error.
std::vector<std::string> expand_folder(const std::string& folder) {
  std::vector<std::string> files;
  std::vector<std::pair<std::string, std::string>> unusable;  // path, why
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (!looks_like_trace_name(entry.path().filename().string())) continue;
    if (std::string why = not_a_trace_file(entry); !why.empty())
      unusable.emplace_back(entry.path().string(), std::move(why));
    else
      files.push_back(entry.path().string());
  }
  if (ec) throw InputError(fmt::format("{}: cannot list folder: {}", folder, ec.message()));
  if (!unusable.empty()) {
    auto first = std::min_element(unusable.begin(), unusable.end(), [](const auto& a, const auto& b) {
      return natural_path_less(a.first, b.first);
    });
    throw InputError(fmt::format("{}: a run folder's trace file is {}; remove it or give the workers' files",
                                 first->first, first->second));
  }
  if (files.empty())
    throw InputError(
        fmt::format("{}: the folder holds no trace files (*.json, *.json.gz, *.sqlite)", folder));
  std::sort(files.begin(), files.end(), natural_path_less);
  return files;
}

}  // namespace

std::vector<InputFile> resolve_inputs(const std::vector<std::string>& paths) {
  std::vector<InputFile> inputs;
  for (const auto& path : paths) {
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found)
      throw InputError(fmt::format("{}: no such file or folder", path));
    // A folder on the way without search permission: say so, not "no such file".
    if (ec) throw InputError(fmt::format("{}: cannot read: {}", path, ec.message()));
    // A FIFO, a device or a socket could block forever or never end.
    if (!fs::is_directory(status) && !fs::is_regular_file(status))
      throw InputError(fmt::format("{}: not a regular file or a folder ({}); give a trace file", path,
                                   file_type_name(status.type())));
    bool folder = fs::is_directory(status);
    std::vector<std::string> files = folder ? expand_folder(path) : std::vector<std::string>{path};
    for (auto& file : files) {
      InputFile input;
      input.path = file;
      if (folder) input.folder = path;
      input.format = detect_format(file);
      input.bytes = fs::file_size(file, ec);
      input.worker = worker_name_from_path(file);
      if (input.format == InputFormat::Unknown)
        throw InputError(
            fmt::format("{}: not a Kineto JSON trace (plain or gzip), a PyTorch legacy profiler trace, an "
                        "Nsight Systems SQLite export or a Neuron profile",
                        file));
      inputs.push_back(std::move(input));
    }
  }
  return inputs;
}

namespace {

// What the profiler recorded with a time: without any, a trace is only metadata (threads, GPUs,
// distributedInfo) and every metric would be n/a or 0, which a gate must not pass as a run.
bool holds_activity(const Profile& p) {
  return !p.host_events.empty() || !p.runtime_calls.empty() || !p.gpu_activities.empty() ||
         !p.gpu_ranges.empty() || !p.memory_samples.empty();
}

// One input is one worker, except an nsys export, which has one per process with GPU work.
// `threads`: threads this input may parse on (a Kineto trace is read in pieces when above one).
void load_one(const InputFile& input, const LoadOptions& options, unsigned threads,
              const std::function<void(std::uint64_t)>& on_progress,
              const std::function<void(Profile&&)>& emit) {
  if (input.format == InputFormat::NsysSqlite) {
    nsys::read_export(input.path, input.worker, [&](Profile&& p) {
      p.source_bytes = input.bytes;
      emit(std::move(p));
    });
    if (on_progress) on_progress(input.bytes);
    return;
  }
  if (input.format == InputFormat::NeuronJson || input.format == InputFormat::NeuronSummaryJson) {
    neuron::read_profile(open_plain_file(input.path), input.path, on_progress,
                         {.summary_json = input.format == InputFormat::NeuronSummaryJson,
                          .max_memory = options.max_input_memory},
                         [&](Profile&& p) {
                           p.worker = p.worker.empty() ? input.worker : input.worker + "/" + p.worker;
                           p.source_bytes = input.bytes;
                           emit(std::move(p));
                         });
    return;
  }
  if (input.format == InputFormat::LegacyJson) {
    Profile profile =
        legacy::read_trace(open_plain_file(input.path), input.path, on_progress, options.max_input_memory);
    profile.worker = input.worker;
    profile.source_bytes = input.bytes;
    emit(std::move(profile));
    return;
  }
  bool gzip = input.format == InputFormat::KinetoJsonGzip;
  // A plain file is mapped and parsed where it lies. A .json.gz read in pieces is inflated by the
  // thread that cuts them (into the buffer it cuts, with no copy) while the others parse; a
  // one-thread read inflates ahead on a thread of its own.
  auto open = [&]() -> std::unique_ptr<ByteSource> {
    return gzip ? open_gzip_file(input.path, threads <= 1) : open_plain_file(input.path);
  };
  Profile profile = kineto::read_trace(open, input.path, on_progress,
                                       {.driver_calls = options.read_driver_calls,
                                        .threads = threads,
                                        .max_memory = options.max_input_memory});
  if (!holds_activity(profile))
    throw InputError(
        fmt::format("{}: holds no profiled activity (no CPU op, annotation, CUDA/HIP call, GPU "
                    "activity or allocator event)",
                    input.path));
  profile.worker = input.worker;
  profile.source_bytes = input.bytes;
  emit(std::move(profile));
}

// The cores this process may run on: its affinity mask (taskset, a container's cpuset), which
// hardware_concurrency() does not see.
unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
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

}  // namespace

std::string worker_name_from_path(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (std::string_view suffix : {".gz", ".json", ".sqlite", ".pt.trace", ".trace"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  return name;
}

// The threads a load may use: --threads, else the usable cores.
unsigned thread_budget(const LoadOptions& options) {
  return options.max_threads ? options.max_threads : usable_cores();
}

unsigned threads_per_input(const LoadOptions& options, std::size_t inputs) {
  unsigned cores = thread_budget(options);
  std::size_t parallel = std::max<std::size_t>(1, std::min<std::size_t>(cores, inputs));
  return std::max(1u, static_cast<unsigned>(cores / parallel));
}

namespace {

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

}  // namespace

std::string skipped_warning(const SkippedInput& skipped) {
  return "skipped " + skipped.reason;
}

std::optional<std::int64_t> rank_from_file_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  std::size_t at = name.rfind("rank_");
  if (at == std::string::npos) return std::nullopt;
  std::size_t digits = at + 5, end = digits;
  while (end < name.size() && end - digits < 9 && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == digits) return std::nullopt;
  return std::stoll(name.substr(digits, end - digits));
}

std::vector<std::string> skipped_warnings(const std::vector<InputFile>& inputs,
                                          const std::vector<SkippedInput>& skipped) {
  std::vector<std::string> out;
  for (const SkippedInput& s : skipped) out.push_back(skipped_warning(s));
  for (const SkippedInput& s : skipped)
    if (std::optional<std::int64_t> rank = rank_from_file_name(inputs[s.input].path))
      out.push_back(fmt::format("rank {} is missing from the run: its file {} was skipped", *rank,
                                inputs[s.input].path));
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

std::vector<SkippedInput> load_each(const std::vector<InputFile>& inputs, const LoadOptions& options,
                                    const WorkerSink& sink) {
  std::vector<std::exception_ptr> errors(inputs.size());
  std::vector<std::string> not_profiles(inputs.size());
  ProgressTotal progress(options, inputs);
  unsigned per_input = threads_per_input(options, inputs.size());
  unsigned threads = static_cast<unsigned>(std::min<std::size_t>(thread_budget(options), inputs.size()));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      try {
        load_one(inputs[i], options, per_input, progress.for_input(i),
                 [&](Profile&& p) { sink(i, std::move(p)); });
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

LoadedRun load_run(const std::vector<std::string>& paths, const LoadOptions& options) {
  LoadedRun run;
  std::vector<InputFile> inputs = resolve_inputs(paths);
  std::vector<std::vector<Profile>> loaded(inputs.size());
  std::vector<SkippedInput> skipped = load_each(
      inputs, options, [&](std::size_t input, Profile&& p) { loaded[input].push_back(std::move(p)); });
  for (auto& profiles : loaded)
    for (Profile& p : profiles) run.workers.push_back(std::move(p));
  run.inputs = kept_inputs(inputs, skipped);
  run.skipped = skipped_warnings(inputs, skipped);
  return run;
}

}  // namespace perfgate
