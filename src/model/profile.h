// The format-independent profile model: what every reader produces and every analysis reads.
// Times are integer nanoseconds on the trace's clock; names are interned (StringId).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/device_family.h"
#include "common/notes.h"

namespace perfgate {

using TimeNs = std::int64_t;
// Every time a reader puts in a Profile lies in [0, kMaxTimeNs) (about 146 years of nanoseconds)
// and every range lasts at most kMaxDurationNs: the sum or difference of two times cannot
// overflow. Readers refuse (Kineto) or skip (nsys) anything else.
inline constexpr TimeNs kMaxTimeNs = TimeNs{1} << 62;
inline constexpr TimeNs kMaxDurationNs = 30LL * 24 * 3600 * 1000 * 1000 * 1000;  // 30 days
// The durations of one profile's ranges add up to less than kMaxTimeNs (the readers check), so a
// sum that counts each range once fits. Sums that may count a range several times (under an op
// nested in an op of its name) or add up workers saturate instead, so that any input stays defined.
inline void add_time(TimeNs& sum, TimeNs duration) {
  if (__builtin_add_overflow(sum, duration, &sum))
    sum = duration < 0 ? std::numeric_limits<TimeNs>::min() : std::numeric_limits<TimeNs>::max();
}
using StringId = std::uint32_t;
inline constexpr StringId kNoString = 0;  // interned empty string
inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// The pool's hash: one multiply per 8 bytes, inlined into the lookup (kernel and op names run to
// hundreds of bytes). It does about as much work as std::hash; the saving on ResNet-50 was small.
struct TextHash {
  std::size_t operator()(std::string_view text) const noexcept;
};

// Interns strings: equal text, equal id. Views stay valid for the pool's lifetime.
class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) noexcept;
  StringPool& operator=(StringPool&&) noexcept;
  ~StringPool();

  StringId intern(std::string_view text);
  std::string_view view(StringId id) const { return views_[id]; }
  std::size_t size() const { return views_.size(); }
  // The memory the pool holds, its index included (an estimate of the hash table's nodes).
  std::size_t memory_bytes() const;

 private:
  std::string_view store(std::string_view text);

  std::vector<std::unique_ptr<char[]>> chunks_;  // 64 KiB blocks of short strings
  std::vector<std::unique_ptr<char[]>> long_strings_;
  std::size_t chunk_used_ = 0;
  std::size_t long_bytes_ = 0;  // of long_strings_
  std::vector<std::string_view> views_;
  // Text -> id: an open-addressing table (string_pool.cpp), not a node per string. Null only in a
  // pool moved from, which makes a new one when it interns again.
  struct Index;
  std::unique_ptr<Index> ids_;
};

// A CPU-side range. Ops, user annotations (record_function, ProfilerStep#N) and Python
// functions all nest in one tree per thread (`parent`). 32 bytes: a large nsys export holds
// millions; what only some ops record lives in Profile::op_details.
enum class HostKind : std::uint8_t { Op, Annotation, PythonFunction };

struct HostEvent {
  TimeNs start = 0;
  TimeNs end = 0;
  StringId name = kNoString;
  std::uint32_t parent = kNone;   // enclosing host event on the same thread
  std::uint32_t thread : 30 = 0;  // index into Profile::threads
  HostKind kind : 2 = HostKind::Op;
  std::uint32_t details = kNone;  // index into Profile::op_details, kNone: none recorded
};
static_assert(sizeof(HostEvent) == 32, "host events are the most numerous records");

// What an op recorded beyond its span and name: ids, shapes, types, arguments, stack, FLOPs.
struct OpDetails {
  std::int64_t external_id = 0;          // 0: none
  StringId input_dims = kNoString;       // compact JSON text, e.g. [[32,3],[3]]
  StringId input_types = kNoString;      // compact JSON text, e.g. ["float","float"]
  StringId concrete_inputs = kNoString;  // compact JSON text of scalar arguments (strides, padding)
  StringId call_stack = kNoString;
  std::int32_t sequence_number = -1;  // autograd sequence number (low 31 bits), -1: none
  float flops = -1;                   // the trace's own count (with_flops=True), -1: none

