#include <gtest/gtest.h>

#include "analyse/ops/op_info.h"
#include "analyse/ops/op_shapes.h"
#include "render/format.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::optional<double> flops(std::string_view op, const std::vector<Dims>& dims,
                            const std::vector<std::string>& scalars = {}) {
  return shape_flops(op, dims, scalars);
}

// TraceLens's GEMM: 2 x B x M x N x K, and B x M x N more for the bias's additions.
TEST(ShapeFlops, Gemms) {
  EXPECT_EQ(flops("aten::mm", {{64, 32}, {32, 16}}), 2.0 * 64 * 16 * 32);
  EXPECT_EQ(flops("aten::addmm", {{16}, {64, 32}, {32, 16}}), 2.0 * 64 * 16 * 32 + 64 * 16);
  EXPECT_EQ(flops("aten::bmm", {{4, 64, 32}, {4, 32, 16}}), 2.0 * 4 * 64 * 16 * 32);
  EXPECT_EQ(flops("aten::baddbmm", {{4, 64, 16}, {4, 64, 32}, {4, 32, 16}}),
            2.0 * 4 * 64 * 16 * 32 + 4 * 64 * 16);
  // linear: input [8, 10, 32] x weight [16, 32]: M = 80; with a bias 80 x 16 additions.
  EXPECT_EQ(flops("aten::linear", {{8, 10, 32}, {16, 32}, {16}}), 2.0 * 80 * 16 * 32 + 80 * 16);
  EXPECT_EQ(flops("aten::linear", {{8, 10, 32}, {16, 32}, {}}), 2.0 * 80 * 16 * 32);
  EXPECT_EQ(flops("aten::matmul", {{3, 5, 7}, {3, 7, 2}}), 2.0 * 3 * 5 * 2 * 7);
  EXPECT_FALSE(flops("aten::mm", {{64, 32}}));
  EXPECT_FALSE(flops("aten::relu", {{64, 32}}));
}

