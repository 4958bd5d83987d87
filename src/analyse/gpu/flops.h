// FLOPs per op and the compute metrics (achieved TFLOP/s, MFU).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/gpu/xla_cost.h"
#include "analyse/ops/op_info.h"
#include "analyse/ops/op_stats.h"
#include "common/notes.h"

namespace perfgate {

// The Triton GEMM templates the window called (compiled_kernels.h): calls whose FLOPs their launch's
// input shapes give, and calls whose shapes are absent or do not say the size (not counted, never
// guessed), with the first such kernel's name.
struct TemplateCalls {
  std::uint64_t counted = 0;
  std::uint64_t without_shapes = 0;
  std::string first_without_shapes;
};

// Per host event: the FLOPs it is counted for, 0 when none. Only the bottom-most ops with a count
// are counted (aten::linear's aten::addmm, not both), only ops called during the window's steps.
// A compiled kernel's range counts the FLOPs of its GEMM template, if it is one; a mixture-of-experts
// or serving attention op (rules: op_models moe, serving_attention) the FLOPs of its model; an XLA op
// its matrix work's (xla_cost.h).
std::vector<float> counted_flops(const Profile& profile, const OpStats& stats, ArgumentCache& args,
                                 NameClasses& classes, const CompiledClassification& classification,
                                 XlaCosts& xla, TemplateCalls& templates);

// The peak (TFLOP/s) an op's FLOPs are compared with: the GPU's peak for the op's precision (its
// first input tensor's type) on the best units the op could use, never on those its kernels ended
// up using, so that MFU falls when Tensor Cores stop being used. A float32 op that is TC-eligible
// compares with TF32 where the GPU has it, else FP32; FP16/BF16/FP8/INT8 with their (Tensor Core)
// peaks. Empty when the GPU's entry has no figure for it.
std::optional<double> op_peak_tflops(const GpuPeak& peak, Precision precision, bool tc_eligible);

// The peak an op is measured against and the precision that names it (docs/metrics.md, "Precision:
// which decides"): what the op ran in decides first, its recorded input types; its matrix kernels'
// names (rules: kernel_precisions) only where they say more without contradicting them (FP32 inputs
// on an FFMA GEMM: fp32, on TF32 Tensor Cores: tf32; block-scaled formats the types cannot state:
// an MXFP8 x MXFP4 GEMM at fp8) or where the op recorded no types; else op_peak_tflops by the input
// type. MFU is then against the mix the run actually ran.
struct OpPeak {
  std::optional<double> tflops;
  std::string precision;  // "tf32", "fp8", ...; "" where neither the kernels nor the inputs say
  // The kernels' name read another precision than the op's input types, which decided (a Tensile
  // B_BS name read as FP32 under BFloat16 ops): what the name read; "" otherwise.
  std::string named;
  // Neither the inputs nor the kernels' names said: the device's peak entry names the precision
  // (rules: gpu_peaks, untyped_ops).
  bool untyped = false;
};
// Whether a kernel name's precision says more than the op's input types without contradicting
// them: the types are unknown, the name states a block-scaled format, FP32 inputs ran as FP32 or
// TF32, bytes (INT8 storage) hold INT8 or packed FP8/FP6/FP4, or the name reads the types' own.
bool name_refines_types(Precision inputs, const KernelPrecisionPattern& ran);

// FLOPs whose kernels' names read another precision than their ops' input types, which decided
// (op_peak), by "<types' precision> (their kernels' names read <name's>)".
struct PrecisionOverrides {
  std::map<std::string, double> flops;
  // FLOPs of ops that stated no precision, at the peak their device's entry names for them.
  double untyped_flops = 0;
  std::string untyped_precision;
  std::string untyped_device;
  std::string untyped_source;
};
// The worker's notes about them; empty when there are none.
std::optional<Note> precision_source_note(const PrecisionOverrides& overrides, double all_flops);
std::optional<Note> untyped_precision_note(const PrecisionOverrides& overrides, double all_flops);
OpPeak op_peak(const GpuPeak* peak, Precision inputs, bool tc_eligible, const KernelPrecisionPattern* ran);

// The GPU whose peak applies to a worker's ops: the one with the most kernel time, or nullptr.
const GpuMetrics* main_gpu(const std::vector<GpuMetrics>& gpus);

ComputeSums compute_sums(const Profile& profile, const OpStats& stats, ArgumentCache& args,
                         const std::vector<float>& flops, const CompiledClassification& classification,
                         const std::vector<GpuMetrics>& gpus, PrecisionOverrides& overrides);

}  // namespace perfgate
