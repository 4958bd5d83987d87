#include <gtest/gtest.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Step [0,1000]. Kernel durations (µs):
//   aten::linear > aten::t (nothing), aten::addmm: TC gemm 40 + elementwise 10
//   aten::conv2d > aten::convolution > aten::_convolution > aten::cudnn_convolution: sgemm 50
//   aten::relu: elementwise 20
//   my::fused (not eligible by name) launches a TC kernel 30, so it becomes eligible
// All kernel time 150; TC 70 -> 46.67%. Bottom-most eligible: addmm (50), cudnn_convolution (50),
// my::fused (30): 130 / 150 = 86.67%. TC inside them 70 / 130 = 53.85%. cudnn_convolution ran no TC.
std::string tc_trace() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::linear", 10, 90, 1).op("aten::t", 12, 3, 2).op("aten::addmm", 20, 70, 3);
  t.launch("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", 21, 100, 40, 3);
  t.launch("vectorized_elementwise_kernel", 22, 140, 10, 3);
  t.op("aten::conv2d", 110, 90, 4).op("aten::convolution", 111, 88, 5).op("aten::_convolution", 112, 86, 6);
  t.op("aten::cudnn_convolution", 130, 60, 7).launch("implicit_convolve_sgemm", 131, 200, 50, 7);
  t.op("aten::relu", 210, 40, 8).launch("elementwise_relu", 211, 260, 20, 8);
  t.op("my::fused", 300, 40, 9).launch("nvjet_hsh_128x256_64x4_2x1_v_bz_coopB_TNT", 301, 300, 30, 9);
  return t.json();
}

TEST(TensorCores, SharesOfKernelTimeEligibleOpsAndEfficiency) {
  WorkerAnalysis w = analyse_json(tc_trace());
  const TensorCoreSums& s = w.tensor_cores;
  EXPECT_EQ(s.kernel_ns, 150000);
  EXPECT_EQ(s.tc_kernel_ns, 70000);
  EXPECT_EQ(s.op_kernel_ns, 150000);
  EXPECT_EQ(s.eligible_self_kernel_ns, 130000);
  EXPECT_EQ(s.eligible_total_kernel_ns, 130000);
  EXPECT_EQ(s.eligible_tc_kernel_ns, 70000);
  EXPECT_EQ(s.eligible_ops_without_tc, 1u);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreKernelTimePct), 100.0 * 70 / 150, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreEligibleKernelTimePct), 100.0 * 130 / 150, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreEfficiencyPct), 100.0 * 70 / 130, 1e-9);
  EXPECT_NEAR(*w.gpus[0].tensor_core_kernel_time_pct, 100.0 * 70 / 150, 1e-9);
}

// The plugin's kernel list predates Hopper's nvjet kernels: only the 16816 GEMM is TC there.
TEST(TensorCores, ThePluginsPatternsAreAFloor) {
  WorkerAnalysis w = analyse_json(tc_trace(), {}, {"tb-plugin"});
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreKernelTimePct), 100.0 * 40 / 150, 1e-9);
}

TEST(TensorCores, NotApplicableWithoutKernelsOrEligibleOps) {
  TraceBuilder t;
  t.step(1, 0, 100).op("aten::relu", 10, 20, 1).launch("elementwise", 11, 30, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreKernelTimePct), 0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreEligibleKernelTimePct), 0);
  EXPECT_FALSE(w.metrics.get(Metric::TensorCoreEfficiencyPct));
}

// Issue 29, item 3: a BF16 run whose time off Tensor Cores is MIOpen's NCHW <-> NHWC transposes
// (mi300x_resnet_actckpt_gpu_steps). Step [0,1000]; aten::conv2d (float inputs: autocast casts
// below it) > aten::miopen_convolution (BF16 inputs), which launches (us):
//   igemm_fwd_gtcx3_nhwc_bf16_... 40 (MFMA: Tensor Core), batched_transpose_32x32_half 30,
//   batched_transpose_16x32_half 20 (layout), SubTensorOpWithCastTensor1d 10 (not a CUTLASS
//   tensorop kernel).
// Eligible kernel time 100, on TC 40 (efficiency 40%); the other 60: layout 50 (83.33%), the
// BF16 op's other kernels 10 (16.67%), FP32 0, unknown 0. Precision is the bottom-most op's.
std::string layout_bound_trace() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::conv2d", 10, 200, 1, 1, R"("Input type": ["float", "float", "", "", ""])");
  t.op("aten::miopen_convolution", 20, 180, 2, 1,
       R"("Input type": ["c10::BFloat16", "c10::BFloat16", "", "", ""])");
  t.launch("batched_transpose_32x32_half", 21, 100, 30, 2);
  t.launch("igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2", 22, 130, 40, 2);
  t.launch("batched_transpose_16x32_half", 23, 170, 20, 2);
  t.launch("SubTensorOpWithCastTensor1d", 24, 190, 10, 2);
  return t.json();
}