// conv2d: input [8, 3, 32, 32], weight [16, 3, 3, 3], stride 2, padding 1, dilation 1:
// output 16 x 16, FLOPs = 2 x 8 x 16 x 256 x (3 x 3 x 3) = 1,769,472, and with the bias one
// addition per output, 8 x 16 x 256 = 32,768 (TraceLens's CONV).
TEST(ShapeFlops, ConvolutionsNeedStridesAndPadding) {
  std::vector<Dims> dims = {{8, 3, 32, 32}, {16, 3, 3, 3}, {16}};
  EXPECT_EQ(flops("aten::conv2d", dims, {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"}), 1769472.0 + 32768);
  EXPECT_EQ(flops("aten::conv2d", {dims[0], dims[1], {}}, {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"}),
            1769472.0);
  // aten::cudnn_convolution takes padding before stride.
  EXPECT_EQ(flops("aten::cudnn_convolution", {{8, 3, 32, 32}, {16, 3, 3, 3}},
                  {"", "", "[1, 1]", "[2, 2]", "[1, 1]", "1"}),
            1769472.0);
  EXPECT_EQ(flops("aten::conv2d", dims, {"", "", "", "[1, 1]", "same", "[1, 1]", "1"}),
            2.0 * 8 * 16 * 1024 * 27 + 8 * 16 * 1024);
  EXPECT_FALSE(flops("aten::conv2d", dims));  // PyTorch 1.8 recorded no scalar arguments
  // Backward: the output size is grad_output's; input and weight gradients: twice the forward.
  EXPECT_EQ(flops("aten::convolution_backward", {{8, 16, 16, 16}, {8, 3, 32, 32}, {16, 3, 3, 3}}),
            2 * 1769472.0);
  // output_mask (argument 10): a first layer computes no input gradient, so one forward's worth.
  std::vector<std::string> first_layer(10, "");
  // With the bias gradient, one addition per grad_output element: 8 x 16 x 256 = 32,768.
  first_layer.push_back("[False, True, True]");
  EXPECT_EQ(
      flops("aten::convolution_backward", {{8, 16, 16, 16}, {8, 3, 32, 32}, {16, 3, 3, 3}}, first_layer),
      1769472.0 + 32768);
  first_layer.back() = "[True, True, False]";
  EXPECT_EQ(
      flops("aten::convolution_backward", {{8, 16, 16, 16}, {8, 3, 32, 32}, {16, 3, 3, 3}}, first_layer),
      2 * 1769472.0);
}

TEST(ShapeFlops, Attention) {
  // q [2, 4, 128, 64], k and v [2, 4, 256, 64]: 2 x 8 x 128 x 256 x (64 + 64).
  std::vector<Dims> qkv = {{2, 4, 128, 64}, {2, 4, 256, 64}, {2, 4, 256, 64}};
  EXPECT_EQ(flops("aten::scaled_dot_product_attention", qkv), 2.0 * 8 * 128 * 256 * 128);
  // Backward (TraceLens's flash backward): Q·K^T recomputed (2 x 8 x 128 x 256 x 64) and four
  // products dV, dP, dQ, dK (2 x 8 x 128 x 256 x (64 + 64 + 64 + 64)): 2 x 8 x 128 x 256 x 320.
  std::vector<Dims> backward = {{2, 4, 128, 64}, qkv[0], qkv[1], qkv[2]};
  EXPECT_EQ(flops("aten::_scaled_dot_product_flash_attention_backward", backward), 2.0 * 8 * 128 * 256 * 320);
  // Causal (is_causal is argument 5 of scaled_dot_product_attention) on a square score matrix:
  // half of 2 x 8 x 128 x 128 x 128.
  std::vector<Dims> square = {{2, 4, 128, 64}, {2, 4, 128, 64}, {2, 4, 128, 64}};
  EXPECT_EQ(flops("aten::scaled_dot_product_attention", square, {"", "", "", "", "0.0", "True"}),
            2.0 * 8 * 128 * 128 * 128 / 2);
  // Causal where the key is longer than the query: counted whole.
  EXPECT_EQ(flops("aten::scaled_dot_product_attention", qkv, {"", "", "", "", "0.0", "True"}),
            2.0 * 8 * 128 * 256 * 128);
  // Grouped-query backward, 4 query heads sharing 2 K/V heads: dK and dV are also summed over the
  // 4 / 2 = 2 query heads of each, B x N_kv x (d_qk + d_v) x (2 - 1) = 2 x 256 x 128 more.
  std::vector<Dims> gqa = {{2, 4, 128, 64}, {2, 4, 128, 64}, {2, 2, 256, 64}, {2, 2, 256, 64}};
  EXPECT_EQ(flops("aten::_scaled_dot_product_flash_attention_backward", gqa),
            2.0 * 8 * 128 * 256 * 320 + 2.0 * 256 * 128);
}

// One 1 ms step on an A100 (fp16 peak 312 TFLOP/s): aten::linear > aten::addmm in half precision,
// [1024, 1024] x [1024, 1024] weight and a [1024] bias: 2^31 + 2^20 FLOPs counted once (on addmm,
// the bottom-most). Achieved: (2^31 + 2^20) / 1 ms = 2.1485 TFLOP/s. MFU: that / 312e12 = 0.6886%.
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
  double f = 2.0 * 1024 * 1024 * 1024 + 1024 * 1024;
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), f);
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeTflopsAchieved), f / 1e-3 / 1e12, 1e-9);
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMfuPct), 100.0 * (f / 312e12) / 1e-3, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100);
  EXPECT_EQ(w.compute.peak_name, "NVIDIA A100");
  ASSERT_FALSE(w.tables.ops.empty());
  for (const OpRow& r : w.tables.ops) EXPECT_DOUBLE_EQ(r.flops, r.name == "aten::addmm" ? f : 0) << r.name;
}

// One 1 ms step: aten::mm on float32 [1024, 1024] x [1024, 1024] (2^31 FLOPs) with a 50 us kernel,
// whether cuBLAS ran it on TF32 Tensor Cores or as a plain FP32 SGEMM. Issue 51: the peak is that of
// the precision the op ran in where its kernels' names say it (rules: kernel_precisions): the TF32
// run against TF32 (156 TFLOP/s on an A100): (2^31 / 156e12) / 1 ms = 1.3766%; the SGEMM against
// FP32 (19.5 TFLOP/s): 11.01%. That it left Tensor Cores shows in the Tensor Core share (0%) and the
// roofline's precision remedy, not in MFU. An op whose kernels do not say (a generic "gemm") keeps
// the peak its input type could use: TF32 for float32 TC-eligible ops.
std::string fp32_gemm_trace(const std::string& gpu, const std::string& kernel) {
  TraceBuilder t;
  t.device(0, gpu, 8, 0, 40000000000, 108);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 100, 1, 1,
       R"("Input Dims": [[1024, 1024], [1024, 1024]], "Input type": ["float", "float"])");
  t.launch(kernel, 20, 100, 50, 1);
  return t.json();
}

