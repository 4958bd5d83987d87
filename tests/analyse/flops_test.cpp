#include <gtest/gtest.h>

#include "analyse/op_info.h"
#include "analyse/op_shapes.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::optional<double> flops(std::string_view op, const std::vector<Dims>& dims,
                            const std::vector<std::string>& scalars = {}) {
  return shape_flops(op, dims, scalars);
}

TEST(ShapeFlops, Gemms) {
  EXPECT_EQ(flops("aten::mm", {{64, 32}, {32, 16}}), 2.0 * 64 * 16 * 32);
  EXPECT_EQ(flops("aten::addmm", {{16}, {64, 32}, {32, 16}}), 2.0 * 64 * 16 * 32);
  EXPECT_EQ(flops("aten::bmm", {{4, 64, 32}, {4, 32, 16}}), 2.0 * 4 * 64 * 16 * 32);
  EXPECT_EQ(flops("aten::baddbmm", {{4, 64, 16}, {4, 64, 32}, {4, 32, 16}}), 2.0 * 4 * 64 * 16 * 32);
  // linear: input [8, 10, 32] x weight [16, 32]: M = 80.
  EXPECT_EQ(flops("aten::linear", {{8, 10, 32}, {16, 32}, {16}}), 2.0 * 80 * 16 * 32);
  EXPECT_EQ(flops("aten::matmul", {{3, 5, 7}, {3, 7, 2}}), 2.0 * 3 * 5 * 2 * 7);
  EXPECT_FALSE(flops("aten::mm", {{64, 32}}));
  EXPECT_FALSE(flops("aten::relu", {{64, 32}}));
}

