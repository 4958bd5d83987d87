// FLOPs per op and the compute metrics (achieved TFLOP/s, MFU).
#pragma once

#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/gpu/xla_cost.h"
#include "analyse/ops/op_info.h"
#include "analyse/ops/op_stats.h"

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

// The peak an op is measured against and the precision that names it: the precision its matrix
// kernels ran in where their names say so (rules: kernel_precisions; an FFMA GEMM: fp32, an MXFP8 x
// MXFP4 GEMM: fp8), else op_peak_tflops by its input type. MFU is then against the mix the run
// actually ran (docs/metrics.md, "MFU").
struct OpPeak {
  std::optional<double> tflops;
  std::string precision;  // "tf32", "fp8", ...; "" where neither the kernels nor the inputs say
};
OpPeak op_peak(const GpuPeak* peak, Precision inputs, bool tc_eligible, const KernelPrecisionPattern* ran);

// The GPU whose peak applies to a worker's ops: the one with the most kernel time, or nullptr.
const GpuMetrics* main_gpu(const std::vector<GpuMetrics>& gpus);

ComputeSums compute_sums(const Profile& profile, const OpStats& stats, ArgumentCache& args,
                         const std::vector<float>& flops, const CompiledClassification& classification,
                         const std::vector<GpuMetrics>& gpus);

}  // namespace perfgate
