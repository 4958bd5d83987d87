// Loading profiles: files, gzip, run folders. Formats are detected by content, not by name: each
// format has a reader (src/load/reader.h), and the one most sure of a file's first bytes reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.h"
#include "io/io.h"
#include "knowledge/classification.h"
#include "model/profile.h"

namespace perfgate {

// The format of `path` from its first bytes, inflated where it is gzip: the name of the reader that
// reads it ("kineto-json", "kineto-json.gz", "pytorch-legacy-json", "nsys-sqlite", "neuron-json",
// "neuron-summary-json"), empty when no reader knows it. Throws InputError for an unreadable or
// empty file.
std::string detect_format(const std::string& path);

// A small file's bytes as its sniff read them (a FileInput holding them, gzip-wrapped where it is
// gzip), kept for its load: the first load takes them, so they live from the sniff to that file's
// load, not for the run (issue 78: a rank opened and read once, not once to sniff and once to load).
class SniffedBytes {
 public:
  explicit SniffedBytes(std::unique_ptr<ByteInput> input);
  ~SniffedBytes();
  SniffedBytes(const SniffedBytes&) = delete;
  SniffedBytes& operator=(const SniffedBytes&) = delete;
  // The input, once: nullptr after the first call (a later load opens the file again).
  std::unique_ptr<ByteInput> take();

