// The metric catalog. Adding a metric: one row here (its label as every output shows it), its computation in
// metric_values.cpp, and its row in docs/metrics.md (a test checks the documentation lists every name).
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "perfgate/metrics.h"

namespace perfgate {
namespace {

constexpr std::string_view kPlugin = "TensorBoard plugin";
constexpr std::string_view kDlprof = "DLProf";
constexpr std::string_view kPerfgate = "perfgate";
constexpr std::string_view kHta = "HTA";
constexpr std::string_view kNsys = "nsys analyze";
constexpr std::string_view kPyprof = "PyProf";
constexpr std::string_view kTraceLens = "TraceLens and XProf's roofline";
constexpr std::string_view kSagemaker = "SageMaker Debugger";
constexpr std::string_view kNcclTests = "nccl-tests";
constexpr std::string_view kNeuron = "Neuron Device Viewer";

constexpr MetricInfo kCatalog[] = {
    {"window.wall_us", "Window", "us",
     "Wall time of the window: end of its last step minus start of its first (without steps: the span of the "
     "CPU ops)",
     kDlprof},
    {"window.capture_span_us", "Capture span", "us",
     "First start to last end of any event the trace recorded (host ranges, runtime calls, GPU activities "
     "and ranges, synchronisations, memory samples), whatever the window; a run: its longest worker's",
     kPerfgate},
    {"window.gpu_span_us", "GPU span", "us",
     "First kernel, memcpy or memset start to last end, on any GPU, whatever the window; a run: its longest "
     "worker's",
     kPerfgate},
    {"window.steps_total", "Steps detected", "count",
     "Steps detected and kept (cut-off trailing steps are dropped and listed)", kPlugin},
    {"window.steps_in_window", "Steps in the window", "count",
     "Steps inside the aggregation window (--iter-start/--iter-stop/--skip-first)", kDlprof},
    {"window.steps_dropped", "Steps dropped", "count",
     "Trailing steps dropped because profiling stopped before their GPU work was captured", kPlugin},
    {"window.iter_start", "First window step", "count",
     "Number of the first step in the window (N of ProfilerStep#N)", kDlprof},
    {"window.iter_stop", "Last window step", "count", "Number of the last step in the window", kDlprof},

    {"steps.count", "Steps counted", "count", "Steps in the window whose durations the step statistics use",
     kPerfgate},
    {"steps.mean_us", "Mean step", "us", "Mean step duration", kPlugin},
    {"steps.median_us", "Median step", "us", "Median step duration", kPerfgate},
    {"steps.stddev_us", "Step standard deviation", "us",
     "Sample standard deviation of step durations (n - 1; needs two steps)", kPerfgate},
    {"steps.cv_pct", "Step variation (cv)", "%", "Coefficient of variation of step durations: stddev / mean",
     kPerfgate},
    {"steps.min_us", "Min step", "us", "Shortest step", kPerfgate},
    {"steps.max_us", "Max step", "us", "Longest step", kPerfgate},
    {"steps.p90_us", "p90 step", "us", "90th percentile of step durations (linear interpolation)", kPerfgate},
    {"steps.max_over_median", "Max step / median", "ratio", "Longest step divided by the median step",
     kPerfgate},
    {"steps.p99_us", "p99 step", "us", "99th percentile of step durations (linear interpolation)", kPerfgate},
    {"steps.outliers", "Outlier steps", "count",
     "Window steps further than 3 x 1.4826 x MAD from the median step (needs 3 steps)", kSagemaker},
    {"steps.first_over_median", "First step / median", "ratio",
     "First window step divided by the median step: warm-up left in the window (needs 2 steps)", kDlprof},
    {"steps.trend_pct", "Step time trend", "%",
     "Least-squares slope of step duration against step index, per step, as a share of the median (needs 3 "
     "steps)",
     kPerfgate},

    {"gpu.count", "GPUs", "count", "GPUs with any kernel, memcpy or memset in the profile", kPlugin},
    {"gpu.utilization_pct", "GPU utilization", "%",
     "Mean over GPUs of: union of kernel intervals (NCCL kernels included, memcpy/memset excluded) in the "
     "window / window wall time",
     kPlugin},
    {"gpu.median_utilization_pct", "Median GPU utilization", "%",
     "Median over GPUs of the utilization (kernel time / window wall time)", kPerfgate},
    {"gpu.max_utilization_pct", "Highest GPU utilization", "%",
     "Highest utilization of any GPU (kernel time / window wall time)", kPerfgate},
    {"gpu.min_utilization_pct", "Lowest GPU utilization", "%",
     "Lowest utilization of any GPU (the plugin's per-GPU rule)", kPlugin},
    {"gpu.min_chunk_busy_pct", "Lowest GPU busy in a chunk", "%",
     "Lowest busy share (kernel, memcpy, memset) of any GPU in any of 30 equal chunks of the window", kNsys},
    {"gpu.compute_capability", "Compute capability", "version",
     "Lowest compute capability of the GPUs, as major + minor / 10 (7.0 for V100, 8.0 for A100; AMD GPUs "
     "report their gfx major)",
     kPlugin},
    {"gpu.busy_pct", "GPU busy", "%",
     "Mean over GPUs of: union of kernel, memcpy and memset intervals in the window / window wall time",
     kPerfgate},
    {"gpu.idle_pct", "GPU idle", "%", "Mean over GPUs of: 100 - busy", kPerfgate},
    {"gpu.capture_busy_us", "GPU busy in the capture", "us",
     "Mean over GPUs of: union of kernel, memcpy and memset intervals over the whole capture, whatever the "
     "window",
     kPerfgate},
    {"gpu.busy_of_capture_pct", "GPU busy of the capture span", "%",
     "Mean over GPUs of: busy time in the capture / window.capture_span_us", kPerfgate},
    {"gpu.busy_of_gpu_span_pct", "GPU busy of the GPU span", "%",
     "Mean over GPUs of: busy time in the capture / window.gpu_span_us (TraceLens's gpu_timeline busy_time "
     "/ total_time)",
     kPerfgate},
    {"gpu.sm_efficiency_pct", "SM efficiency", "%",
     "Mean over GPUs of the estimated SM efficiency: time integral of min(sum of running kernels' blocks per "
     "SM, 1) / window wall time",
     kPlugin},
    {"gpu.achieved_occupancy_pct", "Achieved occupancy", "%",
     "Mean over GPUs of kernels' estimated achieved occupancy, weighted by kernel time in the window",
     kPlugin},
    {"gpu.idle_host_wait_pct", "GPU waiting on host", "%",
     "Share of the gaps between a stream's activities where the next one's launch call started after the "
     "previous one ended (the host was late)",
     kHta},
    {"gpu.idle_kernel_wait_pct", "Launch-overhead gaps", "%",
     "Share of those gaps shorter than 30 us otherwise (back-to-back launch overhead)", kHta},
    {"gpu.idle_other_pct", "Other gaps", "%", "Share of the remaining gaps", kHta},
    {"gpu.idle_dataloader_pct", "Idle time in the data loader", "%",
     "Share of the GPUs' idle time (gaps between activities in the window) during which the launching host "
     "threads ran a DataLoader op (rules: dataloader_ops)",
     kPerfgate},
    {"gpu.idle_sync_pct", "Idle time in synchronising calls", "%",
     "Share of the idle time in a synchronising runtime call (rules: sync_calls), not in the above",
     kPerfgate},
    {"gpu.idle_launch_pct", "Idle time in launch calls", "%",
     "Share of the idle time in other runtime calls (launches), not in the above", kPerfgate},
    {"gpu.idle_cpu_op_pct", "Idle time in CPU ops", "%",
     "Share of the idle time in other ops or Python functions, not in the above", kPerfgate},
    {"gpu.idle_unrecorded_pct", "Idle time with nothing recorded", "%",
     "Share of the idle time with nothing recorded on the launching threads", kPerfgate},
    {"gpu.idle_short_gaps_pct", "Idle time in short gaps", "%",
     "Share of the idle time in gaps under 30 us (back-to-back launch overhead)", kPerfgate},
    {"gpu.longest_gap_us", "Longest GPU gap", "us",
     "Longest gap between a GPU's activities inside the window", kNsys},
    {"gpu.gaps_over_500us", "GPU gaps over 500 us", "count",
     "Gaps of 500 us or more between a GPU's activities inside the window", kNsys},

    {"breakdown.kernel_us", "Kernel time", "us",
     "Mean per step of time with a compute kernel running (exclusive split, priority kernel > memcpy > "
     "memset > communication > runtime > dataloader > CPU exec)",
     kPlugin},
    {"breakdown.memcpy_us", "Memcpy time", "us", "Mean per step of time with a memcpy running and no kernel",
     kPlugin},
    {"breakdown.memset_us", "Memset time", "us",
     "Mean per step of time with a memset running and no kernel or memcpy", kPlugin},
    {"breakdown.communication_us", "Communication time", "us",
     "Mean per step of time in communication kernels or ops (NCCL, gloo) and no higher-priority activity",
     kPlugin},
    {"breakdown.runtime_us", "Runtime call time", "us",
     "Mean per step of time in CUDA/HIP runtime or driver calls and no GPU activity", kPlugin},
    {"breakdown.dataloader_us", "Data loader time", "us",
     "Mean per step of time in DataLoader/DataPipe __next__ and nothing above", kPlugin},
    {"breakdown.cpu_exec_us", "CPU exec time", "us",
     "Mean per step of time in other CPU ops and nothing above", kPlugin},
    {"breakdown.other_us", "Other time", "us", "Mean per step of time with none of the above recorded",
     kPlugin},
    {"breakdown.kernel_pct", "Kernel", "%", "breakdown.kernel_us as a share of the mean step", kPlugin},
    {"breakdown.memcpy_pct", "Memcpy", "%", "breakdown.memcpy_us as a share of the mean step", kPlugin},
    {"breakdown.memset_pct", "Memset", "%", "breakdown.memset_us as a share of the mean step", kPlugin},
    {"breakdown.communication_pct", "Communication", "%",
     "breakdown.communication_us as a share of the mean step", kPlugin},
    {"breakdown.runtime_pct", "Runtime", "%", "breakdown.runtime_us as a share of the mean step", kPlugin},
    {"breakdown.dataloader_pct", "Data loader", "%", "breakdown.dataloader_us as a share of the mean step",
     kPlugin},
    {"breakdown.cpu_exec_pct", "CPU exec", "%", "breakdown.cpu_exec_us as a share of the mean step", kPlugin},
    {"breakdown.other_pct", "Other", "%", "breakdown.other_us as a share of the mean step", kPlugin},

    {"tensor_core.kernel_time_pct", "Tensor Core share of kernel time", "%",
     "Tensor Core kernel time / all kernel time, in the window (tb-plugin: of kernels whose launching call "
     "is "
     "read)",
     kPlugin},
    {"tensor_core.eligible_kernel_time_pct", "Eligible-op share of kernel time", "%",
     "Self kernel time of bottom-most TC-eligible ops / self kernel time of all ops, in the window", kPlugin},
    {"tensor_core.efficiency_pct", "Tensor Core efficiency", "%",
     "Tensor Core kernel time inside bottom-most TC-eligible ops / all kernel time inside them, in the "
     "window",
     kDlprof},
    {"tensor_core.non_tc_layout_pct", "Non-TC time in layout conversion", "%",
     "Share of the kernel time inside bottom-most TC-eligible ops not on Tensor Cores that is layout "
     "conversion (rules: layout_conversion_kernels; NCHW/NHWC transposes around convolutions)",
     kPerfgate},
    {"tensor_core.non_tc_fp32_pct", "Non-TC time in FP32 ops", "%",
     "Share of that non-Tensor-Core time in other kernels of ops whose first tensor input is FP32 or FP64",
     kPerfgate},
    {"tensor_core.non_tc_half_precision_pct", "Non-TC time in half-precision ops", "%",
     "Share of that non-Tensor-Core time in other kernels of ops whose first tensor input is FP16, BF16, FP8 "
     "or INT8",
     kPerfgate},
    {"tensor_core.non_tc_unknown_precision_pct", "Non-TC time in ops of unknown type", "%",
     "Share of that non-Tensor-Core time in other kernels of ops with no recorded input type "
     "(record_shapes=False)",
     kPerfgate},
    {"tensor_core.no_tc_ops_fp32_pct", "No-TC op time in FP32", "%",
     "Share of the kernel time of bottom-most TC-eligible ops that ran no Tensor Core kernel, in ops whose "
     "first tensor input is FP32 or FP64",
     kPerfgate},
    {"tensor_core.no_tc_ops_half_precision_pct", "No-TC op time in half precision", "%",
     "Share of that time in ops whose first tensor input is FP16, BF16, FP8 or INT8", kPerfgate},
    {"tensor_core.no_tc_ops_unknown_precision_pct", "No-TC op time of unknown type", "%",
     "Share of that time in ops with no recorded input type (record_shapes=False)", kPerfgate},
    {"tensor_core.eligible_ops_not_using_tc", "Eligible ops without Tensor Cores", "count",
     "Distinct bottom-most TC-eligible ops that launched GPU work in the window but no Tensor Core kernel",
     kDlprof},
    {"tensor_core.misaligned_shapes", "Misaligned shapes", "count",
     "FP16/BF16 eligible ops not using Tensor Cores (by name and input shapes) whose GEMM M, N, K or "
     "convolution C, K are not multiples of 8",
     kPyprof},

    {"kernels.count", "Kernels", "count", "Kernels that started in the window", kDlprof},
    {"kernels.total_us", "Total kernel time", "us", "Sum of the durations of the window's kernels", kDlprof},
    {"kernels.mean_us", "Mean kernel", "us", "Mean duration of the window's kernels", kDlprof},
    {"kernels.short_pct", "Short kernels", "%",
     "Share of the window's kernels shorter than 10 us (a sign of launch-bound work)", kPerfgate},
    {"kernels.launch_gap_us", "Launch gap", "us",
     "Median gap before a kernel on its stream when its launch call was still running as the previous kernel "
     "finished (the GPU waited for the host)",
     kHta},
    {"kernels.without_launch", "Kernels without launch", "count",
     "Kernels in the window with no runtime call of their correlation id in the trace, nor a graph launch "
     "whose GPU span holds them",
     kPerfgate},
    {"kernels.graph_replay_pct", "Kernel time in graph replays", "%",
     "Kernel time in the window that CUDA/HIP graph launches ran (rules: graph_launch_calls) / all kernel "
     "time",
     kPerfgate},
    {"kernels.compiled_pct", "Kernel time in compiled (Triton) kernels", "%",
     "Kernel time in the window of TorchInductor's generated kernels, by name (rules: compiled_kernels; the "
     "kernels of the compiled (Triton) op type's ranges) / all kernel time",
     kPerfgate},
    {"kernels.graph_capture_coverage_pct", "Graph kernels placed on a capture", "%",
     "Kernel time of graph replays placed on a launch of a graph-capture trace (its op, shapes and modules) "
     "/ "
     "all kernel time of graph replays; n/a without a graph-capture trace",
     kPerfgate},
    {"host.graph_launches", "Graph launches", "count",
     "Runtime calls in the window that replay a captured CUDA/HIP graph (rules: graph_launch_calls)",
     kPerfgate},

    {"host.runtime_pct", "Runtime calls", "%",
     "Union of CUDA/HIP runtime and driver calls within the window's steps / their duration (not exclusive, "
     "unlike the breakdown)",
     kHta},
    {"host.sync_calls", "Synchronising calls", "count",
     "Runtime calls in the window that block the host until the GPU is done (device/stream/event "
     "synchronize, memcpy and memset without Async; the rules' sync_calls)",
     kNsys},
    {"host.sync_us", "Synchronising time", "us", "Total duration of those calls", kNsys},
    {"host.sync_pct", "Synchronising share", "%", "host.sync_us as a share of the window's step time", kNsys},
    {"host.sync_idle_pct", "GPUs idle in synchronising calls", "%",
     "Share of the window the GPUs sat idle while a launching host thread was in a synchronising call: "
     "gpu.idle_pct x gpu.idle_sync_pct / 100. What the calls cost: a call that waits on a busy GPU "
     "costs nothing",
     kPerfgate},

    {"memcpy.count", "Copies", "count", "Memory copies that started in the window", kDlprof},
    {"memcpy.bytes", "Bytes copied", "bytes", "Bytes those copies moved", kDlprof},
    {"memcpy.h2d_count", "H2D copies", "count", "Host-to-device copies in the window", kDlprof},
    {"memcpy.h2d_bytes", "H2D bytes", "bytes", "Bytes copied host to device", kDlprof},
    {"memcpy.h2d_gbps", "H2D bandwidth", "GB/s", "Achieved host-to-device bandwidth: bytes / copy time",
     kDlprof},
    {"memcpy.d2h_count", "D2H copies", "count", "Device-to-host copies in the window", kDlprof},
    {"memcpy.d2h_bytes", "D2H bytes", "bytes", "Bytes copied device to host", kDlprof},
    {"memcpy.d2h_gbps", "D2H bandwidth", "GB/s", "Achieved device-to-host bandwidth: bytes / copy time",
     kDlprof},
    {"memcpy.d2d_count", "D2D copies", "count", "Device-to-device copies in the window", kDlprof},
    {"memcpy.d2d_bytes", "D2D bytes", "bytes", "Bytes copied device to device", kDlprof},
    {"memcpy.d2d_gbps", "D2D bandwidth", "GB/s", "Achieved device-to-device bandwidth: bytes / copy time",
     kDlprof},
    {"memcpy.pageable_count", "Pageable copies", "count",
     "Copies in the window from or to pageable host memory (they cannot overlap with compute)", kNsys},
    {"memcpy.sync_count", "Synchronous copies", "count",
     "Copies in the window issued by a blocking call (memcpy without Async), host-to-device copies of 64 "
     "KiB or less aside",
     kNsys},
    {"memset.sync_count", "Synchronous memsets", "count",
     "Memsets in the window issued by a blocking call (memset without Async)", kNsys},

    {"communication.pct", "Communication kernels", "%",
     "Union of communication kernels (NCCL, RCCL) in the window / window wall time", kPlugin},
    {"communication.overlap_pct", "Communication overlap", "%",
     "Communication kernel time during which compute kernels also ran / communication kernel time", kHta},
    {"communication.collectives", "Collectives", "count",
     "Collectives called during the window's steps: outermost communication ops", kPerfgate},
    {"communication.bytes", "Collective bytes", "bytes",
     "Bytes of those collectives' inputs, where the trace records sizes", kPerfgate},
    {"critical_path.length_us", "Critical path", "us",
     "Mean over the window's steps of the step's critical path: the longest chain of host ops, runtime "
     "calls, "
     "launch delays, kernels and synchronisations through the step's host range, HTA's definition "
     "(docs/metrics.md, \"Critical path\"); a run: the rank whose mean is longest",
     kHta},
    {"critical_path.cpu_bound_pct", "Path bound by the CPU", "%",
     "Share of the critical path (summed over the window's steps) in host ops and runtime calls outside "
     "DataLoader ops (HTA's cpu_bound)",
     kHta},
    {"critical_path.data_loading_pct", "Path in data loading", "%",
     "Share of the critical path in host ops under a DataLoader op (rules: dataloader_ops)", kHta},
    {"critical_path.gpu_kernel_launch_overhead_pct", "Path in launch delays", "%",
     "Share of the critical path from a launch call's start to the start of the kernel it launched on an "
     "idle stream (HTA's gpu_kernel_launch_overhead)",
     kHta},
    {"critical_path.gpu_kernel_kernel_overhead_pct", "Path in kernel gaps", "%",
     "Share of the critical path between two activities of a stream (HTA's gpu_kernel_kernel_overhead)",
     kHta},
    {"critical_path.gpu_compute_bound_pct", "Path bound by GPU compute", "%",
     "Share of the critical path in kernels other than communication kernels, memcpy and memset (HTA's "
     "gpu_compute_bound)",
     kHta},
    {"critical_path.gpu_communication_bound_pct", "Path bound by communication", "%",
     "Share of the critical path in communication kernels (HTA's gpu_communication_bound)", kHta},
    {"critical_path.job_length_us", "Job critical path", "us",
     "Mean over the steps with collectives matched across ranks of the job's path through them: the late "
     "rank's work before each collective's last arrival, each collective's transfer, the last-ending rank's "
     "work after the last one (docs/metrics.md, \"Job critical path\"; 2 ranks or more)",
     kPerfgate},
    {"critical_path.job_communication_pct", "Job path in transfers", "%",
     "Share of the job critical path in the collectives' transfers (each one's shortest timed duration)",
     kPerfgate},
    {"critical_path.job_bounding_rank", "Rank bounding the job", "count",
     "The rank whose work decides most of the job critical path, summed over its steps (the first worker on "
     "a "
     "tie)",
     kPerfgate},
    {"critical_path.job_bounding_rank_pct", "Job path that rank decides", "%",
     "Share of the job critical path that rank's work decides", kPerfgate},
    {"critical_path.uncovered_step_pct", "Step off the critical path", "%",
     "(The steps' host spans - the critical paths' lengths, at least 0) / the steps' host spans, summed over "
     "the window's steps: the time no path explains (idle host gaps between top-level ops; GPU work no "
     "synchronisation joins to the host)",
     kPerfgate},
    {"critical_path.cpu_bound_step_pct", "Step on the path in the CPU", "%",
     "Time of the critical path in host ops and runtime calls outside DataLoader ops / the steps' host "
     "spans (summed over the window's steps): what a faster host could win at most",
     kPerfgate},
    {"critical_path.data_loading_step_pct", "Step on the path in data loading", "%",
     "Time of the critical path in host ops under a DataLoader op / the steps' host spans", kPerfgate},
    {"critical_path.gpu_kernel_launch_overhead_step_pct", "Step on the path in launch delays", "%",
     "Time of the critical path in launch delays / the steps' host spans", kPerfgate},
    {"critical_path.gpu_kernel_kernel_overhead_step_pct", "Step on the path in kernel gaps", "%",
     "Time of the critical path in kernel gaps / the steps' host spans", kPerfgate},
    {"critical_path.gpu_compute_bound_step_pct", "Step on the path in GPU compute", "%",
     "Time of the critical path in kernels other than communication kernels, memcpy and memset / the "
     "steps' host spans: what faster kernels could win at most",
     kPerfgate},
    {"critical_path.gpu_communication_bound_step_pct", "Step on the path in communication", "%",
     "Time of the critical path in communication kernels / the steps' host spans: what faster or hidden "
     "communication could win at most",
     kPerfgate},
    {"collectives.ranks_timed", "Ranks per collective", "count",
     "The most ranks any collective of the window was timed on, matched by process group, step and order of "
     "issue (1: one rank's trace, where waiting cannot be told from transfer)",
     kPerfgate},
    {"collectives.matched", "Matched collectives", "count",
     "Collectives timed on 2 ranks or more (matched by process group, step and order of issue)", kPerfgate},
    {"collectives.wait_pct", "Collective waiting", "%",
     "Synchronizing share of the ranks' collective time: sum over ranks and collectives of (duration - the "
     "shortest duration of the collective on any rank) / sum of durations (needs 2 ranks)",
     kPlugin},
    {"collectives.bus_bandwidth_gbps", "Collective bus bandwidth", "GB/s",
     "Bus bandwidth of the matched collectives: sum of size x the collective's factor (2(n-1)/n all-reduce, "
     "(n-1)/n all-gather, reduce-scatter, all-to-all, 1 broadcast, reduce) / sum of their shortest durations "
     "(needs 2 ranks)",
     kNcclTests},
    {"collectives.bus_bandwidth_lower_bound_gbps", "Collective bus bandwidth, lower bound", "GB/s",
     "Where no collective is matched across ranks (one rank's trace): sum of size x the collective's factor "
     "for the group size / sum of the rank's own durations, which include waiting for the other ranks, so "
     "the transfer is at least this fast",
     kNcclTests},
    {"collectives.all_reduce_transfer_pct", "All-reduce share of transfer", "%",
     "All-reduce's share of the matched collectives' transfer time (shortest durations) (needs 2 ranks)",
     kPerfgate},
    {"collectives.straggler_rank", "Straggler rank", "count",
     "The rank that started last in the most matched collectives (the first worker on a tie; needs 2 ranks); "
     "HTA finds stragglers by the late start of communication kernels too",
     kHta},
    {"collectives.straggler_last_pct", "Straggler last arrivals", "%",
     "Share of the matched collectives in which the straggler rank started last", kPerfgate},
    {"collectives.straggler_delay_us", "Straggler delay", "us",
     "Mean, over the collectives in which the straggler started last, of its start - the next-to-last "
     "rank's start",
     kPerfgate},

    {"memory.peak_allocated_bytes", "Peak GPU memory", "bytes",
     "Highest allocator total on any GPU during the profile ([memory] events of profile_memory=True); "
     "a trace without totals (PyTorch before 1.10) counts them from the capture's start, a lower bound",
     kPlugin},
    {"memory.peak_pct", "Peak share of GPU memory", "%", "That peak as a share of the GPU's memory", kPlugin},
    {"memory.totals_recorded", "Allocator totals recorded", "count",
     "1 when the trace records the allocator's totals (PyTorch 1.10 and later); 0 when perfgate counts "
     "them from the capture's start, so that the peak is a lower bound",
     kPerfgate},
    {"memory.peak_reserved_bytes", "Peak reserved GPU memory", "bytes",
     "Highest total the caching allocator held on any GPU during the profile (allocated plus cached), "
     "where the trace records it",
     kPlugin},

    {"compute.flops", "FLOPs", "flop",
     "FLOPs of the window's ops: the trace's own count (with_flops) or 2 x M x N x K for GEMMs, the "
     "convolution and attention formulas from shapes; bottom-most ops only",
     kPyprof},
    {"compute.tflops_achieved", "Achieved", "TFLOP/s", "compute.flops / window wall time", kPerfgate},
    {"compute.mfu_pct", "MFU", "%",
     "Model FLOPs utilization: the time the counted FLOPs take at the GPU's peak for each op's input type "
     "(TF32 for float32 TC-eligible ops where the GPU has it), whatever kernels ran / (window wall time x "
     "GPUs)",
     kPerfgate},
    {"compute.flops_coverage_pct", "FLOP coverage", "%",
     "Device time of bottom-most TC-eligible ops whose FLOPs are known / device time of all of them",
     kPerfgate},
    {"compute.peak_known_pct", "FLOPs with a known peak", "%",
     "Share of the counted FLOPs that ran on GPUs whose peak is known (rules: gpu_peaks); MFU counts only "
     "those, and has no value when this is 0",
     kPerfgate},

    {"roofline.pct", "Roofline", "%",
     "Time the modelled ops' work takes at the GPU's ceilings (the larger of FLOPs / peak and bytes / "
     "memory bandwidth, per call; rules: gpu_peaks) / their kernel time, over the ops with both ceilings "
     "known",
     kTraceLens},
    {"roofline.saving_pct", "Time to gain at the roofline target", "%",
     "GPU time the modelled ops would save if each ran at the target share of its roofline (rules: "
     "compute.roofline_target_pct) / (window wall time x GPUs)",
     kPerfgate},
    {"roofline.step_saving_pct", "Step time to gain at the roofline target", "%",
     "roofline.saving_pct less the GPUs' idle time waiting on the host (gpu.idle_pct x "
     "gpu.idle_host_wait_pct / 100), which kernels that end sooner would only lengthen; at least 0",
     kPerfgate},
    {"roofline.coverage_pct", "Roofline coverage", "%",
     "Kernel time of the ops the performance model covers (rules: op_models) / kernel time of every op "
     "in the roofline table, modelled or not",
     kPerfgate},
    {"roofline.matrix_coverage_pct", "GEMM, convolution and attention coverage", "%",
     "Kernel time the model covers of the ops whose class (rules: op_types) is matmul, convolution or "
     "attention / their kernel time",
     kPerfgate},

    {"distributed.data_parallel_calls", "DataParallel calls", "count",
     "Calls in the window of torch.nn.DataParallel's forward (rules: data_parallel_ops)", kPlugin},
    {"distributed.ddp_calls", "DDP calls", "count",
     "Calls in the window of DistributedDataParallel's forward (rules: distributed_data_parallel_ops)",
     kPlugin},
    {"distributed.nccl_calls", "NCCL calls", "count", "NCCL collective ops in the window (rules: nccl_ops)",
     kPlugin},

    {"ranks.count", "Workers", "count", "Workers (ranks) in the run", kPerfgate},
    {"ranks.present", "Ranks present", "count",
     "Distinct ranks among the run's workers (distributedInfo rank, else worker index)", kPerfgate},
    {"ranks.world_size", "World size", "count",
     "World size the traces state (distributedInfo; the largest where workers differ): with ranks.present, "
     "how many of the job's ranks the run holds",
     kPerfgate},
    {"ranks.expected", "Ranks expected", "count",
     "Ranks the job is expected to have: the world size the traces state, else (Neuron profiles state none) "
     "ranks 0 to the highest present; with ranks.present, how many are missing (docs/formats.md, Ranks)",
     kPerfgate},
    {"ranks.step_spread_pct", "Rank step spread", "%",
     "(slowest - fastest) / median of the workers' mean step times (needs 2 workers)", kSagemaker},
    {"ranks.slowest", "Slowest rank", "count",
     "Rank (distributedInfo, else worker index) with the highest mean step time, the first worker on a tie "
     "(needs 2 workers)",
     kSagemaker},
    {"ranks.fastest", "Fastest rank", "count",
     "Rank with the lowest mean step time, the first worker on a tie (needs 2 workers)", kSagemaker},

    {"resources.tc_kernels_us", "Tensor Core kernel time", "us",
     "Window time with a Tensor Core kernel running (exclusive split, summed over steps)", kDlprof},
    {"resources.non_tc_kernels_us", "Other kernel time", "us",
     "Window time with another kernel running and no Tensor Core kernel", kDlprof},
    {"resources.memory_us", "Memory operation time", "us",
     "Window time with a memcpy or memset running and no kernel", kDlprof},
    {"resources.cpu_us", "CPU-only time", "us",
     "Window time with host activity (ops, annotations, runtime calls) and no GPU activity", kDlprof},
    {"resources.other_us", "Unrecorded time", "us", "Window time with nothing recorded", kDlprof},
    {"resources.tc_kernels_pct", "Tensor Core kernels", "%",
     "resources.tc_kernels_us as a share of the window's step time", kDlprof},
    {"resources.non_tc_kernels_pct", "Other kernels", "%",
     "resources.non_tc_kernels_us as a share of the window's step time", kDlprof},
    {"resources.memory_pct", "Memory operations", "%",
     "resources.memory_us as a share of the window's step time", kDlprof},
    {"resources.cpu_pct", "CPU only", "%", "resources.cpu_us as a share of the window's step time", kDlprof},
    {"resources.other_pct", "Nothing recorded", "%",
     "resources.other_us as a share of the window's step time", kDlprof},

    // ---- AWS Neuron device profiles (neuron-profile view --output-format json / summary-json) ----
    {"neuron.total_time_us", "Neuron total time", "us",
     "The summary's total_time (seconds, idle included) in us; without a summary, the span of the "
     "instruction "
     "and DMA rows. A run: its slowest profile",
     kNeuron},
    {"neuron.active_time_pct", "NeuronCore active", "%",
     "total_active_time_percent x 100 (the summary's fraction 0-1); without it, the union of the "
     "instructions (semaphore waits aside) / total time. A run: the mean of its profiles (so every share "
     "below)",
     kNeuron},
    {"neuron.tensor.active_pct", "Tensor engine active", "%",
     "tensor_engine_active_time_percent x 100; without it, the sum of the Tensor engine's active_time rows "
     "(else "
     "the union of its instructions, semaphore waits aside) / total time",
     kNeuron},
    {"neuron.vector.active_pct", "Vector engine active", "%",
     "vector_engine_active_time_percent x 100; without it, the sum of the Vector engine's active_time rows "
     "(else "
     "the union of its instructions, semaphore waits aside) / total time",
     kNeuron},
    {"neuron.scalar.active_pct", "Scalar engine active", "%",
     "scalar_engine_active_time_percent x 100; without it, the sum of the Scalar engine's active_time rows "
     "(else "
     "the union of its instructions, semaphore waits aside) / total time",
     kNeuron},
    {"neuron.gpsimd.active_pct", "GpSimd engine active", "%",
     "gpsimd_engine_active_time_percent x 100; without it, the sum of the GpSimd engine's active_time rows "
     "(else "
     "the union of its instructions, semaphore waits aside) / total time",
     kNeuron},
    {"neuron.sync.active_pct", "Sync engine active", "%",
     "sync_engine_active_time_percent x 100; without it, the sum of the Sync engine's active_time rows (else "
     "the union of its instructions, semaphore waits aside) / total time",
     kNeuron},
    {"neuron.tensor.instructions", "Tensor engine instructions", "count",
     "Instruction rows on the Tensor engine's rows of the timeline; summary-json: "
     "tensor_engine_instruction_count. A run: "
     "the sum",
     kNeuron},
    {"neuron.vector.instructions", "Vector engine instructions", "count",
     "Instruction rows on the Vector engine's rows of the timeline; summary-json: "
     "vector_engine_instruction_count. A run: "
     "the sum",
     kNeuron},
    {"neuron.scalar.instructions", "Scalar engine instructions", "count",
     "Instruction rows on the Scalar engine's rows of the timeline; summary-json: "
     "scalar_engine_instruction_count. A run: "
     "the sum",
     kNeuron},
    {"neuron.gpsimd.instructions", "GpSimd engine instructions", "count",
     "Instruction rows on the GpSimd engine's rows of the timeline; summary-json: "
     "gpsimd_engine_instruction_count. A run: "
     "the sum",
     kNeuron},
    {"neuron.sync.instructions", "Sync engine instructions", "count",
     "Instruction rows on the Sync engine's rows of the timeline; summary-json: "
     "sync_engine_instruction_count. A run: "
     "the sum",
     kNeuron},
    {"neuron.mfu_pct", "Neuron MFU", "%",
     "mfu_estimated_percent x 100: model FLOPs / (the Tensor engine's peak x total time)", kNeuron},
    {"neuron.hfu_pct", "Neuron HFU", "%",
     "hfu_estimated_percent x 100: hardware FLOPs (transposes included) / (the Tensor engine's peak x total "
     "time)",
     kNeuron},
    {"neuron.mbu_pct", "Neuron MBU", "%", "mbu_estimated_percent x 100: memory bandwidth utilization",
     kNeuron},
    {"neuron.dma.active_pct", "DMA active", "%",
     "dma_active_time_percent x 100; without it, the union of the DMA rows / total time", kNeuron},
    {"neuron.dma.bytes", "DMA bytes", "bytes",
     "dma_transfer_total_bytes; without it, the sum of the DMA rows' transfer_size. A run: the sum", kNeuron},
    {"neuron.hbm.read_bytes", "HBM read", "bytes", "hbm_read_bytes. A run: the sum", kNeuron},
    {"neuron.hbm.write_bytes", "HBM written", "bytes", "hbm_write_bytes. A run: the sum", kNeuron},
    {"neuron.spill.save_bytes", "Spill saves", "bytes",
     "spill_save_bytes: state the compiler spilled from on-chip memory to HBM (fixed at compile time). A "
     "run: the "
     "sum",
     kNeuron},
    {"neuron.spill.reload_bytes", "Spill reloads", "bytes",
     "spill_reload_bytes: spilled state read back. A run: the sum", kNeuron},
    {"neuron.throttle.active_pct", "Throttled time", "%",
     "The share of the total time under any utilization limit: the highest throttle_active_<core>_time_ns / "
     "total time x 100; without it, the highest throttle_<source>_active_time_<core>_percent x 100 (a lower "
     "bound). A run: the highest",
     kNeuron},
    {"neuron.throttle.util_limit_pct", "Throttle limit", "%",
     "The lowest throttle_<source>_avg_util_limit_<core>_percent x 100 among the sources active for some of "
     "the time, capped at 100; n/a when none was. Never throttle_avg_util_limit_<core>_percent, which is the "
     "sum of limit x active share over the sources. A run: the lowest",
     kNeuron},
    {"neuron.warnings.missing_data", "Missing Data warnings", "count",
     "The full JSON's warnings with category Missing Data (summary-json: n/a). A run: the sum", kNeuron},
    {"neuron.warnings.count", "Profile warnings", "count",
     "The full JSON's warnings, every category (summary-json: n/a). A run: the sum", kNeuron},
};

}  // namespace

std::span<const MetricInfo> metric_catalog() {
  return kCatalog;
}

std::optional<std::size_t> metric_index(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kCatalog); ++i)
    if (kCatalog[i].name == name) return i;
  return std::nullopt;
}

const MetricInfo& metric_info(std::string_view name) {
  auto index = metric_index(name);
  if (!index) throw std::logic_error("metric not in catalog: " + std::string(name));
  return kCatalog[*index];
}

MetricValues::MetricValues() : values_(std::size(kCatalog)) {}

void MetricValues::set(std::string_view name, std::optional<double> value) {
  auto index = metric_index(name);
  if (!index) throw std::logic_error("metric not in catalog: " + std::string(name));
  values_[*index] = value;
}

std::optional<double> MetricValues::get(std::string_view name) const {
  auto index = metric_index(name);
  if (!index) throw std::logic_error("metric not in catalog: " + std::string(name));
  return values_[*index];
}

}  // namespace perfgate