  bool empty() const {
    return external_id == 0 && input_dims == kNoString && input_types == kNoString &&
           concrete_inputs == kNoString && call_stack == kNoString && sequence_number < 0 && flops < 0;
  }
};

// A host API call that can start GPU work (CUDA/HIP runtime or driver).
struct RuntimeCall {
  TimeNs start = 0;
  TimeNs end = 0;
  std::int64_t correlation = 0;
  std::int64_t external_id = 0;
  StringId name = kNoString;
  std::uint32_t thread = 0;
};

enum class GpuActivityKind : std::uint8_t { Kernel, Memcpy, Memset };
enum class CopyKind : std::uint8_t {
  Unknown,
  HostToDevice,
  DeviceToHost,
  DeviceToDevice,
  HostToHost,
  PeerToPeer
};
// Which units of the device ran a TPU op, where the profile says (its `hlo_category`: XProf's
// high-FLOPs categories run on the matrix units, the MXUs); Unstated for every other activity.
enum class ComputeUnits : std::uint8_t { Unstated, Matrix, Vector };

struct GpuActivity {
  TimeNs start = 0;
  TimeNs end = 0;
  std::int64_t correlation = 0;
  std::int64_t external_id = 0;
  std::uint64_t bytes = 0;  // memcpy/memset size
  StringId name = kNoString;
  std::uint32_t kernel_info = kNone;  // index into Profile::kernel_info
  std::int32_t device = 0;
  std::uint32_t stream = 0;
  GpuActivityKind kind = GpuActivityKind::Kernel;
  CopyKind copy_kind = CopyKind::Unknown;
  bool pageable = false;  // memcpy from/to pageable host memory
  bool pinned = false;    // memcpy from/to pinned host memory; neither: the trace does not say
  ComputeUnits units = ComputeUnits::Unstated;
};

// Launch configuration and CUPTI estimates of a kernel; -1 where the trace has none.
struct KernelLaunchInfo {
  std::int32_t grid[3] = {-1, -1, -1};
  std::int32_t block[3] = {-1, -1, -1};
  std::int32_t registers_per_thread = -1;
  std::int32_t shared_memory = -1;
  float blocks_per_sm = -1;
  float occupancy_pct = -1;
};

// A range recorded on a GPU stream by a user annotation (gpu_user_annotation).
struct GpuRange {
  TimeNs start = 0;
  TimeNs end = 0;
  StringId name = kNoString;
  std::int32_t device = 0;
  std::uint32_t stream = 0;
};

// A synchronisation the CUDA profiler recorded (Kineto's cuda_sync events, PyTorch 2.2+ with
// CUPTI's synchronization activity): what the host or a stream waited for. The critical path
// (src/analyse/critical_path/critical_path.h) turns each into an edge from the GPU work waited for.
enum class GpuSyncKind : std::uint8_t {
  Context,          // cudaDeviceSynchronize: the host waits for every stream
  Stream,           // cudaStreamSynchronize: the host waits for one stream
  Event,            // cudaEventSynchronize: the host waits for an event recorded on a stream
  StreamWaitEvent,  // cudaStreamWaitEvent: a stream waits for an event recorded on another
};

struct GpuSync {
  TimeNs start = 0;
  TimeNs end = 0;
  std::int64_t correlation = 0;                // of the runtime call that synchronised
  std::int64_t event_record_correlation = -1;  // of the cudaEventRecord waited for; -1: none
  std::int32_t device = 0;
  std::int32_t stream = -1;          // the stream synchronised, or made to wait; -1: none
  std::int32_t wait_on_stream = -1;  // the stream the event waited for was recorded on; -1: none
  GpuSyncKind kind = GpuSyncKind::Context;
};

// A forward op linked to the backward op the autograd engine ran for it.
struct ForwardBackwardLink {
  TimeNs forward_start = 0;
  std::uint32_t forward_thread = 0;
  TimeNs backward_start = 0;
  std::uint32_t backward_thread = 0;
};