// The FLOPs and the roofline's costs are computed once per call key (an op's name and its argument
// texts) and reused: three convolutions of one shape, two with stride 2 (ShapeFlops above: 1,769,472
// + 32,768 for the bias) and one with stride 1 (output 32 x 32: 2 x 8 x 16 x 1024 x 27 + 8 x 16 x 1024
// = 7,208,960), each costed by its own scalars.
TEST(Compute, CallsOfOneShapeWithOtherScalarsAreCostedApart) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40000000000, 108);
  t.step(1, 0, 1000);
  const std::string shapes =
      R"("Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [16]], "Input type": ["float", "float", "float"], )";
  const std::string stride2 = R"("Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"])";
  const std::string stride1 = R"("Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"])";
  t.op("aten::conv2d", 10, 100, 1, 1, shapes + stride2);
  t.launch("implicit_convolve_sgemm", 20, 120, 50, 1);
  t.op("aten::conv2d", 300, 100, 2, 1, shapes + stride1);
  t.launch("implicit_convolve_sgemm", 310, 420, 50, 2);
  t.op("aten::conv2d", 600, 100, 3, 1, shapes + stride2);
  t.launch("implicit_convolve_sgemm", 610, 720, 50, 3);
  WorkerAnalysis w = analyse_json(t.json());
  const double expected = 2 * (1769472.0 + 32768) + 7208960.0;
  ASSERT_FALSE(w.tables.ops.empty());
  EXPECT_DOUBLE_EQ(w.tables.ops.front().flops, expected);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), expected);
  ASSERT_FALSE(w.tables.roofline.empty());
  EXPECT_EQ(w.tables.roofline.front().calls, 3u);
  EXPECT_EQ(w.tables.roofline.front().flop, static_cast<std::uint64_t>(expected));
}

TEST(Compute, ThePeakIsThePrecisionTheKernelsRanIn) {
  const double flops = 2.0 * 1024 * 1024 * 1024;
  WorkerAnalysis tc = analyse_json(fp32_gemm_trace(
      "NVIDIA A100-SXM4-40GB", "sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4_kernel"));
  WorkerAnalysis plain = analyse_json(fp32_gemm_trace("NVIDIA A100-SXM4-40GB", "ampere_sgemm_128x64_nn"));
  ASSERT_GT(*tc.metrics.get(Metric::TensorCoreKernelTimePct), 0);
  ASSERT_EQ(*plain.metrics.get(Metric::TensorCoreKernelTimePct), 0);
  EXPECT_NEAR(*tc.metrics.get(Metric::ComputeMfuPct), 100.0 * (flops / 156e12) / 1e-3, 1e-9);      // 1.3766%
  EXPECT_NEAR(*plain.metrics.get(Metric::ComputeMfuPct), 100.0 * (flops / 19.5e12) / 1e-3, 1e-9);  // 11.01%
  WorkerAnalysis unsaid = analyse_json(fp32_gemm_trace("NVIDIA A100-SXM4-40GB", "gemm_kernel"));
  EXPECT_NEAR(*unsaid.metrics.get(Metric::ComputeMfuPct), *tc.metrics.get(Metric::ComputeMfuPct), 1e-12);
  // A V100 has no TF32: its float32 matmuls compare with the FP32 peak, 15.7 TFLOP/s: 13.678%.
  WorkerAnalysis v100 = analyse_json(fp32_gemm_trace("Tesla V100-SXM2-16GB", "volta_sgemm_128x64_nn"));
  EXPECT_NEAR(*v100.metrics.get(Metric::ComputeMfuPct), 100.0 * (flops / 15.7e12) / 1e-3, 1e-9);
}

// An op that cannot use Tensor Cores (not TC-eligible) compares with the peak of its type on the
// CUDA cores: aten::mul in float32 with the trace's count of 1e9 FLOPs on an A100:
// (1e9 / 19.5e12) / 1 ms = 5.128%.
TEST(Compute, OpsThatCannotUseTensorCoresGetTheirTypesPlainPeak) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40000000000, 108);
  t.step(1, 0, 1000)
      .op("aten::mul", 10, 100, 1, 1,
          R"("Input Dims": [[4, 4], [4, 4]], "Input type": ["float", "float"], "flops": 1000000000)");
  t.launch("vectorized_elementwise_kernel", 20, 100, 50, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMfuPct), 100.0 * (1e9 / 19.5e12) / 1e-3, 1e-9);
}

TEST(Compute, TheTracesOwnCountComesFirstAndUnknownGpusHaveNoMfu) {
  TraceBuilder t;
  t.device(0, "Some Future GPU", 12, 0, 1, 1);
  t.step(1, 0, 1000)
      .op("aten::mm", 10, 50, 1, 1,
          R"("Input Dims": [[4, 4], [4, 4]], "Input type": ["float", "float"], "flops": 1000000)");
  t.launch("gemm", 11, 20, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 1e6);
  EXPECT_FALSE(w.metrics.get(Metric::ComputeMfuPct));
  // Issue 29, item 4: MFU says why it has no value: the GPU's peak is unknown, not the coverage
  // (which is complete here).
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputePeakKnownPct), 0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100);
  ReportModel report = report_of_json(t.json(), default_book());
  EXPECT_EQ(mfu_text(report.metrics),
            "n/a (no peak TFLOP/s is known for these GPUs: add them to the rules' gpu_peaks)");
  ReportModel a100 = report_of_json(gemm_trace(), default_book());
  EXPECT_DOUBLE_EQ(*a100.metrics.get(Metric::ComputePeakKnownPct), 100);
  EXPECT_EQ(mfu_text(a100.metrics), format_pct(a100.metrics.get(Metric::ComputeMfuPct)));
}

