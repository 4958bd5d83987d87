// Rows of the analysis tables (DLProf's and the TensorBoard plugin's views). Plain data with names
// resolved to text, so rules and renderers need no profile. Times are nanoseconds.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/profile.h"

namespace perfgate {

enum class Direction : std::uint8_t { Forward, Backward, Both };
const char* direction_name(Direction d);  // "fprop", "bprop", "both"

// One op (by name, or by name and input shapes), over the calls that started in the window.
// The row (ops, top GPU ops) and op name (kernels by op) of GPU work that no op launched.
inline constexpr std::string_view kNoOpName = "(no op)";

struct OpRow {
  std::string name;
  std::string input_shapes;  // empty in the by-name table
  std::string op_type;
  Direction direction = Direction::Forward;
  std::uint64_t calls = 0;
  TimeNs host_total = 0;    // wall time of the calls
  TimeNs host_self = 0;     // minus callee ops and the op's own runtime calls (the plugin's self time)
  TimeNs device_total = 0;  // kernels, memcpy and memset launched by the op and its callees
  TimeNs device_self = 0;   // launched by the op's own runtime calls
  TimeNs tc_device = 0;     // Tensor Core kernel time in device_total
  // GPU time of its calls that were bottom-most Tensor-Core-eligible ops and launched GPU work but no
  // Tensor Core kernel (what tensor_core.eligible_ops_not_using_tc counts, by name).
  TimeNs eligible_without_tc = 0;
  std::uint64_t kernel_calls = 0;  // kernels launched by the op itself
  bool tc_eligible = false;
  bool uses_tc = false;
  std::string data_types;  // distinct tensor types of the inputs, e.g. "c10::Half"
  std::string call_stack;  // of the first call: the trace's "Call stack", or its Python frames
  std::string user_frame;  // the innermost frame of that stack in user code (not a library frame)
  std::string module;      // nn.Module path of the first call, when recorded
  double flops = 0;        // counted FLOPs (bottom-most ops only)
  // A compiled (TorchInductor) kernel's range: the ATen ops its name lists, and what they make
  // (rules: fused_patterns); empty for other ops.
  std::string fused_ops;
  std::string fused_as;
};

struct OpTypeRow {
  std::string type;
  std::uint64_t ops = 0;  // distinct op names
  std::uint64_t calls = 0;
  TimeNs cpu_total = 0;
  TimeNs cpu_min = 0;
  TimeNs cpu_max = 0;
  TimeNs gpu = 0;
  TimeNs cpu_overhead = 0;  // host time of the calls not covered by their own GPU work
  TimeNs gpu_idle = 0;      // time during the calls with no GPU activity at all
};

struct KernelRow {
  std::string name;
  std::string short_name;
  std::string op;  // launching op, in the by-kernel-and-op table
  std::uint64_t calls = 0;
  TimeNs total = 0;
  TimeNs min = 0;
  TimeNs max = 0;
  bool uses_tc = false;
  std::array<std::int32_t, 3> grid{-1, -1, -1};  // of the longest call
  std::array<std::int32_t, 3> block{-1, -1, -1};
  std::int32_t registers_per_thread = -1;
  std::int32_t shared_memory = -1;
  bool launch_config_varies = false;
  std::optional<double> occupancy_pct;  // weighted by duration
  std::string fused_ops;                // a compiled (TorchInductor) kernel: as OpRow's
  std::string fused_as;
};

// The N most expensive kernels of a group (a step, or an op), and the rest.
struct TopKernelRow {
  std::string group;  // step or op name
  std::string kernel;
  std::uint64_t calls = 0;
  TimeNs total = 0;
};

struct IterationRow {
  std::string name;
  std::optional<std::int64_t> number;
  TimeNs start = 0;
  TimeNs duration = 0;
  std::uint64_t kernels = 0;
  std::uint64_t tc_kernels = 0;
  TimeNs gpu = 0;     // union of kernel intervals in the step
  TimeNs tc_gpu = 0;  // union of Tensor Core kernel intervals in the step
  std::array<TimeNs, 8> breakdown{};
};

struct RegionRow {
  std::string name;
  std::uint64_t calls = 0;
  TimeNs cpu_total = 0;
  TimeNs gpu = 0;           // device time of the work launched inside the ranges
  TimeNs gpu_range = 0;     // GPU-side ranges of the same name (gpu_user_annotation)
  TimeNs window_union = 0;  // the union of the ranges (any thread) within the window
};

struct ShapeFindingRow {
  std::string op;
  std::string input_shapes;
  std::string data_type;
  std::string dims;        // "M=100 N=64 K=30" or "C=3 K=64"
  std::string misaligned;  // the dimensions that are not multiples of 8
  std::uint64_t calls = 0;
  TimeNs device = 0;
};

// What the host threads that launch GPU work were doing while a GPU was idle, each instant
// counted once in this priority order (docs/metrics.md, "Idle time by cause").
enum class IdleCause : std::uint8_t { DataLoader, Sync, Launch, CpuOp, Unrecorded, ShortGap };
inline constexpr std::size_t kIdleCauses = 6;
const char* idle_cause_name(
    IdleCause cause);  // "dataloader", ..., "short_gaps": the metrics gpu.idle_<name>_pct

struct GapRow {
  std::int32_t device = 0;
  TimeNs start = 0;
  TimeNs duration = 0;
  std::array<TimeNs, kIdleCauses> by_cause{};  // ShortGap is 0: listed gaps are 500 us or more
  IdleCause main_cause = IdleCause::Unrecorded;
};

// One box of the representative step's timeline, relative to the step's start.
// Host lanes of the timeline: a box's device says which, its stream is the thread id.
inline constexpr std::int32_t kHostOpsDevice = -1;  // outermost ops and DataLoader ops
inline constexpr std::int32_t kRuntimeDevice = -2;  // runtime calls

struct TimelineBox {
  std::int32_t device = 0;   // a GPU, or kHostOpsDevice / kRuntimeDevice
  std::uint32_t stream = 0;  // a GPU stream, or a host thread id
  TimeNs start = 0;
  TimeNs duration = 0;
  std::string name;  // kernel short name, op or call name, or "N activities" for merged boxes
  std::string op;
  // GPU: kernel, tc_kernel, communication, memcpy, memset; host: cpu_op, dataloader, runtime, sync;
  // merged
  std::string kind;
};

struct Timeline {
  std::string step;
  TimeNs step_start = 0;
  TimeNs step_duration = 0;
  std::size_t activities = 0;  // before merging
  std::vector<TimelineBox> boxes;
};

// Allocations and frees of one op (by name) on one GPU in the window: the op that ran them
// itself (its innermost enclosing op on the allocating thread), as the plugin's self columns.
struct MemoryOpRow {
  std::int32_t device = 0;
  std::string op;
  std::uint64_t calls = 0;  // of the op in the window
  std::uint64_t allocations = 0;
  std::uint64_t allocated_bytes = 0;
  std::uint64_t frees = 0;
  std::uint64_t freed_bytes = 0;
};

// The collectives of the window by op (outermost communication ops: nccl:all_reduce,
// c10d::allreduce_), with their sizes where the trace records them.
struct CollectiveRow {
  std::string op;
  std::string collective;  // as record_param_comms names it ("allreduce"), where recorded
  std::uint64_t calls = 0;
  std::uint64_t sized_calls = 0;  // calls whose bytes the trace records
  std::uint64_t bytes = 0;        // of the sized calls
  TimeNs host = 0;                // wall time of the calls
  TimeNs device = 0;              // GPU time of the work they launched (their kernels)
  TimeNs sized_device = 0;        // of the sized calls: the bandwidth's denominator
};

// One op of the roofline table (roofline.cpp) by name, input dims and input types, over the calls
// started during the window's steps: its modelled cost and its kernel time against the GPU's
// ceilings. Totals over the calls, in integers so that rows add up in any order.
struct RooflineRow {
  std::string name;
  std::string input_dims;   // as the trace writes them, e.g. [[8944,1024],[1024,2816]]
  std::string input_types;  // as the trace writes them, e.g. ["c10::BFloat16","c10::BFloat16"]
  std::string family;       // the model (rules: op_models): gemm, conv, attention, binary, ...; "" unmodelled
  std::string precision;    // the peak the FLOPs compare with: "bf16", "tf32", ...; "" none
  std::uint64_t calls = 0;
  TimeNs kernel_ns = 0;      // GPU time of what the calls launched (with their callees)
  TimeNs kernel_min_ns = 0;  // of one call
  TimeNs kernel_max_ns = 0;
  std::uint64_t flop = 0;   // over the calls; MFU's own count where it counts the op
  std::uint64_t bytes = 0;  // over the calls
  bool bytes_known = false;
  bool counted_in_mfu = false;
  std::uint64_t compute_ps = 0;   // the FLOPs at the peak, picoseconds; 0 without one
  std::uint64_t memory_ps = 0;    // the bytes at the memory bandwidth, picoseconds; 0 without one
  std::uint64_t roofline_ps = 0;  // sum over calls of the larger of the two
  bool has_roofline = false;      // the GPU's peaks are known for it
  double peak_tflops = 0;         // the ceilings it was measured against (rules: gpu_peaks), 0: none
  double memory_gbps = 0;
  bool misaligned = false;  // a matrix op in half precision with a dimension not a multiple of 8
  RooflineRow& operator+=(const RooflineRow& from);  // the same key: totals add, min and max combine
};

// A GPU's allocator totals over the window, thinned to the highest of each short stretch.
struct MemoryPoint {
  std::int32_t device = 0;
  TimeNs time = 0;  // trace clock
  std::int64_t allocated = 0;
  std::int64_t reserved = -1;  // -1: not recorded
};

// ---- Neuron device profiles (docs/metrics.md, "Neuron tables") ----

// One HLO op: its instructions on each engine (NeuronEngine order) and the DMA transfers that name
// it. Times are sums of instruction durations.
struct NeuronOpRow {
  std::string name;
  std::array<TimeNs, kNeuronEngines> time{};
  std::array<std::uint64_t, kNeuronEngines> instructions{};
  // Its share of each engine's instruction time (the sum over every op's instructions on it).
  std::array<std::optional<double>, kNeuronEngines> share_pct{};
  TimeNs total = 0;           // semaphore waits aside
  TimeNs semaphore_wait = 0;  // its semaphore-wait instructions' durations, every engine
  std::uint64_t dma_transfers = 0;
  std::uint64_t dma_bytes = 0;
};

// One engine of the NeuronCore: the profiler's active time (its active_time rows), the
// instruction rows with the semaphore waits apart, and the summary's own active share.
struct NeuronEngineRow {
  std::string engine;              // "tensor", "vector", "scalar", "gpsimd", "sync", "other"
  std::string lanes;               // the Device Viewer rows it gathers: "Tensor, TensorMatrix"
  std::uint64_t instructions = 0;  // every row, waits included (the summary's instruction count)
  TimeNs instruction_time = 0;     // sum of durations, semaphore waits aside
  // The sum of its active_time rows' duration_ns; without such rows, the union of its
  // instructions' intervals, semaphore waits aside.
  TimeNs active = 0;
  std::optional<double> active_pct;  // active / total time
  std::uint64_t semaphore_waits = 0;
  TimeNs semaphore_wait_time = 0;            // sum of the waits' durations
  std::optional<double> semaphore_wait_pct;  // union of the waits' intervals / total time
  std::optional<double> summary_active_pct;  // the summary's <engine>_engine_active_time_percent x 100
};

// One DMA queue (dma_queue).
struct NeuronDmaQueueRow {
  std::string queue;
  std::uint64_t transfers = 0;
  std::uint64_t bytes = 0;
  TimeNs time = 0;                   // sum of durations
  TimeNs active = 0;                 // union of the transfers' intervals
  std::optional<double> active_pct;  // active / total time
  std::optional<double> gb_per_s;    // bytes / active
  bool collective = false;           // any transfer is a collective's (is_cc_dma)
};

// One source of throttling (throttle_<k>_...): the utilization limit it applied, while it applied.
struct NeuronThrottleRow {
  std::string source;                // <k>, e.g. "activity_0"
  std::string core;                  // "nc0"
  std::optional<double> limit_pct;   // throttle_<k>_avg_util_limit_<core>_percent x 100
  std::optional<double> active_pct;  // throttle_<k>_active_time_<core>_percent x 100
};

// One layer_summary row, in the report's units: microseconds and percentages.
struct NeuronLayerRow {
  std::string name;
  std::array<std::optional<double>, kNeuronEngines - 1> active_us{};
  std::array<std::optional<double>, kNeuronEngines - 1> instructions{};
  std::optional<double> mfu_pct;
  std::optional<double> hfu_pct;
  std::optional<double> model_flops;
  std::optional<double> hardware_flops;
};

// The profile's warnings, one row per category and message.
struct NeuronNoteRow {
  std::string category;
  std::string message;
  std::uint64_t count = 0;
  std::string remedy;         // the message's own advice ("Try capturing ..."), empty when it gives none
  bool missing_data = false;  // category Missing Data (any case)
};

struct NeuronTables {
  std::vector<NeuronOpRow> ops;  // most instruction time first
  std::vector<NeuronEngineRow> engines;
  std::vector<NeuronDmaQueueRow> dma_queues;  // most bytes first
  std::vector<NeuronLayerRow> layers;
  std::vector<NeuronNoteRow> notes;
  std::vector<NeuronThrottleRow> throttles;
  // The device timeline: a lane per engine row and DMA queue (device kNeuronEngineLane or
  // kNeuronDmaLane, stream: the lane's index), boxes named by their HLO op.
  std::vector<TimelineBox> timeline;
  std::vector<std::string> timeline_lanes;  // engine rows, then DMA queues
};
inline constexpr std::int32_t kNeuronEngineLane = -3;
inline constexpr std::int32_t kNeuronDmaLane = -4;

struct WorkerTables {
  std::vector<OpRow> ops;           // by name
  std::vector<OpRow> ops_by_shape;  // by name and input shapes
  std::vector<OpTypeRow> op_types;
  std::vector<OpRow> top_gpu_ops;  // the 10 ops with the most device self time
  std::vector<KernelRow> kernels;
  std::vector<KernelRow> kernels_by_op;
  std::vector<TopKernelRow> kernels_by_iteration;
  std::vector<TopKernelRow> kernels_by_op_top;
  std::vector<IterationRow> iterations;
  std::vector<RegionRow> regions;
  std::vector<ShapeFindingRow> tc_shape_findings;
  std::vector<GapRow> gpu_gaps;            // gaps over 500 µs, longest first
  std::vector<CollectiveRow> collectives;  // most device time first
  std::vector<MemoryOpRow> memory_ops;     // most bytes allocated first
  std::vector<MemoryPoint> memory_curve;
  std::vector<RooflineRow> roofline;  // most time to save first, then unmodelled rows by kernel time
  Timeline timeline;
  NeuronTables neuron;
};

// One name summed over every worker of a run: its ops by name (gpu: device self time, cpu: host
// self time), kernels by name (gpu: total, cpu: 0) or user regions (gpu: launched work, cpu: host).
struct RunRow {
  std::string name;
  std::uint64_t workers = 0;  // workers that have the name
  std::uint64_t calls = 0;
  TimeNs gpu = 0;
  TimeNs cpu = 0;
};

struct RunTables {
  std::vector<RunRow> ops;
  std::vector<RunRow> kernels;
  std::vector<RunRow> regions;
  std::vector<RooflineRow> roofline;  // every worker's roofline rows summed by key
};

}  // namespace perfgate
