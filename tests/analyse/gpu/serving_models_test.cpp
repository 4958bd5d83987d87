// Issue 51, items 4 and 5: FLOPs and bytes of mixture-of-experts and serving attention ops (TraceLens's
// PerfModel extensions), and a FLOP coverage that counts all matrix work, naming the largest part
// whose FLOPs are not modelled.
#include <gtest/gtest.h>

#include <cmath>

#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr const char* kStep = "execute_2_context_1(sq3sk5sqsq9sqsk15)_generation_1(sq1sk7sqsq1sqsk7)";
constexpr const char* kBf16x4 =
    R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])";

// One vLLM serving step (its execute annotation: context sq 3, sk 5, sqsq 9, sqsk 15; generation
// sq 1, sk 7, sqsq 1, sqsk 7), on one thread:
// - vllm::unified_attention_with_output: Q [4, 8, 16], K and V [4, 2, 16] (BF16): H_Q 8, d_qk = d_v = 16,
//   2 KV heads, kernel 10 us;
// - vllm::moe_forward: hidden [4, 16] (T 4, H 16), router logits [4, 8] (E 8), calling TopK with k 2
//   (unless `topk` is false), kernel _matmul_ogs_..._bf16xbf16xmxfp4_..._swiglu 30 us (gated, 4-bit weights).
std::string serving_trace(bool topk) {
  TraceBuilder t;
  t.annotation(kStep, 0, 1000);
  t.op("vllm::unified_attention_with_output", 10, 50, 1, 1,
       std::string(R"("Input Dims": [[4, 8, 16], [4, 2, 16], [4, 2, 16], [4, 8, 16]], )") + kBf16x4);
  t.launch("kernel_unified_attention_2d", 20, 100, 10, 1);
  t.op("vllm::moe_forward", 100, 100, 2, 1,
       R"("Input Dims": [[4, 16], [4, 8]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  if (topk)
    t.op(
        "TopK", 110, 10, 3, 1,
        R"("Input Dims": [[4, 8], []], "Input type": ["c10::BFloat16", "Scalar"], "Concrete Inputs": ["", "2"])");
  t.launch("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", 130, 200, 30, 2);
  return t.json();
}

const RooflineRow* roofline_row(const WorkerAnalysis& w, std::string_view name) {
  return find_row(w.tables.roofline, name);
}

// Attention: H_Q (d_qk + d_v) (2 c_sqsk - c_sqsq) + 2 H_Q (d_qk + d_v) g_sqsk
//   = 8 x 32 x (30 - 9) + 2 x 8 x 32 x 7 = 5,376 + 3,584 = 8,960 FLOPs.
// Bytes (B = 1, BF16): per query token Q and O (8 x 32) and the current K and V (2 x 32): 320
// elements; per cached token K and V: 64; (3 + 1) x 320 x 2 + ((5 - 3) + (7 - 1)) x 64 x 2 = 3,584.
// MoE, gated, I = H = 16: up 2 x 4 x 2 x 16 x 16 x 2 = 8,192, down 4,096: 12,288 FLOPs.
// Bytes: experts touched E (1 - ((E - k) / E)^T) = 8 (1 - 0.75^4) = 5.46875; weights half a byte:
// up 4 x 16 x 2 + 5.46875 x 2 x 16 x 16 x 0.5 + 4 x 2 x 16 x 2 = 128 + 1,400 + 256 = 1,784;
// down 4 x 2 x 16 x 2 + 5.46875 x 16 x 16 x 0.5 + 4 x 16 x 2 = 256 + 700 + 128 = 1,084: 2,868.
TEST(ServingModels, MixtureOfExpertsAndServingAttentionFromShapesAndTheStep) {
  WorkerAnalysis w = analyse_json(serving_trace(true));
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 8960.0 + 12288.0);
  const RooflineRow* attention = roofline_row(w, "vllm::unified_attention_with_output");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->family, "serving_attention");
  EXPECT_EQ(attention->flop, 8960u);
  EXPECT_EQ(attention->bytes, 3584u);
  const RooflineRow* moe = roofline_row(w, "vllm::moe_forward");
  ASSERT_NE(moe, nullptr);
  EXPECT_EQ(moe->family, "moe");
  EXPECT_EQ(moe->flop, 12288u);
  EXPECT_EQ(moe->bytes, 2868u);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100);
}

// Without the TopK call k is unknown: the op stays unmodelled (never a guessed k), and the coverage
// says so: the attention's 10 us of the 40 us of matrix work, 25%, and the report names the MoE op.
TEST(ServingModels, WithoutTopKTheMoeOpIsUnmodelledAndNamed) {
  WorkerAnalysis w = analyse_json(serving_trace(false));
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 8960.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100.0 * 10 / 40);
  ReportModel report = report_of_json(serving_trace(false), default_book());
  EXPECT_EQ(report.largest_unmodelled_op, "vllm::moe_forward (75.0% of the matrix work's time)");
  // The HTML names it under the roofline.
  EXPECT_NE(
      render_html(report).page.find(
          "the largest matrix work without a FLOP count is vllm::moe_forward (75.0% of the matrix work"),
      std::string::npos);
}

// A graph replay without its capture: aten::mm [64, 64] x [64, 64] (10 us, modelled) beside 90 us
// of Tensor Core kernels that no op owns. Coverage 10 / (10 + 90) = 10%, and the report names them.
TEST(ServingModels, CoverageCountsTensorCoreKernelsNoOpOwns) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 20, 1, 1,
       R"("Input Dims": [[64, 64], [64, 64]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", 11, 100, 10, 1);
  t.kernel("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", 200, 90, 999);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100.0 * 10 / 100);
  ReportModel report = report_of_json(t.json(), default_book());
  EXPECT_EQ(report.largest_unmodelled_op,
            "Tensor Core kernels no op owns (graph replays without their capture trace) (90.0% of the matrix "
            "work's time)");
}

}  // namespace
}  // namespace perfgate::testing
