// The knowledge the analyses read, from the rule files (rules/*.yaml, each entry with its source):
// which names are which kernels and ops, GPU peaks and architectures, op cost models, step ranges.
// Loaded once per run (engine/rule_book.h, load_rule_book) and handed to the loader and the analyses.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate {

struct OpTypePattern {
  std::string type;  // "convolution", "matmul", ...
  std::string pattern;
};

// Peak dense throughput of a GPU model, in TFLOP/s per precision ("fp32", "tf32", "bf16", ...),
// and its memory (HBM) bandwidth: the roofline's ceilings.
struct GpuPeak {
  std::string match;  // RE2 pattern on the device name
  std::string name;
  std::vector<std::pair<std::string, double>> tflops;
  std::optional<double> memory_gbps;  // GB/s (10^9 bytes per second)
  std::string source;                 // where the figures come from
  bool measured = false;              // max-achievable figures measured by the user, not a datasheet's
  // The precision whose peak applies to an op that states no input type and whose kernels' names say
  // none (a TPU's XLA ops: the matrix units run XLA's default precision as bf16 passes), and why;
  // empty: such an op has no peak.
  std::string untyped_precision;
  std::string untyped_source;
  // The link host<->device copies cross (PCIe 4.0 x16, NVLink-C2C), its GB/s each way, and where
  // that comes from; no gbps: not known (issue 91: copies priced at HBM bandwidth).
  std::string host_link;
  std::optional<double> host_link_gbps;
  std::string host_link_source;
  std::optional<double> peak(std::string_view precision) const;
};

// How the cost of an op's call is modelled (rules: op_models): the family of formulas, and for
// the elementwise families the FLOPs per output element (per input element for reductions).
struct OpModelPattern {
  std::string pattern;  // RE2 on the op name, whole
  std::string model;    // gemm, conv, attention, unary, binary, copy, reduce, softmax, softmax_backward,
                        // layer_norm, layer_norm_backward, batch_norm, batch_norm_backward, rms_norm,
                        // moe, serving_attention
  double flops_per_element = 1;
  // moe: the op it calls whose second argument is the top-k (RE2, whole name), the kernels of a
  // gated (SwiGLU) expert MLP, and the kernels whose expert weights are 4-bit (MXFP4, NVFP4).
  std::string topk_ops;
  std::string gated_kernels;
  std::string fp4_weight_kernels;
  // serving_attention: the annotation of the serving step around the op (RE2 with the named groups
  // c_sqsq, c_sqsk and g_sqsk: the step's context and generation lengths), and the positions of
  // the query and value inputs.
  std::string batch;
  int query = 0;
  int value = 2;
};

// What a fused kernel computes, from the ATen ops its name lists (rules: fused_patterns): the first
// entry whose conditions all hold names it.
struct FusedPattern {
  std::string name;                // "RMSNorm", "GEMM"
  std::vector<std::string> kinds;  // kernel kinds it needs ("tem": a template); empty: any
  std::vector<std::string> all;    // ops the name must list, every one
  std::vector<std::string> any;    // ... and at least one of these; empty: no such condition
  std::string model;               // "gemm": FLOPs 2·B·M·N·K from the launch's input shapes; "": none
};

// The precision a Tensor Core or SIMT matrix kernel computes in, read from its name (rules:
// kernel_precisions): the first entry whose pattern matches decides.
struct KernelPrecisionPattern {
  std::string pattern;    // RE2, anywhere in the kernel name
  std::string precision;  // fp64, fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, mxfp8, mxfp6, mxfp4, nvfp4
  std::string peak;       // the precision whose peak applies (a mixed-format MMA runs at its wider operand's)
  std::string formats;    // the operand formats as the name states them ("MXFP8 x MXFP4"); may be empty
};

// A GPU architecture (rules: gpu_architectures), recognised by the device's name, or by the
// names of the kernels a device ran when the trace does not describe the device.
struct GpuArchitecture {
  std::string name;        // "Volta", "Hopper", "gfx942"
  std::string vendor;      // "NVIDIA", "AMD"
  int compute_major = -1;  // NVIDIA compute capability of the architecture, else -1
  int compute_minor = -1;
  std::string devices;  // RE2 on the device name; empty: not recognised by name
  std::string kernels;  // RE2 on kernel names; empty: never inferred from kernels
};