TEST(TensorCores, TimeOffTensorCoresSplitByLayoutConversionAndInputTypes) {
  WorkerAnalysis w = analyse_json(layout_bound_trace());
  const TensorCoreSums& s = w.tensor_cores;
  EXPECT_EQ(s.eligible_total_kernel_ns, 100'000);
  EXPECT_EQ(s.eligible_tc_kernel_ns, 40'000);
  EXPECT_EQ(s.eligible_layout_kernel_ns, 50'000);
  EXPECT_EQ(s.eligible_half_kernel_ns, 10'000);
  EXPECT_EQ(s.eligible_fp32_kernel_ns, 0);
  EXPECT_EQ(s.eligible_unknown_kernel_ns, 0);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreEfficiencyPct), 40, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNonTcLayoutPct), 100.0 * 50 / 60, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNonTcHalfPrecisionPct), 100.0 * 10 / 60, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreNonTcFp32Pct), 0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreNonTcUnknownPrecisionPct), 0);
  // No eligible op ran without a Tensor Core kernel: the split of those is n/a.
  EXPECT_EQ(s.eligible_ops_without_tc, 0u);
  EXPECT_FALSE(w.metrics.get(Metric::TensorCoreNoTcOpsFp32Pct));
}

// Step [0,1000], bottom-most eligible ops (us):
//   aten::mm, float inputs: volta_sgemm 60 (no TC)
//   aten::addmm, BF16 inputs: ampere_bf16_s16816gemm 40 (TC) + elementwise 10
//   aten::cudnn_convolution, no input types: cudnn::ops::nchwToNhwcKernel 10 + implicit_convolve_sgemm 20
// Eligible 140, TC 40; the other 100: layout 10, FP32 60, half 10, unknown 20. Ops without any
// TC kernel: mm 60 (FP32) and the convolution 30 (unknown): 66.67% and 33.33% of 90.
TEST(TensorCores, TimeOffTensorCoresOfFp32HalfAndUntypedOps) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 50, 1, 1, R"("Input type": ["float", "float"])");
  t.launch("volta_sgemm_128x64_nn", 11, 100, 60, 1);
  t.op("aten::addmm", 70, 50, 2, 1, R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  t.launch("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 71, 200, 40, 2);
  t.launch("vectorized_elementwise_kernel", 72, 240, 10, 2);
  t.op("aten::cudnn_convolution", 130, 50, 3);
  t.launch(
      "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, "
      "true>(cudnn::ops::nchw2nhwc_params_t<float>)",
      131, 300, 10, 3);
  t.launch("implicit_convolve_sgemm", 132, 310, 20, 3);
  WorkerAnalysis w = analyse_json(t.json());
  const TensorCoreSums& s = w.tensor_cores;
  EXPECT_EQ(s.eligible_total_kernel_ns, 140'000);
  EXPECT_EQ(s.eligible_tc_kernel_ns, 40'000);
  EXPECT_EQ(s.eligible_layout_kernel_ns, 10'000);
  EXPECT_EQ(s.eligible_fp32_kernel_ns, 60'000);
  EXPECT_EQ(s.eligible_half_kernel_ns, 10'000);
  EXPECT_EQ(s.eligible_unknown_kernel_ns, 20'000);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNonTcLayoutPct), 10, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNonTcFp32Pct), 60, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNonTcHalfPrecisionPct), 10, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNonTcUnknownPrecisionPct), 20, 1e-9);
  EXPECT_EQ(s.eligible_ops_without_tc, 2u);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNoTcOpsFp32Pct), 100.0 * 60 / 90, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreNoTcOpsHalfPrecisionPct), 0);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreNoTcOpsUnknownPrecisionPct), 100.0 * 30 / 90, 1e-9);
}

// Resource split of the same trace: TC kernels 70, other kernels 80 (no overlap), no memory ops.
TEST(Resources, DlprofSplitOfTheWindow) {
  WorkerAnalysis w = analyse_json(tc_trace());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesTcKernelsUs), 70);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesNonTcKernelsUs), 80);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ResourcesMemoryUs), 0);
  double total = 0;
  for (Metric part : {Metric::ResourcesTcKernelsUs, Metric::ResourcesNonTcKernelsUs,
                      Metric::ResourcesMemoryUs, Metric::ResourcesCpuUs, Metric::ResourcesOtherUs})
    total += *w.metrics.get(part);
  EXPECT_DOUBLE_EQ(total, 1000);
}

}  // namespace
}  // namespace perfgate::testing
