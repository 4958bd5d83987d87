// Ops and kernels: the ops, op types, kernels and user regions of the window, and the host's runtime
// calls, launches and copies (ops_table.h, kernels_table.h, host_activity.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "common/table_codes.h"
#include "model/profile.h"

namespace perfgate {

enum class Direction : std::uint8_t { Forward, Backward, Both };
const char* direction_name(Direction d);  // "fprop", "bprop", "both"

// One op (by name, or by name and input shapes), over the calls that started in the window.
struct OpRow {
  std::string name;
  std::string input_shapes;  // empty in the by-name table
  std::string op_type;
  Direction direction = Direction::Forward;
  std::uint64_t calls = 0;
  TimeNs host_total = 0;    // wall time of the calls
  TimeNs host_self = 0;     // minus the ranges and runtime calls directly inside (the plugin's self time)
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

// The window's op calls, and of them those PyTorch's autograd engine ran (ops.backward_pct): the
// evidence whether the run trains. Not counted for profiles whose ops cannot say (XSpace: JAX and
// TensorFlow have no autograd engine), so that their share is n/a rather than 0.
struct OpCallSums {
  std::uint64_t calls = 0;
  std::uint64_t backward_calls = 0;
  std::uint64_t fused_attention_calls = 0;  // rules: fused_attention_ops (SDPA already used)
  std::uint64_t grad_scaler_calls = 0;      // rules: grad_scaler_ops (FP16 with loss scaling)
  OpCallSums& operator+=(const OpCallSums& from) {
    calls += from.calls;
    backward_calls += from.backward_calls;
    fused_attention_calls += from.fused_attention_calls;
    grad_scaler_calls += from.grad_scaler_calls;
    return *this;
  }
};

struct OpTypeRow {
  std::string type;
  std::uint64_t ops = 0;  // distinct op names
  std::uint64_t calls = 0;
  TimeNs cpu_total = 0;
  TimeNs cpu_min = 0;
  TimeNs cpu_max = 0;
  TimeNs gpu = 0;
  // DLProf's: host time of the calls less their CUDA API calls' (ops_table.cpp, idle_between)
  TimeNs cpu_overhead = 0;
  TimeNs gpu_idle = 0;  // per call, its first GPU activity's start to its last's end, less their busy time
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
  std::string tc_rule;    // the pattern that decided uses_tc ("simt: ..." for a SIMT entry), "" when none
  std::string precision;  // from the name (rules: kernel_precisions): "mxfp8 (MXFP8 x MXFP4)", "" unsaid
  std::array<std::int32_t, 3> grid{-1, -1, -1};  // of the longest call
  std::array<std::int32_t, 3> block{-1, -1, -1};
  std::int32_t registers_per_thread = -1;
  std::int32_t shared_memory = -1;
  bool launch_config_varies = false;
  std::optional<double> occupancy_pct;  // weighted by duration
  std::string fused_ops;                // a compiled (TorchInductor) kernel: as OpRow's
  std::string fused_as;
  // The `source:` of the entry that decided uses_tc (tc_rule's) in the rule files, "" when none.
  std::string tc_rule_source;
};

// The N most expensive kernels of a group (a step, or an op), and the rest.
struct TopKernelRow {
  std::string group;  // step or op name
  std::string kernel;
  std::uint64_t calls = 0;
  TimeNs total = 0;
};

// The rows of a table with a row per name that its analysis left out under the report's row limit
// (AnalysisOptions::table_rows): their number and totals, for the report's "(N more)" row.
// `total_us` is summed as the report sums its cells (report_model/table_limits.h: each row's
// microseconds, in the order the rows are set aside), so the row is the one a table of every row gives.
struct RowsSetAside {
  std::uint64_t rows = 0;
  std::uint64_t calls = 0;
  double total_us = 0;
  bool fused = false;  // one is a compiled kernel's with fused ops (the table's fused columns)
};

struct RegionRow {
  std::string name;
  std::uint64_t calls = 0;
  TimeNs cpu_total = 0;
  TimeNs gpu = 0;           // device time of the work launched inside the ranges
  TimeNs gpu_range = 0;     // GPU-side ranges of the same name (gpu_user_annotation)
  TimeNs window_union = 0;  // the union of the ranges (any thread) within the window
};

// Host-side costs and GPU activity counts over the window.
// A copy made by a blocking runtime call (rules: sync_calls): blocking_copy.h.
struct BlockingCopy {
  std::string call;
  TimeNs start = 0;      // after the window's host start
  TimeNs host_wait = 0;  // the call's duration
  std::uint64_t bytes = 0;
  CopyKind kind = CopyKind::Unknown;
  TimeNs gpu_idle = 0;  // of the call's span, with no activity on the copy's GPU
  std::uint64_t queued_activities = 0;
  std::uint32_t runtime = kNone;  // the call's index in Profile::runtime_calls
  TimeNs step_time = 0;           // its worker's window step time (HostActivitySums::step_time)
};

// One kind of one-off in the window (warmup.h): its union within the window's steps, how many,
// and the longest.
struct OneOff {
  TimeNs time = 0;
  std::uint64_t count = 0;
  std::string name;  // the longest one's
  TimeNs longest = 0;
  TimeNs start = 0;  // the longest one's, after the window's host start
  OneOff& operator+=(const OneOff& from);
};

// One-offs in the window (warmup.h): warm-up (set-up, JIT compilation), launch calls far longer
// than their name's median, teardown after the last GPU activity, the profiler's start and stop.
struct Warmup {
  TimeNs time = 0;  // the union of every kind within the window's steps
  // Warm-up itself: its union, the longest of it (what it is, with its name).
  TimeNs setup_time = 0;
  std::string name;
  TimeNs longest = 0;
  TimeNs start = 0;  // the longest one's, after the window's host start
  bool is_range = false;
  TimeNs setup_union = 0;  // warm-up and outliers, their union: the set-up phase
  OneOff outliers;
  OneOff teardown;
  OneOff profiler;
};

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
    // The copies on GPUs whose host link is known (rules: gpu_peaks host_link): their time, and
    // their bytes at the link's bandwidth in picoseconds (host-device copies only).
    TimeNs linked_time = 0;
    std::uint64_t link_ps = 0;
    Copies& operator+=(const Copies& from);
  };
  Copies h2d, d2h, d2d, all_copies;
  Copies pageable;  // from or to pageable host memory
  // The slowest host link of the GPUs that ran host-device copies, GB/s each way; none: unknown.
  std::optional<double> host_link_gbps;
  std::uint64_t sync_copies = 0;   // copies by a blocking call, host-to-device ones of 64 KiB or less aside
  std::uint64_t sync_memsets = 0;  // memsets by a blocking call
  // The longest blocking copy of the window (of a run: of its workers).
  std::optional<BlockingCopy> longest_blocking_copy;
  Warmup warmup;
  TimeNs one_off_runtime_time = 0;  // the part of runtime_time in one-offs (warmup), set aside
  // Counts and times add up (host_activity.cpp). Medians do not: median_launch_gap stays this
  // value's, and a run sets its own from its workers' (run_metrics.cpp).
  HostActivitySums& operator+=(const HostActivitySums& from);
};

}  // namespace perfgate