// A GPU allocator sample ([memory] instant events when profile_memory=True): one allocation
// (bytes > 0) or free (bytes < 0) on a device, by a host thread, and the allocator's totals after
// it where the trace records them (PyTorch 1.10 and later).
struct MemorySample {
  TimeNs time = 0;
  std::int64_t bytes = 0;
  std::int64_t total_allocated = -1;  // -1: not recorded
  std::int64_t total_reserved = -1;
  std::int32_t device_id = -1;
  std::uint32_t thread = kNone;  // index into Profile::threads
};

// What a communication op recorded about its collective (PyTorch's record_param_comms and
// nccl:*/gloo:* annotations), keyed by the op's External id.
struct CollectiveArgs {
  std::int64_t external_id = 0;
  std::int64_t in_elements = -1;  // "In msg nelems"
  std::int64_t out_elements = -1;
  StringId dtype = kNoString;       // "Float", "BFloat16", ...
  StringId collective = kNoString;  // "allreduce", ...
  std::int32_t group_size = -1;
  StringId process_group = kNoString;  // "Process Group Name" ("0"), where recorded
};

// The kernel a launch call names in its arguments (ROCm's args.kernel): what a graph-capture trace
// records of each kernel the graph will run, since the capture runs none.
struct LaunchedKernel {
  std::int64_t correlation = 0;  // of the launch call
  StringId kernel = kNoString;
};

struct ThreadInfo {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  StringId name = kNoString;
};

struct DeviceInfo {
  std::int32_t id = 0;
  std::string name;
  int compute_major = -1;
  int compute_minor = -1;
  std::uint64_t total_memory_bytes = 0;
  int sm_count = 0;
};

// How a format marks training steps. The names of its step ranges are data in the rules
// (classification: profiler_step_ranges, nvtx_step_ranges, xspace_step_ranges), which the analysis
// reads for it.
enum class StepMarking : std::uint8_t {
  ProfilerStepRanges,  // torch.profiler's ProfilerStep#N annotations (Kineto traces)
  NvtxRanges,          // NVTX ranges the training loop pushes per step or iteration (nsys exports)
  XSpaceAnnotations,   // JAX's and TensorFlow's host annotations: a step_num stat, or a step's name
};

struct ProfileInfo {
  std::string format;  // "kineto-json"
  // What kind of device the profile records: set by its reader, read by everything after it.
  DeviceFamily family = DeviceFamily::Gpu;
  std::string schema_version;  // as the trace states it, may be empty
  std::string trace_name;
  std::optional<std::int64_t> base_time_ns;  // wall-clock offset of the trace clock
  std::optional<std::int64_t> rank;
  std::optional<std::int64_t> world_size;
  std::string distributed_backend;
  StepMarking step_marking = StepMarking::ProfilerStepRanges;
  // Without steps, the window covers every CUDA call and GPU activity (nsys: "the whole capture"),
  // not only the ops' span extended to their GPU work (the TensorBoard plugin's window).
  bool window_spans_capture = false;
  bool graph_capture = false;  // graph-capture traces were merged in (merge_graph_captures, analysis.h)
  std::vector<std::pair<std::string, std::string>> attributes;  // other top-level facts, e.g. versions
  TimeNs profiler_start = 0;                                    // the profiler's own span, when recorded
  TimeNs profiler_end = 0;
};

// ---- AWS Neuron device profiles (neuron-profile view --output-format json / summary-json) ----

// The engines of a NeuronCore, as the Neuron Device Viewer's instruction rows name them; Other holds
// the collective-communication cores and any engine this version does not know.
enum class NeuronEngine : std::uint8_t { Tensor, Vector, Scalar, GpSimd, Sync, Other };
inline constexpr std::size_t kNeuronEngines = 6;

// An instruction lane: one engine row of the Device Viewer ("Tensor", "TensorMatrix", "CC-core 0").
struct NeuronLane {
  StringId name = kNoString;
  NeuronEngine engine = NeuronEngine::Other;
};

// One instruction row; times are nanoseconds from the start of the capture. 24 bytes: a large
// profile holds millions.
struct NeuronInstruction {
  TimeNs start = 0;
  TimeNs end = 0;
  StringId hlo_op = kNoString;  // hlo_name: the HLO instruction the compiler made it from
  std::uint16_t lane = 0;       // index into NeuronDevice::lanes
  // A semaphore wait (opcode EVENT_SEMAPHORE, EVENT_SEMAPHORE_RANGE_CLEAR): the engine waits for
  // another; the profiler's engine active time leaves these out.
  bool semaphore_wait = false;
};
static_assert(sizeof(NeuronInstruction) == 24, "instruction rows are the most numerous records");