// What a PyTorch memory snapshot's allocation holds, by a frame of its stack (rules:
// memory_categories), where the snapshot does not say: the first entry that any of its frames
// matches names it. Both patterns are RE2, matched anywhere unless anchored; an empty one matches
// any frame.
struct MemoryCategoryPattern {
  std::string category;  // "gradient", "optimizer", "parameter", "backward", "forward", ...
  std::string file;      // on the frame's file name, with '\' read as '/'
  std::string function;  // on the frame's function name (a C++ frame's qualified name)
};

// Name patterns (RE2 syntax, matched anywhere in the name unless anchored) that classify
// kernels and ops. They come from the rules YAML (`classification:`), never from code.
struct Classification {
  std::vector<std::string> tensor_core_kernels;
  // Kernels that run on the SIMT units whatever else their name says (FP32 FFMA GEMMs): checked
  // before tensor_core_kernels, so that a match here is never Tensor Core work.
  std::vector<std::string> non_tensor_core_kernels;
  // Each entry's `source:` ("" where it names none), as the two lists above: what the kernels
  // table shows beside the entry that decided (tc_rule_source).
  std::vector<std::string> tensor_core_kernel_sources;
  std::vector<std::string> non_tensor_core_kernel_sources;
  std::vector<std::string> tensor_core_eligible_ops;
  // Kernels that only reorder a tensor between memory layouts (NCHW <-> NHWC transposes that cuDNN
  // and MIOpen run around convolutions on NCHW tensors).
  std::vector<std::string> layout_conversion_kernels;
  std::vector<std::string> communication_kernels;
  std::vector<std::string> communication_ops;
  std::vector<std::string> dataloader_ops;
  std::vector<std::string> sync_calls;  // runtime calls that block the host until the GPU is done
  // Of those, the calls that wait for all the work queued on the device before them (device and
  // context synchronize): the evidence whether the host's and the GPU's clocks agree (launch_delay.h).
  std::vector<std::string> device_sync_calls;
  std::vector<std::string> graph_launch_calls;  // runtime calls that replay a captured CUDA/HIP graph
  // Warm-up one-offs (issue 53): runtime and driver calls whose first call sets the process up
  // (context creation, the first cudaMalloc, module loads), and host ranges that are JIT
  // compilation (nvFuser, NVRTC): a window that holds them is not the steady state.
  std::vector<std::string> warmup_calls;
  std::vector<std::string> warmup_ranges;
  // Other one-offs (issue 72): calls that tear the process down (every one after the window's last
  // GPU activity) and the profiler's own start and stop (host events or calls).
  std::vector<std::string> teardown_calls;
  std::vector<std::string> profiler_events;
  // What the run already applies, so that its advice says what comes next (issue 72, build item 6):
  // PyTorch's fused attention ops (SDPA already used), GradScaler's ops (FP16 with loss scaling),
  // and the kernels of a TensorRT engine (TensorRT's remedies, not PyTorch's).
  std::vector<std::string> fused_attention_ops;
  std::vector<std::string> grad_scaler_ops;
  std::vector<std::string> tensorrt_kernels;
  // The critical path's runtime calls that enqueue GPU work (a launch delay needs one) and that
  // block the host (their own time is not on the path): HTA's lists (docs/metrics.md).
  std::vector<std::string> critical_path_launch_calls;
  std::vector<std::string> critical_path_blocking_calls;
  // Launch calls that return once the device work they launched is done (MTIA's runFunction): the
  // path waits in them on that work, not on the host (issue 91).
  std::vector<std::string> critical_path_synchronous_launches;
  // Two activities of a stream further apart than this are not linked by a kernel-gap edge.
  double critical_path_max_kernel_gap_us = 1500;
  std::vector<std::string> data_parallel_ops;              // torch.nn.DataParallel's forward
  std::vector<std::string> distributed_data_parallel_ops;  // DistributedDataParallel's forward
  std::vector<std::string> nccl_ops;                       // host ops of NCCL collectives
  std::vector<std::string> library_frames;                 // call-stack frames outside user code
  std::vector<OpTypePattern> op_types;                     // first match wins; no match is "other"
  std::vector<GpuPeak> gpu_peaks;                          // first match on the device name wins
  std::vector<GpuArchitecture> gpu_architectures;          // by device name (first match), or kernel names
  std::vector<OpModelPattern> op_models;                   // first match wins; no match: unmodelled
  std::vector<KernelPrecisionPattern> kernel_precisions;   // first match wins; no match: the op's types
  // TorchInductor's generated kernels, by whole name: the first group is the kernel's kind (poi,
  // red, per, tem, for), the second the ATen ops its name lists (may be empty).
  std::vector<std::string> compiled_kernels;
  std::vector<std::string> compiled_regions;  // the ops that run compiled code (Torch-Compiled Region)
  std::vector<std::string> aten_ops;          // op names a fused name may list, matched longest first
  std::vector<FusedPattern> fused_patterns;   // first match wins
  std::vector<MemoryCategoryPattern> memory_categories;  // first match wins; no match: "unknown"
  // Host ranges that are steps, for each way a format marks them (ProfileInfo::step_marking): a
  // range whose whole name matches one of the patterns; the first number a pattern captures is the
  // step's number. Kineto traces read profiler_step_ranges (ProfilerStep#N), nsys exports
  // nvtx_step_ranges (NVTX step or iteration ranges), XSpace profiles xspace_step_ranges (a host
  // event with a step_num stat, or a step's name alone: jax.profiler.TraceAnnotation("train_step")).
  std::vector<std::string> profiler_step_ranges;
  std::vector<std::string> nvtx_step_ranges;
  std::vector<std::string> xspace_step_ranges;
  // Serving frameworks' iteration ranges (vLLM, SGLang), read as steps where the trace's own step
  // ranges find none: the first pattern that matches any range gives the steps.
  std::vector<std::string> serving_step_ranges;
  // The phase of a serving step by its name (type: decode, prefill or mixed), first match wins: the
  // serving frameworks' own annotations (issue 53).
  std::vector<OpTypePattern> serving_phases;
  // The capture profile's markers (common/capture_profile.h): names that show a framework or runtime
  // (type: its name, "vllm") and names that show a workload (type: training, serving,
  // offline-inference, benchmark), matched against host events, runtime calls, kernels and the
  // trace's metadata keys.
  std::vector<OpTypePattern> capture_frameworks;
  std::vector<OpTypePattern> capture_workloads;
  // MFU and achieved TFLOP/s only where the FLOPs are known for at least this share of the
  // eligible ops' device time (compute.flops_coverage_pct); below it they are n/a.
  double mfu_min_flops_coverage_pct = 50;
  // Tensor Core efficiency only where ops are known for at least this share of the kernel time
  // (tensor_core.judged_kernel_time_pct): graph replays without their capture hide which ops ran.
  double tc_min_judged_pct = 50;
  // The share of its roofline an op is expected to reach: ops below it are far from their roofline
  // (roofline.saving_pct counts the time each would save at it).
  double roofline_target_pct = 50;
  // A runtime call whose External id names no enclosing op is attributed to the innermost op
  // enclosing it on its thread. Off reproduces the TensorBoard plugin, which drops such calls.
  bool attribute_by_time_containment = true;
  // An External id links a call to an op only when the op encloses the call in time (ids collide
  // in traces rewritten with correlation ids as External ids). Off reproduces the plugin.
  bool external_id_must_enclose = true;
  // cuda_driver events (cuLaunchKernel and other driver-API calls, any *_driver category) are
  // runtime calls: kernels they launch are attributed to their op, their time is runtime time.
  // Off reproduces the plugin, which reads no driver events (docs/metrics.md).
  bool count_driver_api_calls = true;
  // Nsight Systems exports: an NVTX op range directly inside an op range of the same name on its
  // thread (PyProf's torch.nn.functional.relu > torch.relu, then emit_nvtx's aten::relu: one call
  // marked three times) is folded into the outermost, as DLProf counts one op. Off keeps each level.
  bool fold_nested_nvtx_ops = true;
  // Under a host/GPU clock offset (docs/metrics.md, "Clock offsets"), MFU, MBU and the breakdown are
  // measured over the GPUs' span in the window, not the window the offset stretches. Off measures
  // them over the window, as the TensorBoard plugin does.
  bool clock_offset_over_gpu_span = true;
  // Communication is the communication kernels' time: a collective's host wrapper (vllm::all_reduce
  // deciding in Python which all-reduce to run) is host time, and its host ranges count as
  // communication only in a trace without GPU work (CPU collectives: gloo). On, every communication
  // op's host range is communication, as the TensorBoard plugin counts it (issue 72, item 6).
  bool communication_host_time = false;
  // Kernels with no launching call in the trace (launched before the capture began, or through
  // driver calls that are not read) count in tensor_core.kernel_time_pct. Off reproduces the
  // plugin, whose Tensor Core share is of the kernels its ops' runtime calls launched.
  bool tc_share_counts_unlaunched_kernels = true;
};

}  // namespace perfgate