// Issue 14, item 6: FLOPs known for 0.1% of the eligible ops' device time made "MFU 0.0%" and
// "0.00221 TFLOP/s". The gemm trace plus an eligible aten::bmm without shapes whose kernel runs
// 49,950 us: coverage 50 / (50 + 49950) = 0.1%, under the default 50% (rules: compute).
TEST(Compute, MfuIsNotApplicableBelowTheFlopCoverageThreshold) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40000000000, 108);
  t.step(1, 0, 100000);
  t.op("aten::mm", 10, 100, 1, 1,
       R"("Input Dims": [[1024, 1024], [1024, 1024]], "Input type": ["c10::Half", "c10::Half"])");
  t.launch("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", 20, 100, 50, 1);
  t.op("aten::bmm", 200, 100, 2, 1);
  t.launch("ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_nn", 210, 300, 49950, 2);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100.0 * 50 / 50000);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 2.0 * 1024 * 1024 * 1024);
  EXPECT_FALSE(w.metrics.get(Metric::ComputeMfuPct));
  EXPECT_FALSE(w.metrics.get(Metric::ComputeTflopsAchieved));
  // The threshold is data: a rule file that lowers it to 0 gets the numbers back.
  std::string rules =
      write_text(temp_dir() + "/coverage0.yaml",
                 "schema: perfgate-rules/1\nextends: default\ncompute:\n  mfu_min_flops_coverage_pct: 0\n");
  WorkerAnalysis all = analyse_json(t.json(), {}, {rules});
  EXPECT_NEAR(*all.metrics.get(Metric::ComputeMfuPct), 100.0 * (2.0 * 1024 * 1024 * 1024 / 312e12) / 0.1,
              1e-9);
  // The terminal says n/a, with the coverage (the other outputs read the same null metric).
  CommandResult r = run_perfgate("analyze --verbose " +
                                 write_text(temp_dir() + "/low_coverage.json", t.json()) + " --no-progress");
  EXPECT_NE(r.out.find("MFU n/a"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MFU 0.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FLOP coverage 0.1%"), std::string::npos) << r.out;
}

// Issue 72, item 7: FLOP coverage counted a bottom matrix op as known only from its own subtree,
// so that aten::_flash_attention_forward, under the _scaled_dot_product_flash_attention that
// counts its FLOPs, was "the largest unmodelled" (h100_llm_inference_slice: coverage 76.8%, while
// the roofline's matrix coverage of the same work was 100%). One step [0, 1000] us on an H100:
// scaled_dot_product_attention [10, 200] (no shapes) > _scaled_dot_product_flash_attention [20, 180]
// (q, k, v [16, 16, 559, 64] BF16) > _flash_attention_forward [30, 160], which launches (call at 40)
// the 400-us flash kernel [100, 500]. Its FLOPs, 4 x 16 x 16 x 559 x 559 x 64 (two GEMMs of
// 2·B·H·S·S·D), sit on the middle op; the bottom op's time is covered: 100%, none unmodelled.
TEST(FlopCoverage, AnOpUnderACountedParentIsCovered) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.step(1, 0, 1000);
  t.op("aten::scaled_dot_product_attention", 10, 190, 1);
  t.op("aten::_scaled_dot_product_flash_attention", 20, 160, 2, 1,
       R"("Input Dims": [[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], []], )"
       R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  t.op("aten::_flash_attention_forward", 30, 130, 3);
  t.launch(
      "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
      "cutlass::bfloat16_t>, false, false, false, false, true, true, false>(Flash_fwd_params)",
      40, 100, 400, 3);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 4.0 * 16 * 16 * 559 * 559 * 64);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100);
  EXPECT_EQ(w.compute.largest_unmodelled, "");
  EXPECT_EQ(w.compute.largest_unmodelled_ns, 0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::RooflineMatrixCoveragePct), 100);
}

TEST(Compute, NotApplicableWithoutShapes) {
  TraceBuilder t;
  t.step(1, 0, 100).op("aten::mm", 10, 50, 1);
  t.launch("gemm", 11, 20, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_FALSE(w.metrics.get(Metric::ComputeFlops));
  EXPECT_FALSE(w.metrics.get(Metric::ComputeTflopsAchieved));
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 0);
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
  EXPECT_EQ(*w.metrics.get(Metric::TensorCoreMisalignedShapes), 1);
  EXPECT_EQ(*w.metrics.get(Metric::TensorCoreEligibleOpsNotUsingTc), 2);  // aten::mm and aten::bmm
}

}  // namespace
}  // namespace perfgate::testing