// One DMA row.
struct NeuronDma {
  TimeNs start = 0;
  TimeNs end = 0;
  std::uint64_t bytes = 0;      // transfer_size
  StringId hlo_op = kNoString;  // hlo_name, where the row has one
  std::uint16_t queue = 0;      // index into NeuronDevice::dma_queues
  bool collective = false;      // is_cc_dma
};

// One row of the `active_time` section: a stretch in which the profiler counts an engine active
// (start_ts, end_ts, duration_ns); their durations summed per engine are the summary's
// <engine>_engine_active_time.
struct NeuronActiveSpan {
  TimeNs start = 0;
  TimeNs end = 0;
  TimeNs duration = 0;  // duration_ns as written (end - start where absent)
  NeuronEngine engine = NeuronEngine::Other;
};

// One row of layer_summary (a subgraph of the compiled model), as written: times in integer
// nanoseconds, utilizations as fractions 0-1, FLOP counts; empty where the row lacks the field.
struct NeuronLayer {
  std::string name;
  std::array<std::optional<double>, kNeuronEngines - 1> active_time_ns{};  // tensor .. sync
  std::array<std::optional<double>, kNeuronEngines - 1> instructions{};
  std::optional<double> mfu = std::nullopt;
  std::optional<double> hfu = std::nullopt;
  std::optional<double> model_flops = std::nullopt;     // tensor_engine_model_flop_count
  std::optional<double> hardware_flops = std::nullopt;  // tensor_engine_flop_count
};

// A row of the profile's `warnings` (category "Missing Data", ...).
struct NeuronWarning {
  std::string category;
  std::string message;
};

// On-chip memory of a NeuronCore whose occupancy `instruction_usage` samples: the state buffer
// (SBUF, type "sb", by partition 0, 32, 64, 96) and the partial-sum buffer (PSUM, type "psum",
// by bank 0 to 7).
enum class NeuronBuffer : std::uint8_t { Sbuf, Psum };
inline constexpr std::size_t kNeuronBufferParts = 8;

// One `instruction_usage` row: the buffer's occupancy from `time` on, as fractions 0-1.
struct NeuronBufferSample {
  TimeNs time = 0;  // timestamp, on the instruction rows' clock
  NeuronBuffer buffer = NeuronBuffer::Sbuf;
  std::optional<double> average;  // usage_avg
  // Sbuf: partition_<32 k>_usage at k (0-3); Psum: bank_<k>_usage at k. Empty where the row lacks it.
  std::array<std::optional<double>, kNeuronBufferParts> parts{};
};

// One `nc_mem_usage` row: the device memory allocated to one use on one core.
struct NeuronMemoryUse {
  std::int64_t device = 0;  // nd
  std::int64_t core = 0;    // nc
  std::string use;          // usage_type: "Weights", "DMA Rings IO", ..., "Total"
  std::uint64_t bytes = 0;  // amount_bytes
};

// What a Neuron device profile holds beyond the GPU model: one NeuronCore's summary metrics, its
// engines and DMA queues as lanes, instructions and DMA transfers. Empty for every other format.
struct NeuronDevice {
  bool present = false;       // the profile is a Neuron device profile
  bool full_profile = false;  // the full JSON (instruction and DMA rows); false: summary-json
  // summary[0]'s numeric metrics as written: seconds, fractions 0-1 for *_percent, bytes, counts.
  std::vector<std::pair<std::string, double>> summary;
  std::vector<NeuronLane> lanes;
  std::vector<StringId> dma_queues;
  std::vector<NeuronInstruction> instructions;
  std::vector<NeuronDma> dmas;
  std::vector<NeuronActiveSpan> active_spans;  // the active_time rows, as written
  std::vector<NeuronLayer> layers;
  std::vector<NeuronWarning> warnings;
  std::vector<NeuronBufferSample> buffer_samples;  // instruction_usage, in time order
  std::vector<NeuronMemoryUse> memory_uses;        // nc_mem_usage, as written

