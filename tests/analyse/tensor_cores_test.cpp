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
  EXPECT_NEAR(*w.metrics.get("tensor_core.kernel_time_pct"), 100.0 * 70 / 150, 1e-9);
  EXPECT_NEAR(*w.metrics.get("tensor_core.eligible_kernel_time_pct"), 100.0 * 130 / 150, 1e-9);
  EXPECT_NEAR(*w.metrics.get("tensor_core.efficiency_pct"), 100.0 * 70 / 130, 1e-9);
  EXPECT_NEAR(*w.gpus[0].tensor_core_kernel_time_pct, 100.0 * 70 / 150, 1e-9);
}

// The plugin's kernel list predates Hopper's nvjet kernels: only the 16816 GEMM is TC there.
TEST(TensorCores, ThePluginsPatternsAreAFloor) {
  WorkerAnalysis w = analyse_json(tc_trace(), {}, {"tb-plugin"});
  EXPECT_NEAR(*w.metrics.get("tensor_core.kernel_time_pct"), 100.0 * 40 / 150, 1e-9);
}

TEST(TensorCores, NotApplicableWithoutKernelsOrEligibleOps) {
  TraceBuilder t;
  t.step(1, 0, 100).op("aten::relu", 10, 20, 1).launch("elementwise", 11, 30, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get("tensor_core.kernel_time_pct"), 0);
  EXPECT_DOUBLE_EQ(*w.metrics.get("tensor_core.eligible_kernel_time_pct"), 0);
  EXPECT_FALSE(w.metrics.get("tensor_core.efficiency_pct"));
}

// Resource split of the same trace: TC kernels 70, other kernels 80 (no overlap), no memory ops.
TEST(Resources, DlprofSplitOfTheWindow) {
  WorkerAnalysis w = analyse_json(tc_trace());
  EXPECT_DOUBLE_EQ(*w.metrics.get("resources.tc_kernels_us"), 70);
  EXPECT_DOUBLE_EQ(*w.metrics.get("resources.non_tc_kernels_us"), 80);
  EXPECT_DOUBLE_EQ(*w.metrics.get("resources.memory_us"), 0);
  double total = 0;
  for (const char* part : {"tc_kernels", "non_tc_kernels", "memory", "cpu", "other"})
    total += *w.metrics.get(std::string("resources.") + part + "_us");
  EXPECT_DOUBLE_EQ(total, 1000);
}

}  // namespace
}  // namespace perfgate::testing