// conv2d: input [8, 3, 32, 32], weight [16, 3, 3, 3], stride 2, padding 1, dilation 1:
// output 16 x 16, FLOPs = 2 x 8 x 16 x 256 x (3 x 3 x 3) = 1,769,472.
TEST(ShapeFlops, ConvolutionsNeedStridesAndPadding) {
  std::vector<Dims> dims = {{8, 3, 32, 32}, {16, 3, 3, 3}, {16}};
  EXPECT_EQ(flops("aten::conv2d", dims, {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"}), 1769472.0);
  // aten::cudnn_convolution takes padding before stride.
  EXPECT_EQ(flops("aten::cudnn_convolution", {{8, 3, 32, 32}, {16, 3, 3, 3}},
                  {"", "", "[1, 1]", "[2, 2]", "[1, 1]", "1"}),
            1769472.0);
  EXPECT_EQ(flops("aten::conv2d", dims, {"", "", "", "[1, 1]", "same", "[1, 1]", "1"}),
            2.0 * 8 * 16 * 1024 * 27);
  EXPECT_FALSE(flops("aten::conv2d", dims));  // PyTorch 1.8 recorded no scalar arguments
  // Backward: the output size is grad_output's; input and weight gradients: twice the forward.
  EXPECT_EQ(flops("aten::convolution_backward", {{8, 16, 16, 16}, {8, 3, 32, 32}, {16, 3, 3, 3}}),
            2 * 1769472.0);
  // output_mask (argument 10): a first layer computes no input gradient, so one forward's worth.
  std::vector<std::string> first_layer(10, "");
  first_layer.push_back("[False, True, True]");
  EXPECT_EQ(
      flops("aten::convolution_backward", {{8, 16, 16, 16}, {8, 3, 32, 32}, {16, 3, 3, 3}}, first_layer),
      1769472.0);
  first_layer.back() = "[True, True, False]";
  EXPECT_EQ(
      flops("aten::convolution_backward", {{8, 16, 16, 16}, {8, 3, 32, 32}, {16, 3, 3, 3}}, first_layer),
      2 * 1769472.0);
}

TEST(ShapeFlops, Attention) {
  // q [2, 4, 128, 64], k and v [2, 4, 256, 64]: 2 x 8 x 128 x 256 x (64 + 64).
  std::vector<Dims> qkv = {{2, 4, 128, 64}, {2, 4, 256, 64}, {2, 4, 256, 64}};
  EXPECT_EQ(flops("aten::scaled_dot_product_attention", qkv), 2.0 * 8 * 128 * 256 * 128);
  std::vector<Dims> backward = {{2, 4, 128, 64}, qkv[0], qkv[1], qkv[2]};
  EXPECT_EQ(flops("aten::_scaled_dot_product_flash_attention_backward", backward),
            2 * 2.0 * 8 * 128 * 256 * 128);
}

// One 1 ms step on an A100 (fp16 peak 312 TFLOP/s): aten::linear > aten::addmm in half precision,
// [1024, 1024] x [1024, 1024] weight: 2^31 FLOPs counted once (on addmm, the bottom-most).
// Achieved: 2^31 / 1 ms = 2.147 TFLOP/s. MFU: (2^31 / 312e12) / 1 ms = 0.688%.
std::string gemm_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40000000000, 108);
  t.step(1, 0, 1000);
  const char* half = R"("Input type": ["c10::Half", "c10::Half", "c10::Half"])";
  t.op("aten::linear", 10, 100, 1, 1,
       std::string(R"("Input Dims": [[1024, 1024], [1024, 1024], [1024]], )") + half);
  t.op("aten::addmm", 20, 80, 2, 1,
       std::string(R"("Input Dims": [[1024], [1024, 1024], [1024, 1024]], )") + half);
  t.launch("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", 30, 100, 50, 2);
  return t.json();
}

TEST(Compute, FlopsAchievedThroughputAndMfu) {
  WorkerAnalysis w = analyse_json(gemm_trace());
  double f = 2.0 * 1024 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(*w.metrics.get("compute.flops"), f);
  EXPECT_NEAR(*w.metrics.get("compute.tflops_achieved"), f / 1e-3 / 1e12, 1e-9);
  EXPECT_NEAR(*w.metrics.get("compute.mfu_pct"), 100.0 * (f / 312e12) / 1e-3, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get("compute.flops_coverage_pct"), 100);
  EXPECT_EQ(w.compute.peak_name, "NVIDIA A100");
  ASSERT_FALSE(w.tables.ops.empty());
  for (const OpRow& r : w.tables.ops) EXPECT_DOUBLE_EQ(r.flops, r.name == "aten::addmm" ? f : 0) << r.name;
}

TEST(Compute, TheTracesOwnCountComesFirstAndUnknownGpusHaveNoMfu) {
  TraceBuilder t;
  t.device(0, "Some Future GPU", 12, 0, 1, 1);
  t.step(1, 0, 1000)
      .op("aten::mm", 10, 50, 1, 1,
          R"("Input Dims": [[4, 4], [4, 4]], "Input type": ["float", "float"], "flops": 1000000)");
  t.launch("gemm", 11, 20, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get("compute.flops"), 1e6);
  EXPECT_FALSE(w.metrics.get("compute.mfu_pct"));
}

TEST(Compute, NotApplicableWithoutShapes) {
  TraceBuilder t;
  t.step(1, 0, 100).op("aten::mm", 10, 50, 1);
  t.launch("gemm", 11, 20, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_FALSE(w.metrics.get("compute.flops"));
  EXPECT_FALSE(w.metrics.get("compute.tflops_achieved"));
  EXPECT_DOUBLE_EQ(*w.metrics.get("compute.flops_coverage_pct"), 0);
}

// Half-precision GEMMs without Tensor Core kernels: M=100, N=64, K=30 breaks the multiple-of-8
// rule on M and K; M=N=K=64 does not. An FP32 GEMM without TC is an eligible op not using TC, but
// not a shape finding (the rule is for half precision).
TEST(TensorCoreShapes, MisalignedHalfPrecisionGemms) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 50, 1, 1,
       R"("Input Dims": [[100, 30], [30, 64]], "Input type": ["c10::Half", "c10::Half"])");
  t.launch("gemv2T_kernel", 11, 100, 20, 1);
  t.op("aten::mm", 100, 50, 2, 1,
       R"("Input Dims": [[64, 64], [64, 64]], "Input type": ["c10::Half", "c10::Half"])");
  t.launch("gemmSN_kernel", 101, 200, 20, 2);
  t.op("aten::bmm", 200, 50, 3, 1,
       R"("Input Dims": [[2, 8, 8], [2, 8, 8]], "Input type": ["float", "float"])");
  t.launch("sgemm_kernel", 201, 300, 20, 3);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.tables.tc_shape_findings.size(), 2u);
  const ShapeFindingRow& bad = w.tables.tc_shape_findings[0].misaligned.empty()
                                   ? w.tables.tc_shape_findings[1]
                                   : w.tables.tc_shape_findings[0];
  EXPECT_EQ(bad.dims, "M=100 N=64 K=30");
  EXPECT_EQ(bad.misaligned, "M, K");
  EXPECT_EQ(bad.data_type, "c10::Half");
  EXPECT_EQ(*w.metrics.get("tensor_core.misaligned_shapes"), 1);
  EXPECT_EQ(*w.metrics.get("tensor_core.eligible_ops_not_using_tc"), 2);  // aten::mm and aten::bmm
}

}  // namespace
}  // namespace perfgate::testing
