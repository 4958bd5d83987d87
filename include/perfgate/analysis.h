// The analysis stage: steps, the aggregation window, attribution and the core metric families,
// each computed by its own small analyser (src/analyse/) from the Profile alone.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/classification.h"
#include "perfgate/metrics.h"
#include "perfgate/profile.h"
#include "perfgate/tables.h"

namespace perfgate {

struct WindowOptions {
  std::optional<std::int64_t> iter_start;  // first step number kept (inclusive)
  std::optional<std::int64_t> iter_stop;   // last step number kept (inclusive)
  std::int64_t skip_first = 0;             // steps dropped from the start of the window
};

struct AnalysisOptions {
  WindowOptions window;
  std::string key_op;  // regex: every start of a matching op begins a step (DLProf's key node)
  // Regex for step range names (whole-name match, first group = step number); empty: the rules'
  // step ranges for the way the profile marks steps (Classification::profiler_step_ranges or
  // nvtx_step_ranges).
  std::string step_pattern;
  // Threads one worker's analysis may use: its independent stages (op tables, interval breakdown,
  // kernel tables and timeline) run side by side when above 1. The results do not depend on it.
  unsigned threads = 1;
  // Workers of a run that keep their whole tables (ops, kernels, regions, gaps, memory, timeline):
  // the first, the slowest, the fastest, then the next slowest. The others keep their metrics,
  // steps, GPUs, iterations and collectives, and their ops, kernels and regions count in the
  // run's sums; so a run's memory does not grow with its workers' tables. 0: every worker.
  std::size_t detailed_workers = 8;
  // --graph-capture: graph-capture trace files or folders merged into every replay trace; empty: the
  // captures found beside each trace (captures_beside, load.h).
  std::vector<std::string> graph_captures;
};

enum class StepSource { ProfilerStep, StepPattern, KeyOp, None };
const char* step_source_name(StepSource source);

// The step-time split of the TensorBoard plugin, in priority order: each instant of a step is
// counted once, in the first category active at that instant; Other is the rest.
enum class BreakdownPart : std::uint8_t {
  Kernel,
  Memcpy,
  Memset,
  Communication,
  Runtime,
  DataLoader,
  CpuExec,
  Other
};
inline constexpr std::size_t kBreakdownParts = 8;
using Breakdown = std::array<TimeNs, kBreakdownParts>;
const char* breakdown_part_name(BreakdownPart part);  // "kernel", "memcpy", ...

// DLProf's resource split, also exclusive in this order.
enum class ResourcePart : std::uint8_t { TensorCoreKernels, OtherKernels, Memory, Cpu, Other };
inline constexpr std::size_t kResourceParts = 5;
using ResourceSplit = std::array<TimeNs, kResourceParts>;
const char* resource_part_name(ResourcePart part);  // "tc_kernels", "non_tc_kernels", ...

struct Step {
  std::string name;
  std::optional<std::int64_t> number;  // N of ProfilerStep#N, or the key-op occurrence index
  TimeNs host_start = 0;
  TimeNs host_end = 0;
  TimeNs start = 0;  // max(previous step end, host start)
  TimeNs end = 0;    // max(host end, end of the last GPU activity launched inside the host span)
  std::uint32_t gpu_activities = 0;  // launched by runtime calls inside the host span
  bool in_window = false;
  Breakdown breakdown{};  // filled for steps in the window
  TimeNs duration() const { return end - start; }
};

struct DroppedStep {
  std::string name;
  std::string reason;
};

struct StepDetection {
  StepSource source = StepSource::None;
  std::vector<Step> steps;  // kept steps, in time order
  std::vector<DroppedStep> dropped;
  std::vector<std::uint32_t> marker_events;  // host events that define steps (not CPU work)
  TimeNs whole_trace_start = 0;              // the window when there are no steps
  TimeNs whole_trace_end = 0;
  TimeNs whole_trace_host_start = 0;  // ... where its host side (the CPU ops' span) begins
};

struct Window {
  TimeNs start = 0;
  TimeNs end = 0;
  // The window's steps on the host: from the first one's host start to the last one's host end
  // (no steps: from the CPU ops' first start to `end`). The GPU can run behind the host (work queued
  // before the capture), so a step's ops may start before `start`, and the next step's before
  // `end`: host calls belong to the window by this span, GPU activities by [start, end).
  TimeNs host_start = 0;
  TimeNs host_end = 0;
  std::vector<std::size_t> steps;  // indices of the steps in the window
  std::optional<std::int64_t> first_number;
  std::optional<std::int64_t> last_number;
  // The whole capture, whatever the window (set_capture_spans, window.h): first start to last end
  // of any event the trace recorded, and of its GPU activities alone (kernels, memcpy, memset, any
  // GPU). Equal ends: nothing recorded, no GPU activity.
  TimeNs capture_start = 0;
  TimeNs capture_end = 0;
  TimeNs gpu_start = 0;
  TimeNs gpu_end = 0;
  TimeNs length() const { return end - start; }
};

struct GpuMetrics {
  std::int32_t device = 0;
  std::string name;
  int compute_major = -1;
  int compute_minor = -1;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t kernel_count = 0;         // kernels overlapping the window
  TimeNs kernel_ns = 0;                   // union of kernel intervals in the window
  TimeNs busy_ns = 0;                     // union of kernel, memcpy and memset intervals in the window
  std::optional<double> utilization_pct;  // empty when the window has no length
  std::optional<double> busy_pct;
  std::optional<double> idle_pct;
  std::optional<double> sm_efficiency_pct;
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> tensor_core_kernel_time_pct;
  std::optional<double> min_chunk_busy_pct;  // the least busy of 30 equal chunks of the window
  // Over the whole capture, not the window: the union of its kernel, memcpy and memset intervals,
  // and that time's share of the capture span and of the GPU span (Window::capture_start ...).
  TimeNs capture_busy_ns = 0;
  std::optional<double> busy_of_capture_pct;
  std::optional<double> busy_of_gpu_span_pct;
  std::string architecture;  // "Volta", "gfx942"; empty when unknown
  // The architecture (and compute capability) comes from kernel names: the trace does not
  // describe the device (PyTorch <= 1.9 wrote no deviceProperties).
  bool architecture_inferred = false;
};

// Tensor Core sums over the window; each percentage is one ratio of these sums.
struct TensorCoreSums {
  // All kernel time, and its Tensor Core part (only of launched kernels where
  // Classification::tc_share_counts_unlaunched_kernels is off).
  TimeNs kernel_ns = 0;
  TimeNs tc_kernel_ns = 0;
  TimeNs op_kernel_ns = 0;              // kernel time attributed to ops (self)
  TimeNs eligible_self_kernel_ns = 0;   // self kernel time of bottom-most eligible ops
  TimeNs eligible_total_kernel_ns = 0;  // kernel time under bottom-most eligible ops (inclusive)
  TimeNs eligible_tc_kernel_ns = 0;     // of which Tensor Core kernels
  // The rest, eligible_total_kernel_ns - eligible_tc_kernel_ns, by what kept it off Tensor Cores:
  // layout-conversion kernels (rules: layout_conversion_kernels), then the other kernels by the
  // input types of their bottom-most eligible op.
  TimeNs eligible_layout_kernel_ns = 0;
  TimeNs eligible_fp32_kernel_ns = 0;     // FP32 or FP64 inputs
  TimeNs eligible_half_kernel_ns = 0;     // FP16, BF16, FP8 or INT8 inputs: types Tensor Cores take
  TimeNs eligible_unknown_kernel_ns = 0;  // no input type recorded
  // Kernel time of the bottom-most eligible ops that ran no Tensor Core kernel, by their inputs.
  TimeNs without_tc_fp32_kernel_ns = 0;
  TimeNs without_tc_half_kernel_ns = 0;
  TimeNs without_tc_unknown_kernel_ns = 0;
  std::uint64_t eligible_ops_without_tc = 0;       // bottom-most eligible op calls with kernels, none on TC
  std::uint64_t eligible_op_names_without_tc = 0;  // distinct names of those (DLProf's count)
  std::uint64_t misaligned_shapes = 0;  // half-precision shapes with a dimension not a multiple of 8
  // A run's sums are its workers' added (tensor_cores.cpp): times saturate (add_time), counts add,
  // and distinct-name counts take the largest worker's (a lower bound: names cannot be summed).
  TensorCoreSums& operator+=(const TensorCoreSums& from);
};

// FLOPs of the window's ops (bottom-most ops with a count; the trace's own `flops` first, else
// from shapes) and the time they would take at the GPU's peak for each op's precision.
struct ComputeSums {
  double flops = 0;
  double flops_at_known_peak = 0;
  double ideal_seconds = 0;            // sum of flops / peak, over the ops whose peak is known
  TimeNs eligible_device = 0;          // device time of bottom-most TC-eligible ops
  TimeNs eligible_device_counted = 0;  // ... of those whose FLOPs are known
  std::string peak_name;               // the matched gpu_peaks entry, empty when none
  std::size_t gpus = 0;
  double min_coverage_pct = 0;   // rules: compute.mfu_min_flops_coverage_pct
  std::string peak_source;       // where the peak entry's figures come from
  bool peak_measured = false;    // measured max-achievable figures (a user's rule file)
  bool peak_has_memory = false;  // the entry has a memory bandwidth (the roofline's slope)
  // FLOPs, times and GPUs add up; the peak's name is the first known, the coverage bound the
  // strictest (every worker reads the same rules) (flops.cpp).
  ComputeSums& operator+=(const ComputeSums& from);
};

// The roofline over the window's modelled ops (roofline.cpp): kernel time, the time the same work
// takes at the GPU's ceilings, and the time reaching the target share of them would save.
struct RooflineSums {
  TimeNs modelled_kernel_ns = 0;    // kernel time of the roofline table's modelled rows
  TimeNs unmodelled_kernel_ns = 0;  // ... of its unmodelled rows (ops with no model)
  TimeNs matrix_kernel_ns = 0;      // kernel time of GEMM, convolution and attention ops (rules: op_types)
  TimeNs matrix_modelled_kernel_ns = 0;  // ... of those a modelled row covers
  TimeNs peaked_kernel_ns = 0;           // kernel time of the modelled rows with a roofline
  std::uint64_t roofline_ps = 0;         // their time at the roofline, picoseconds
  std::uint64_t target_saving_ps = 0;    // time they would save at the target share, picoseconds
  std::uint64_t flop = 0;                // the modelled rows' FLOPs (as MFU counts them where it does)
  std::uint64_t bytes = 0;
  RooflineSums& operator+=(const RooflineSums& from);
};

// Host-side costs and GPU activity counts over the window.
struct HostActivitySums {
  std::uint64_t sync_calls = 0;  // runtime calls that block until the GPU is done (rules: sync_calls)
  TimeNs sync_time = 0;
  TimeNs runtime_time = 0;  // union of runtime and driver calls within the window's steps
  TimeNs step_time = 0;     // the window's steps (the denominator of the shares)
  std::uint64_t kernels = 0;
  std::uint64_t short_kernels = 0;           // shorter than 10 µs
  std::uint64_t kernels_without_launch = 0;  // no runtime call with their correlation id
  TimeNs kernel_time = 0;
  std::uint64_t graph_launches = 0;         // runtime calls that replay a graph (rules: graph_launch_calls)
  TimeNs graph_kernel_time = 0;             // kernel time those launches ran (graph_replay.h)
  TimeNs graph_kernel_time_placed = 0;      // ... given the op that captured them (graph_capture.cpp)
  std::uint64_t graph_capture_workers = 0;  // workers with graph-capture traces merged in
  // Kernel time of TorchInductor's kernels (rules: compiled_kernels, by the kernel's name: Inductor
  // names the range around a launch after its kernel): the compiled (Triton) class.
  TimeNs compiled_kernel_time = 0;
  std::optional<TimeNs> median_launch_gap;  // gaps where the GPU waited for the next launch
  struct Copies {
    std::uint64_t count = 0;
    std::uint64_t bytes = 0;
    TimeNs time = 0;
    Copies& operator+=(const Copies& from);
  };
  Copies h2d, d2h, d2d, all_copies;
  std::uint64_t pageable_copies = 0;
  std::uint64_t sync_copies = 0;   // copies by a blocking call, host-to-device ones of 64 KiB or less aside
  std::uint64_t sync_memsets = 0;  // memsets by a blocking call
  // Counts and times add up (host_activity.cpp). Medians do not: median_launch_gap stays this
  // value's, and a run sets its own from its workers' (run_metrics.cpp).
  HostActivitySums& operator+=(const HostActivitySums& from);
};

// How the run parallelises, from the ops it ran in the window (the plugin's DataParallel and
// DDP recommendations).
struct ParallelismSums {
  std::uint64_t data_parallel_calls = 0;
  std::uint64_t ddp_calls = 0;
  std::uint64_t nccl_calls = 0;
  ParallelismSums& operator+=(const ParallelismSums& from);  // counts add up
};

// HTA's idle-time breakdown, summed over streams: the gap before each GPU activity is host wait
// (its launch call started after the previous activity ended), kernel wait (a gap under 30 µs),
// or other. And the gaps of each GPU's busy time (nsys analyze gpu_gaps).
struct IdleSums {
  TimeNs host_wait = 0;
  TimeNs kernel_wait = 0;
  TimeNs other = 0;
  // Every gap between a GPU's activities in the window, split by what the launching host threads
  // did meanwhile; gaps under 30 us are ShortGap whatever the host did.
  std::array<TimeNs, kIdleCauses> by_cause{};
  std::optional<TimeNs> longest_gap;
  std::uint64_t long_gaps = 0;  // 500 µs or more
  // Times add up (saturating), the longest gap is the longest of both (idle.cpp).
  IdleSums& operator+=(const IdleSums& from);
};

struct CommunicationSums {
  TimeNs kernel_time = 0;  // union of communication kernels in the window
  TimeNs overlapped = 0;   // of which compute kernels ran at the same time
  TimeNs window = 0;
  std::uint64_t collectives = 0;  // outermost communication ops in the window
  std::uint64_t bytes = 0;
  bool bytes_known = false;
  // Times and counts add up; bytes are known when either side knows some (communication.cpp).
  CommunicationSums& operator+=(const CommunicationSums& from);
};

// A collective's kind as nccl-tests names them: what its bus bandwidth factor is.
enum class CollectiveType : std::uint8_t {
  Other,
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast,
  Reduce,
  SendRecv,
  Barrier
};
const char* collective_type_name(CollectiveType type);  // "all_reduce", ...
// busbw / algbw for a collective over n ranks (nccl-tests, doc/PERFORMANCE.md): 2(n-1)/n
// all-reduce, (n-1)/n all-gather, reduce-scatter, all-to-all, 1 broadcast, reduce, send/recv; none
// for a type without a definition or n < 2.
std::optional<double> bus_bandwidth_factor(CollectiveType type, std::int64_t n);

// One collective a worker issued in the window, as the matching across ranks needs it
// (collective_matching.h): the i-th call of a type in a process group and step is the same
// collective on every rank of the group, as NCCL and gloo require every rank to issue a group's
// collectives in the same order (so each type's too: the type keeps traces that record no group
// from mixing the calls of two groups issued from two threads).
struct CollectiveCall {
  std::uint32_t group = 0;  // index into CollectiveCalls::groups
  CollectiveType type = CollectiveType::Other;
  std::int32_t group_size = -1;  // "Group size", else the world size; -1: unknown
  std::int64_t step = -1;        // number of the window step it was issued in; -1: no steps
  std::uint32_t index = 0;  // its place among its group's calls of its type in the step (host start order)
  std::uint64_t bytes = 0;  // message size; 0: unknown
  TimeNs start = 0;         // when the rank arrived: its first kernel's start (host start on CPU)
  TimeNs duration = -1;     // first kernel start to last kernel end; -1: not timed
};

struct CollectiveCalls {
  std::vector<std::string> groups;  // "Process Group Name"; "" where none is recorded
  std::vector<CollectiveCall> calls;
};

// A worker's place in its run: its input, then its order within the input (processes of an export).
struct WorkerPosition {
  std::size_t input = 0;
  std::size_t index = 0;
  auto operator<=>(const WorkerPosition&) const = default;
};

// One collective of a run, its ranks' calls folded together (by group, type, step and index). Every
// field combines by min, max or sum, so the fold does not depend on the order ranks come in.
struct MatchedCollective {
  std::string group;
  std::int64_t step = -1;
  std::uint32_t index = 0;
  CollectiveType type = CollectiveType::Other;
  std::int32_t group_size = -1;
  std::uint64_t bytes = 0;  // the largest any rank recorded
  // The smallest known (non-zero) size any rank recorded.
  std::uint64_t smallest_bytes = 0;
  std::uint32_t ranks = 0;    // ranks that issued it
  std::uint32_t timed = 0;    // ... with a duration
  TimeNs shortest = 0;        // the transfer latency: the shortest timed duration
  TimeNs duration_sum = 0;    // of the timed ranks
  TimeNs latest_start = 0;    // the last arrival
  WorkerPosition latest;      // ... its worker (the first position on a tie)
  TimeNs second_start = 0;    // the next-to-last arrival (timed >= 2)
  TimeNs earliest_start = 0;  // the first arrival
  TimeNs earliest_end = 0;    // the first rank to finish
  void add(const MatchedCollective& from);
};

// One rank's timed calls in a (group, type, step), indices first .. first + count - 1.
struct CollectiveSpan {
  std::string group;
  CollectiveType type = CollectiveType::Other;
  std::int64_t step = -1;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

// What a rank's row of the collective tables needs besides the matched collectives.
struct RankCollectiveSums {
  WorkerPosition position;
  std::uint64_t calls = 0;   // collectives it issued
  TimeNs duration = 0;       // of its timed calls
  TimeNs first_start = 0;    // its first timed call's start: the starts below are from it
  TimeNs start_offsets = 0;  // sum of (start - first_start) of its timed calls
  std::vector<CollectiveSpan> spans;
  // Each timed call's start and duration, in the order of the spans' calls: a call whose
  // collective is not matched adds nothing to the rank's row.
  std::vector<TimeNs> starts;
  std::vector<TimeNs> durations;
};

// The collectives of some of a run's workers, matched so far: what a partial report carries, so
// that the merge of partials matches exactly as one process reading every rank.
struct CollectiveSums {
  std::vector<MatchedCollective> collectives;  // by (group, type, step, index)
  std::vector<RankCollectiveSums> ranks;       // by position
};

// The GPU allocator over the whole capture (docs/metrics.md, "Memory").
struct MemorySums {
  std::optional<std::int64_t> peak_allocated;  // the highest allocator total on any GPU
  std::optional<double> peak_pct;              // of that GPU's memory
  std::optional<std::int64_t> peak_reserved;   // the highest reserved total, where recorded
  std::int32_t peak_device = -1;
  TimeNs peak_time = 0;
  // The op whose allocation reached the peak: kNoOpName outside any op, "(before the capture)" when
  // the total entering the capture is the highest.
  std::string peak_op;
  // The trace records changes without totals (PyTorch 1.8/1.9): totals count from the capture's
  // start, so the peak is a lower bound.
  bool totals_from_changes = false;
  // Peaks do not add: the sums of the side with the higher allocated peak, with the higher
  // reserved peak of both (memory.cpp).
  MemorySums& operator+=(const MemorySums& from);
};

// A Neuron device profile's metrics (docs/metrics.md, "Neuron"), each with what a run of several
// profiles makes of it: the values of its profiles are kept as sum, count, lowest and highest.
enum class NeuronMetric : std::uint8_t {
  TotalTimeUs,
  ActivePct,
  TensorActivePct,
  VectorActivePct,
  ScalarActivePct,
  GpSimdActivePct,
  SyncActivePct,
  TensorInstructions,
  VectorInstructions,
  ScalarInstructions,
  GpSimdInstructions,
  SyncInstructions,
  MfuPct,
  HfuPct,
  MbuPct,
  DmaActivePct,
  DmaBytes,
  HbmReadBytes,
  HbmWriteBytes,
  SpillSaveBytes,
  SpillReloadBytes,
  ThrottleActivePct,
  ThrottleUtilLimitPct,
  MissingDataWarnings,
  Warnings,
};
inline constexpr std::size_t kNeuronMetrics = 25;

struct NeuronValue {
  double sum = 0;
  double min = 0;
  double max = 0;
  std::uint64_t count = 0;  // profiles that have the value
  void add(double value);
  NeuronValue& operator+=(const NeuronValue& from);
};

struct NeuronSums {
  std::uint64_t profiles = 0;      // Neuron profiles summed; 0: not a Neuron profile
  std::uint64_t summary_only = 0;  // of which summary-json (no instruction rows)
  std::array<NeuronValue, kNeuronMetrics> values{};
  NeuronSums& operator+=(const NeuronSums& from);  // neuron_metrics.cpp
};

// What bounds a step on its critical path (HTA's bound_by classes, docs/metrics.md "Critical path").
enum class PathBound : std::uint8_t {
  Cpu,             // host ops and runtime calls (cpu_bound)
  DataLoading,     // host ops under a DataLoader op (rules: dataloader_ops)
  LaunchOverhead,  // from a launch call's start to its kernel's start (gpu_kernel_launch_overhead)
  KernelGap,       // between two kernels of a stream (gpu_kernel_kernel_overhead)
  GpuCompute,      // kernels, memcpy and memset (gpu_compute_bound)
  Communication,   // communication kernels (gpu_communication_bound)
};
inline constexpr std::size_t kPathBounds = 6;
using PathSplit = std::array<TimeNs, kPathBounds>;
const char* path_bound_name(PathBound bound);  // HTA's: "cpu_bound", "data_loading", ...

// One window step's critical path (a row of the critical_path table).
inline constexpr std::size_t kPathTopOps = 3;

struct CriticalPathStep {
  std::string step;                    // "ProfilerStep#12"; the window's name without steps
  std::optional<std::int64_t> number;  // the step's number
  TimeNs span = 0;                     // of the host range the path is built over
  TimeNs length = 0;                   // the longest path's length
  PathSplit by{};                      // the length by what bounds it
  std::uint32_t events = 0;            // events with time on the path
  std::uint32_t short_launches = 0;    // launch calls under 1 us once rounded: off the graph with their work
  // The ops, calls and GPU activities (by name) with most time on this step's path, most first (at
  // most kPathTopOps): what bounds the step.
  std::vector<std::pair<std::string, TimeNs>> top_ops;
};

// An op, runtime call or GPU activity (by name) with time on the critical path, summed over steps.
struct CriticalPathOpRow {
  std::string name;
  PathBound bound = PathBound::Cpu;
  TimeNs time = 0;
  std::uint64_t calls = 0;  // its calls with time on a path
  std::uint32_t steps = 0;  // steps whose path it is on
};

struct CriticalPathSums {
  std::vector<CriticalPathStep> steps;  // the window's steps in order
  std::vector<CriticalPathOpRow> ops;   // most time first, at most kCriticalPathOps
  // The path of the step the timeline shows, in the timeline's lanes and time (relative to its
  // step's start): a box per stretch of one event, kind its PathBound's name.
  std::vector<TimelineBox> timeline;
  std::uint64_t graph_cycles = 0;  // steps whose graph had a cycle (broken; docs/metrics.md)
};

struct WorkerAnalysis {
  std::string worker;
  std::string source_path;
  ProfileInfo info;  // what the trace says about itself, for the report
  StepDetection steps;
  Window window;
  Breakdown mean_breakdown{};  // mean over window steps (ns)
  ResourceSplit resources{};   // summed over window steps (ns)
  std::vector<GpuMetrics> gpus;
  TensorCoreSums tensor_cores;
  ComputeSums compute;
  RooflineSums roofline;
  HostActivitySums host;
  IdleSums idle;
  CommunicationSums communication;
  // Its collectives for the matching across ranks: folded into the run by RunCombiner, which
  // then lets them go (they are in no report as they are).
  CollectiveCalls collective_calls;
  MemorySums memory;
  ParallelismSums parallelism;
  CriticalPathSums critical_path;
  NeuronSums neuron;
  WorkerTables tables;
  bool has_runtime_calls = false;
  bool has_devices = false;  // the trace lists GPUs (deviceProperties, TARGET_INFO_GPU), used or not
  MetricValues metrics;
  std::vector<std::string> warnings;
  // Whether the worker kept its whole tables in a run of more than AnalysisOptions::
  // detailed_workers workers, and why: "first", "slowest", "fastest" (empty for a lone worker).
  bool detailed = true;
  std::string detailed_as;
};

// The run's collectives by process group, type and message size, matched across ranks
// (collective_matching.h): each collective's transfer latency is its shortest duration on any rank.
struct CollectiveSizeRow {
  std::string group;
  CollectiveType type = CollectiveType::Other;
  std::int32_t group_size = -1;  // n of the bus bandwidth; -1: unknown (the matched ranks are used)
  std::uint64_t bytes = 0;       // message size (nccl-tests' S)
  std::uint64_t collectives = 0;
  std::uint32_t ranks = 0;  // the most ranks any of them was matched on
  TimeNs transfer = 0;      // sum of the shortest durations
  TimeNs wait = 0;          // sum over ranks of (duration - shortest)
  TimeNs late = 0;          // sum over ranks of (latest start - its start)
};

// One worker's collective time split into transfer and waiting, and how often it arrived last.
struct RankCommunicationRow {
  std::size_t worker = 0;         // index into RunAnalysis::workers
  std::uint64_t collectives = 0;  // issued in the window
  std::uint64_t matched = 0;      // timed and matched on 2 ranks or more
  TimeNs duration = 0;            // of the matched ones
  TimeNs transfer = 0;            // their shortest durations
  TimeNs wait = 0;                // duration - transfer
  TimeNs late = 0;                // sum of (latest start - its start)
  std::uint64_t last_arrivals = 0;
  TimeNs delay = 0;  // sum, where it arrived last, of its start - the next-to-last arrival's
};

struct RunCollectives {
  std::vector<CollectiveSizeRow> by_size;   // most transfer time first
  std::vector<RankCommunicationRow> ranks;  // in worker order; empty with fewer than 2 ranks
  std::uint64_t matched = 0;                // collectives timed on 2 ranks or more
  std::uint32_t most_ranks = 0;             // the most ranks a matched collective was timed on
  // Calls paired by (group, type, step, index) on several ranks that are not one collective, so
  // not matched (docs/metrics.md, "Collectives"): their spans do not overlap within the clock-skew
  // bound (kCollectiveClockSkewNs; a rank finished before another started: traces of different
  // captures, or a sampled trace), or they differ in size (a type whose size every rank shares).
  std::uint64_t disjoint = 0;
  std::uint64_t sizes_differ = 0;
  // Collectives timed on one rank only, with a known size and group: the bytes they would move on
  // the bus (S x the nccl-tests factor) and their durations, waiting included: a lower bound of the
  // bus bandwidth.
  double alone_bus_bytes = 0;
  TimeNs alone_duration = 0;
};

// How far the clocks of one capture's ranks may disagree: two ranks' spans of one collective
// overlap within it (docs/metrics.md, "Collectives").
inline constexpr TimeNs kCollectiveClockSkewNs = 1'000'000;

// The job's critical path of one step through its collectives (docs/metrics.md, "Job critical
// path"): a collective ends when its last rank arrives (plus its transfer), so the late rank's work
// before it is on the job's path.
struct JobPathStep {
  std::int64_t step = 0;  // the step's number (ProfilerStep#N)
  TimeNs length = 0;
  TimeNs communication = 0;  // the collectives' transfers on the path
  std::uint32_t collectives = 0;
  std::vector<TimeNs> decided;  // per worker (RunAnalysis::workers order): its time on the path
};

struct RunAnalysis {
  std::vector<WorkerAnalysis> workers;
  // About the run as a whole: files of a run folder skipped, workers that are not one capture
  // (GPU models, world sizes, times), ranks missing from the world size.
  std::vector<std::string> warnings;
  MetricValues metrics;  // the run as a whole (see docs/metrics.md, "Several workers")
  RunTables tables;      // every worker's ops, kernels and regions summed by name (2 workers or more)
  RunCollectives collectives;
  std::vector<JobPathStep> job_path;  // steps with matched collectives, in step order (2 ranks or more)
};

// Throws ConfigError for a window that selects no step or an invalid pattern.
WorkerAnalysis analyse_profile(const Profile& profile, const Classification& classification,
                               const AnalysisOptions& options);
struct CompiledClassification;

// Analyses profiles with the classification compiled once. Safe to call from several threads at
// once (each call keeps its own per-profile state), so workers can be analysed as they load.
// Graph-capture traces merged into a replay trace (graph_capture.cpp): each graph launch of the
// replay aligned with the captured graph its kernels match best, and each replayed activity placed
// on a captured launch given that launch's op, shapes, module frames and stack.
struct GraphCaptureCoverage {
  std::size_t captured_graphs = 0;   // capture windows (Begin/EndCapture) in the capture traces
  std::size_t launches = 0;          // graph launches in the replay
  std::size_t launches_aligned = 0;  // ... of which some activity was placed
  std::size_t replayed = 0;          // GPU activities the graph launches ran
  std::size_t placed = 0;            // ... placed on a captured launch
};
// Adds the captured ops to `replay` (a note states the coverage); call before analysing it.
GraphCaptureCoverage merge_graph_captures(Profile& replay, const std::vector<Profile>& captures,
                                          const Classification& classification);

class WorkerAnalyser {
 public:
  // Throws ConfigError for a classification pattern that does not compile.
  WorkerAnalyser(const Classification& classification, const AnalysisOptions& options);
  ~WorkerAnalyser();
  WorkerAnalyser(const WorkerAnalyser&) = delete;
  WorkerAnalyser& operator=(const WorkerAnalyser&) = delete;
  // Throws ConfigError for a window that selects no step or an invalid pattern.
  WorkerAnalysis operator()(const Profile& profile) const;

