// The GPUs: each one's use of the window, Tensor Cores, FLOPs and MFU, the roofline, idle time by
// cause and its gaps (gpu_utilization.h, architecture.h, tensor_cores.h, tc_shapes.h, flops.h,
// roofline.h, idle.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model/profile.h"

namespace perfgate {

struct GpuMetrics {
  std::int32_t device = 0;
  std::string name;
  int compute_major = -1;
  int compute_minor = -1;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t kernel_count = 0;  // kernels overlapping the window
  TimeNs kernel_ns = 0;            // union of kernel intervals in the window
  TimeNs busy_ns = 0;              // union of kernel, memcpy and memset intervals in the window
  // What the GPU's shares are over: the window; under a clock offset, its span in the window
  // (first activity to last), over which MFU, MBU and the breakdown are measured too (issue 53).
  TimeNs span_start = 0;
  TimeNs span_end = 0;
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
  TimeNs op_kernel_ns = 0;  // kernel time attributed to ops (self)
  // Kernel time no op owns (graph replays without their capture, kernels with no launching call):
  // whether they were eligible cannot be judged (tensor_core.judged_kernel_time_pct).
  TimeNs unowned_kernel_ns = 0;
  TimeNs unowned_tc_kernel_ns = 0;  // of which Tensor Core kernels: matrix work of unknown ops
  // Tensor Core kernel time by the precision its kernels' names state (rules: kernel_precisions;
  // "" where the name does not say).
  std::map<std::string, TimeNs> tc_kernel_ns_by_precision;
  // Of the Tensor Core kernel time, kernels whose names state an operand of 8 bits or fewer (FP8,
  // FP6, FP4, INT8, MX, NVFP4): precision already lowered (compute.narrow_weight_pct).
  TimeNs narrow_tc_kernel_ns = 0;
  // Of the kernel time, kernels a TensorRT engine runs (rules: tensorrt_kernels): the framework
  // whose terms the advice takes (gpu.tensorrt_kernel_pct).
  TimeNs tensorrt_kernel_ns = 0;
  // Kernel time whose units the profile states (a TPU op's hlo_category), and of that the time on
  // the matrix units (MXUs): matrix_unit.op_time_pct.
  TimeNs units_stated_ns = 0;
  TimeNs matrix_unit_ns = 0;
  double min_judged_pct = 0;            // rules: compute.tensor_core_min_judged_pct
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
  double ideal_seconds = 0;  // sum of flops / peak, over the ops whose peak is known
  // The same by the precision whose peak each op was measured against (flops.h, op_peak): the mix
  // MFU is taken against.
  std::map<std::string, double> ideal_seconds_by_precision;
  // Device time of the bottom-most ops that do matrix work (TC-eligible, launched a Tensor Core
  // kernel, or of a matrix op type: matmul, convolution, attention, mixture of experts), and of
  // those whose FLOPs are known: compute.flops_coverage_pct.
  TimeNs eligible_device = 0;
  TimeNs eligible_device_counted = 0;
  std::string largest_unmodelled;  // the name with the most of that time whose FLOPs are not known
  TimeNs largest_unmodelled_ns = 0;
  std::string peak_name;  // the matched gpu_peaks entry, empty when none
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
  std::uint64_t memory_ps = 0;  // the rows with a roofline: their bytes at the memory bandwidth (MBU)
  RooflineSums& operator+=(const RooflineSums& from);
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
// counted once in this priority order (docs/metrics.md, "Idle time by cause"). Queued comes first
// although it is listed last (its number is new): the GPU had work whose launch call had returned
// and which had not started (it waited for something other than the host). Nvtx, after CpuOp: in an
// Nsight Systems export's NVTX range (a JIT compilation, a user region), listed last for the same
// reason (issue 53).
// RuntimeOther, after Launch: a runtime call that launches nothing (allocation, event, stream
// calls), listed last for the same reason (issue 89: "launching" had counted every runtime call).
enum class IdleCause : std::uint8_t {
  DataLoader,
  Sync,
  Launch,
  CpuOp,
  Unrecorded,
  ShortGap,
  Queued,
  Nvtx,
  RuntimeOther
};
inline constexpr std::size_t kIdleCauses = 9;
const char* idle_cause_name(
    IdleCause cause);  // "dataloader", ..., "short_gaps": the metrics gpu.idle_<name>_pct

struct GapRow {
  std::int32_t device = 0;
  TimeNs start = 0;
  TimeNs duration = 0;
  std::array<TimeNs, kIdleCauses> by_cause{};  // ShortGap is 0: listed gaps are 500 us or more
  IdleCause main_cause = IdleCause::Unrecorded;
};

// Launch delays: a launched GPU activity's start minus its launch call's end (launch_delay.h).
struct LaunchDelays {
  std::uint64_t launched = 0;  // GPU activities with a launch call in the trace
  std::optional<TimeNs> min_ns;
  std::optional<TimeNs> median_ns;  // a run: its largest worker's
  // Where the least delay exceeds the bound: the least, over the blocking calls that waited for GPU
  // work (device-to-host copies, device synchronizes), of the call's return minus that work's end.
  // Clocks that agree make it 0 or more.
  std::optional<TimeNs> sync_skew_ns;
  std::uint64_t offset_workers = 0;  // workers whose least delay exceeds kClockOffsetMinDelayNs
  LaunchDelays& operator+=(const LaunchDelays& from);
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
  // The NVTX range (by name) in which the GPUs were idle longest, not counting the time of ranges
  // inside it, and the outermost range around it (itself where none); its idle time (idle_nvtx.h).
  std::string nvtx_range;
  std::string nvtx_outermost;
  TimeNs nvtx_range_idle = 0;
  LaunchDelays delays;
  // Times add up (saturating), the longest gap is the longest of both (idle.cpp).
  IdleSums& operator+=(const IdleSums& from);
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
  bool misaligned = false;     // a matrix op in half precision with a dimension not a multiple of 8
  bool host_transfer = false;  // most of its device time copies between host and device: no roofline
  // A host transfer's copies between host and device (issue 91, item 4): their bytes counted once
  // and their time, the calls' copies from pinned and from pageable host memory, and the host link
  // they cross (rules: gpu_peaks host_link; "" and 0 unknown), with the bytes at its bandwidth.
  std::uint64_t transfer_calls = 0;  // the calls whose device time was mostly such copies
  std::uint64_t copy_bytes = 0;
  TimeNs copy_ns = 0;
  std::uint64_t pinned_copies = 0;
  std::uint64_t pageable_copies = 0;
  std::string link;
  double link_gbps = 0;
  std::uint64_t link_ps = 0;
  bool link_withheld = false;  // link_pct above 100% (report invariant memcpy.link_at_most_peak)
  // Above its roofline (report invariant roofline.row_at_most_peak): its roofline figures are
  // withheld; set by check_roofline_rows (invariants.h) on every table, never summed.
  bool withheld = false;
  RooflineRow& operator+=(const RooflineRow& from);  // the same key: totals add, min and max combine
  // Its time at the roofline over its kernel time, and its copies' time at the host link over their
  // time, in % (the table's roofline_pct and host_link_share_pct, and what the invariants check).
  double roofline_pct() const {
    return static_cast<double>(roofline_ps) / 10.0 / static_cast<double>(kernel_ns);
  }
  double host_link_share_pct() const {
    return static_cast<double>(link_ps) / 10.0 / static_cast<double>(copy_ns);
  }
};

}  // namespace perfgate