 private:
  std::mutex mutex_;
  std::unique_ptr<ByteInput> input_;
};

struct InputFile {
  std::string path;
  std::uint64_t bytes = 0;
  std::string format;  // detect_format's name
  std::string worker;
  // The run folder the file was found in; empty when it was named itself. A folder's file that is
  // not a profile is skipped with a warning; one named itself is an error.
  std::string folder;
  // Which file the sniff read (its device and inode): what an output is compared with, unstat'ed.
  FileIdentity identity;
  // A small file's sniffed bytes, shared by the copies of this input until the load takes them.
  std::shared_ptr<SniffedBytes> sniffed;
  // A profile given as bytes (LoadOptions::given): every load reads them, never a file; no capture
  // traces are looked for beside it.
  std::shared_ptr<const ByteInput> held;
};

// resolve_inputs(paths), kept with the paths it was made of.
struct ResolvedInputs {
  std::vector<std::string> paths;
  std::vector<InputFile> inputs;
};

// A file of a run folder left out because it is not a profile (NotAProfileError).
struct SkippedInput {
  std::size_t input = 0;  // its index in the inputs
  std::string reason;     // the reader's message, naming the file
};
// The note a report shows for it: "skipped FILE: why" (NoteId::input_skipped).
Note skipped_note(const SkippedInput& skipped);
// The rank a distributed job's file name states: profile_rank_<i>.json (neuron-profile capture's
// names), or any name with rank_<digits>; empty when none.
std::optional<std::int64_t> rank_from_file_name(const std::string& path);

// What the rule files say about the names the readers meet, as plain settings (the engine takes them
// from the knowledge it loaded once: read_settings_of, engine/analyse_profiles.h). The defaults hold
// no memory category patterns (only what a snapshot says names a category).
struct ReadSettings {
  // A Kineto trace's cuda_driver (any *_driver) events are runtime calls (attribution:
  // count_driver_api_calls; the TensorBoard plugin reads none).
  bool count_driver_api_calls = true;
  // An nsys export's NVTX ranges nested in an op's fold into it (attribution: fold_nested_nvtx_ops).
  bool fold_nested_nvtx_ops = true;
  // What a memory snapshot's frames say an allocation holds (memory_categories), first match first.
  std::vector<MemoryCategoryPattern> memory_categories;
};

struct LoadOptions {
  // Called from loading threads with the bytes read so far and the total, across all inputs.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  unsigned max_threads = 0;                                 // 0: one per core
  ReadSettings read;                                        // what the rule files tell the readers
  std::uint64_t max_input_memory = kDefaultMaxInputMemory;  // per input; 0: no limit
  // The run's memory budget in bytes (--max-memory; 0: none), which bounds the sniffed bytes kept
  // for the loads (resolve_inputs).
  std::uint64_t memory_budget = 0;
  // The graph-capture traces (vLLM's, SGLang's capture_traces/) handed to the sink with each worker:
  // those of `graph_captures` (--graph-capture FILE|FOLDER) for every worker, else those beside
  // its trace (captures_beside). Off: none is looked for (the load of a LoadedRun, which keeps
  // none, looks for none).
  bool read_graph_captures = true;
  std::vector<std::string> graph_captures;
  // Profiles given as bytes: a path that names one is read from its bytes, not from the disk
  // (RunRequest::profile_bytes).
  std::vector<ProfileBytes> given;
  // The inputs of `paths` resolved already (prepare_run's), used where a load is given the same
  // paths: a run folder's files are listed, stat'ed and sniffed once a run, not twice.
  std::shared_ptr<const ResolvedInputs> resolved;
};

// Each path is a trace file or a run folder whose trace files are the workers (sorted by name).
// Checks that each exists and has a known format. Throws InputError naming the file otherwise.
// Small files' sniffed bytes are kept for their loads, at most a sixteenth of `memory_budget` (the
// run's --max-memory; 0: no budget, all of them). A path that names one of `given` is that profile's
// bytes, whatever the disk holds.
std::vector<InputFile> resolve_inputs(const std::vector<std::string>& paths, std::uint64_t memory_budget,
                                      const std::vector<ProfileBytes>& given = {});
// The order of a run folder's files: numbers in names compare as numbers (rank-2 before rank-10;
// digit runs by value, then by length, so "07" follows "7"; everything else byte by byte).
bool natural_path_less(const std::string& a, const std::string& b);

// A worker as loaded: its profile, and the graph-capture traces read for it
// (LoadOptions::read_graph_captures; what was left out of them is in the profile's notes).
struct LoadedWorker {
  Profile profile;
  std::optional<std::vector<Profile>> captures;  // set where capture traces were found for it
};
// Receives each worker as soon as it is loaded, on the thread that loaded it: `input` is the
// index of its file in the inputs. The workers of one input arrive in order, one at a time.
using WorkerSink = std::function<void(std::size_t input, LoadedWorker&& worker)>;

// What a streaming load_run tells its caller, and asks of it.
struct RunSink {
  // Chooses the inputs to read among those found, in their order (a slice of a run); unset: all.
  std::function<std::vector<InputFile>(std::vector<InputFile> found)> choose;
  // Told the inputs to be read before any is (unset: not told).
  std::function<void(const std::vector<InputFile>& inputs)> start;
  // Each worker as soon as it is loaded (may analyse it and let it go).
  WorkerSink worker;
};

// The inputs of a run, as load_run read them.
struct RunInputs {
  std::vector<InputFile> inputs;      // every input read, in order: a worker's `input` indexes these
  std::vector<SkippedInput> skipped;  // those of a run folder that were not profiles, in input order
  std::vector<InputFile> kept;        // the inputs less the skipped ones
  // A note per skipped file ("skipped FILE: why"), then one per rank whose file was skipped
  // (profile_rank_<i>.json): that rank is missing from the run.
  std::vector<Note> warnings;
  // The ranks of the skipped profile_rank_<i> files: missing from the run, counted in ranks.expected.
  std::vector<std::int64_t> missing_ranks;
};

// The one call that loads a run: resolves `paths` (files and run folders), reads the inputs in
// parallel and hands every worker to `sink` as it is loaded, so that only the workers being loaded
// are in memory at once. A file of a run folder that is not a profile is skipped, not an error,
// unless its folder holds no profile at all. Throws InputError (file and cause) for a path that is
// no input, or for the first input, in input order, that failed; an exception from the sink
// likewise.
RunInputs load_run(const std::vector<std::string>& paths, const LoadOptions& options, const RunSink& sink);

struct LoadedRun {
  std::vector<InputFile> inputs;            // the files loaded, skipped ones left out
  std::vector<Note> skipped;                // RunInputs::warnings
  std::vector<std::int64_t> missing_ranks;  // RunInputs::missing_ranks
  // One per input trace, in input order; an nsys export adds one per process with GPU work.
  std::vector<Profile> workers;
};
// Every worker of every input, held at once (tests and small runs).
LoadedRun load_run(const std::vector<std::string>& paths, const LoadOptions& options = {});

// Threads each input gets when `inputs` (of `input_bytes` of text in all, text_bytes) are loaded with
// these options: one thread per input while there are more inputs than threads, and the threads left
// over shared among the inputs. The threads: --threads, else default_threads of this process's cores.
unsigned threads_per_input(const LoadOptions& options, std::size_t inputs, std::uint64_t input_bytes);

// The default thread count (--threads 0; issues 77 and 96, docs/performance.md#threads): one thread
// where the input is small (under kSmallInputBytes of text in all: below it a second thread added
// more CPU than it took off the wall time on some real traces, 9.8 and 16.8 MB with every report
// written) or no core is free; else one per core that the load leaves free (the allowed cores less
// the load, to the nearest whole core), at least one and at most the allowed cores. `load`: the run
// queue on the allowed cores (CoreState::load).
inline constexpr std::uint64_t kSmallInputBytes = std::uint64_t{20} << 20;
unsigned default_threads(std::uint64_t input_bytes, unsigned allowed_cores, double load);
// This process's cores: those its affinity mask allows (sched_getaffinity) and the load on them, the
// 1-minute load average (/proc/loadavg) times their share of the machine's online cores.
struct CoreState {
  unsigned allowed = 1;
  double load = 0;
};
CoreState core_state();
// The inputs' size as text: each file's bytes, or a gzip file's inflated size from its trailer.
std::uint64_t text_bytes(const std::vector<InputFile>& inputs);
// A size for threads_per_input where the work is not one input's (the reports written side by side):
// never small.
inline constexpr std::uint64_t kNotSmall = ~std::uint64_t{0};

// Graph-capture traces and what was read to find them.
struct CaptureFiles {
  std::vector<std::string> files;  // the capture traces, in order
  std::vector<std::string> read;   // every file read: the traces and execution_details.json
  std::vector<Note> warnings;      // entries left out, said once per list
};
// The graph-capture traces of a --graph-capture FILE or FOLDER: a folder with an execution_details.json
// (vLLM, SGLang) gives the files it lists, another folder its trace files. execution_details.json
// must be a regular file of at most 4 MiB (and `max_input_memory`, 0: none); an entry that names a
// file outside its folder (absolute, "..", a link out) is left out with a warning. Throws
// InputError for an execution_details.json that is not a list or breaks those bounds.
// `memory_budget`: the run's, for a folder's files resolved (resolve_inputs).
CaptureFiles graph_capture_files(const std::string& path, std::uint64_t max_input_memory,
                                 std::uint64_t memory_budget);
// The capture traces recorded beside a trace (or in a run folder): capture_traces/ with its
// execution_details.json; empty when there is none.
CaptureFiles captures_beside(const std::string& trace_path, std::uint64_t max_input_memory);
// The folder captures_beside looks in for a trace file, as a key: all before its last '/'. The traces
// of one folder share their capture traces, so a run folder's ranks look once (issue 78).
std::string captures_folder_of(const std::string& trace_path);

// The worker name of a trace file: its file name without the trace extensions.
std::string worker_name_from_path(const std::string& path);

}  // namespace perfgate