  // The summary metric `name`, or empty when the profile does not have it.
  std::optional<double> summary_value(std::string_view name) const;
};

inline constexpr OpDetails kNoDetails{};

// One worker's profile: one trace file (or one process of a multi-process capture).
// A PyTorch memory snapshot's devices (src/model/memory_snapshot.h): held by pointer so that
// the snapshot's own types change without recompiling everything that includes the profile.
struct MemorySnapshot;
// XLA's HLO and the XLA ops of an XSpace profile (src/model/xla_hlo.h), likewise.
struct XlaHlo;

struct Profile {
  std::string worker;
  std::string source_path;
  std::uint64_t source_bytes = 0;
  ProfileInfo info;
  StringPool strings;
  std::vector<ThreadInfo> threads;
  std::vector<HostEvent> host_events;  // after build_host_tree: sorted by (thread, start, -end)
  std::vector<OpDetails> op_details;   // HostEvent::details points here
  std::vector<RuntimeCall> runtime_calls;
  std::vector<GpuActivity> gpu_activities;
  std::vector<KernelLaunchInfo> kernel_info;
  std::vector<GpuRange> gpu_ranges;
  std::vector<GpuSync> gpu_syncs;  // by start time
  std::vector<ForwardBackwardLink> forward_backward_links;
  std::vector<MemorySample> memory_samples;
  std::vector<CollectiveArgs> collectives;
  std::vector<LaunchedKernel> launched_kernels;  // in record order; where the trace names them
  std::vector<DeviceInfo> devices;
  NeuronDevice neuron;
  // Null unless the input is a memory snapshot.
  std::shared_ptr<const MemorySnapshot> memory_snapshot;
  // Null unless the input is an XSpace profile whose kernels ran XLA ops.
  std::shared_ptr<const XlaHlo> xla_hlo;
  std::vector<Note> notes;  // what the reader noticed and the report should say

  std::string_view str(StringId id) const { return strings.view(id); }
  // The event's details, or an empty set (no ids, shapes or stack) when it recorded none.
  const OpDetails& details(const HostEvent& e) const {
    return e.details == kNone ? kNoDetails : op_details[e.details];
  }
  const OpDetails& details(std::size_t event) const { return details(host_events[event]); }
  const DeviceInfo* device(std::int32_t id) const;
};

// Sorts host events by thread and time and links each to its innermost enclosing event.
// A range that overlaps a sibling instead of nesting is attached to the nearest ancestor
// that contains it. Returns how many such ranges were found.
std::size_t build_host_tree(Profile& profile);

// The last host event on `thread` that started at or before `time` (kNone: none), after
// build_host_tree: the innermost event enclosing `time` is it or one of its ancestors.
std::uint32_t last_host_event_before(const Profile& profile, std::uint32_t thread, TimeNs time);

// last_host_event_before as a merge (issue 77): a cursor per thread moves forward over that thread's
// events, so queries in time order on each thread (runtime calls and memory samples come sorted by
// start) cost one pass over the events, not a search each; a query earlier than the thread's last
// searches back from the cursor. Memory: two integers per thread.
class HostEventCursor {
 public:
  explicit HostEventCursor(const Profile& profile);
  std::uint32_t last_before(std::uint32_t thread, TimeNs time);

 private:
  const std::vector<HostEvent>& events_;
  std::vector<std::uint32_t> first_;  // per thread: its first event; one entry more, the end
  std::vector<std::uint32_t> next_;   // per thread: its first event that starts after its last query
};

// Orders runtime calls, GPU activities, GPU ranges, GPU syncs and memory samples by start time, keeping the
// reader's order of ties: the order the analysis expects of every reader's output.
void sort_by_start(Profile& profile);

// The family of a trace of host and GPU work (every format but a Neuron profile), as its reader
// states it: GPU where it recorded a GPU activity, CPU-only where it recorded none.
inline DeviceFamily trace_family(const Profile& profile) {
  return profile.gpu_activities.empty() ? DeviceFamily::CpuOnly : DeviceFamily::Gpu;
}

}  // namespace perfgate