 private:
  std::unique_ptr<const CompiledClassification> compiled_;
  AnalysisOptions options_;
};

// A run's ops, kernels and regions summed by name over some of its workers (RunRow::workers
// counts them): integer times and counts, so sums of parts add up to the whole in any order.
struct RunRowSums {
  std::vector<RunRow> ops;  // each in name order
  std::vector<RunRow> kernels;
  std::vector<RunRow> regions;
  std::vector<RooflineRow> roofline;  // in key order (name, input dims, input types)
};

struct PositionedWorker {
  WorkerPosition position;
  WorkerAnalysis worker;
};

// Part of a run, as a partial report carries it (perfgate analyze --partial): its workers, each
// with its whole tables only if it could still be among the run's detailed workers, and the sums
// of all its workers' tables. Positions are within the part's own inputs.
struct PartialRun {
  std::vector<PositionedWorker> workers;  // in position order
  RunRowSums sums;
  CollectiveSums collectives;
};

// Folds workers into their run as each is analysed, in any order, from several threads at once:
// their ops, kernels and regions are summed by name at once, and a worker that is not (or no
// longer) among the detailed ones (AnalysisOptions::detailed_workers) lets its whole tables go.
// The result depends only on the workers and their positions, not on the order they came in.
class RunCombiner {
 public:
  explicit RunCombiner(std::size_t detailed_workers);
  ~RunCombiner();
  RunCombiner(const RunCombiner&) = delete;
  RunCombiner& operator=(const RunCombiner&) = delete;
  void add(WorkerPosition position, WorkerAnalysis worker);
  // A part of the run, its positions already the run's: its sums are added, its workers placed
  // among the detailed ones without their tables counted again. Parts whose workers were chosen
  // by the same detailed_workers leave every worker the whole run would detail with its tables:
  // each part keeps its first, its slowest and its fastest.
  void add(PartialRun part);
  // The run: workers in position order, run metrics and run tables.
  RunAnalysis finish();
  // The part this combiner holds, for a partial report: no run metrics, the sums by name.
  PartialRun finish_partial();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The run as a whole (ranks, spread, run metrics) from its workers' analyses, in worker order.
RunAnalysis combine_workers(std::vector<WorkerAnalysis> workers);
// Each worker's rank: its distributedInfo rank, else its index.
std::vector<std::int64_t> rank_ids(const RunAnalysis& run);

}  // namespace perfgate
