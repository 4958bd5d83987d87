// The per-op performance model (perf_model.h) and the roofline table (roofline.h): FLOPs and bytes
// of each model family from hand-written shapes, and a hand-built H100 trace's rows, bound and % of
// roofline, with the arithmetic in the comments.
#include <gtest/gtest.h>

#include "analyse/classifier.h"
#include "analyse/gpu/perf_model.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::optional<OpCost> cost(const std::string& model, std::string_view op, const std::vector<Dims>& dims,
                           const std::vector<std::string>& types,
                           const std::vector<std::string>& scalars = {}, double per_element = 1) {
  OpModelPattern m;
  m.model = model;
  m.flops_per_element = per_element;
  return op_cost(m, OpCall{op, dims, types, scalars, nullptr});
}

void expect_cost(const std::optional<OpCost>& c, double flop, double bytes) {
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->flop, flop);
  ASSERT_TRUE(c->bytes);
  EXPECT_DOUBLE_EQ(*c->bytes, bytes);
}

const std::vector<std::string> kBf16x3 = {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"};

TEST(PerfModel, GemmsReadBothMatricesAndTheBiasAndWriteTheProduct) {
  // addmm(bias [1024], A [64, 512], B [512, 1024]) in BF16: 2 x 64 x 1024 x 512 = 67,108,864 FLOPs
  // plus 64 x 1024 = 65,536 for the bias; bytes (32,768 + 524,288 + 65,536 output + 1,024 bias) x 2.
  expect_cost(cost("gemm", "aten::addmm", {{1024}, {64, 512}, {512, 1024}}, kBf16x3), 67174400.0, 1247232.0);
  // FP8 _scaled_mm [128, 256] x [256, 512]: 2 x 128 x 512 x 256 = 33,554,432 FLOPs; inputs 1 byte
  // each (32,768 + 131,072), the product written in 16 bits (65,536 x 2).
  expect_cost(cost("gemm", "aten::_scaled_mm", {{128, 256}, {256, 512}, {}, {}},
                   {"c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float"}),
              33554432.0, 294912.0);
  EXPECT_FALSE(cost("gemm", "aten::mm", {{64, 32}}, {"float"}));  // one operand: no shape
  // No element types recorded: FLOPs, but no bytes.
  auto untyped = cost("gemm", "aten::mm", {{64, 32}, {32, 16}}, {});
  ASSERT_TRUE(untyped);
  EXPECT_FALSE(untyped->bytes);
}

TEST(PerfModel, ConvolutionsForwardAndEachGradientOutputMaskAsksFor) {
  // conv2d [8, 3, 32, 32] * [16, 3, 3, 3] + bias [16], stride 2, padding 1, in FP32: output
  // 8 x 16 x 16 x 16 = 32,768; FLOPs 2 x 32,768 x 27 + 32,768 = 1,802,240; bytes (24,576 input +
  // 432 weight + 16 bias + 32,768 output) x 4 = 231,168.
  std::vector<std::string> f32 = {"float", "float", "float"};
  expect_cost(cost("conv", "aten::conv2d", {{8, 3, 32, 32}, {16, 3, 3, 3}, {16}}, f32,
                   {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"}),
              1802240.0, 231168.0);
  // Its backward with the input and weight gradients: twice 1,769,472 FLOPs; each reads grad_output
  // and the other operand and writes its own: 2 x (32,768 + 432 + 24,576) x 4 = 462,208 bytes.
  std::vector<std::string> mask(10, "");
  mask.push_back("[True, True, False]");
  expect_cost(
      cost("conv", "aten::convolution_backward", {{8, 16, 16, 16}, {8, 3, 32, 32}, {16, 3, 3, 3}}, f32, mask),
      3538944.0, 462208.0);
}

TEST(PerfModel, AttentionForwardHalvedWhenCausalAndBackward) {
  // Flash attention, q k v [2, 4, 128, 64] in BF16, is_causal (argument 4) True: half of
  // 2 x 8 x 128 x 128 x 128 = 16,777,216 FLOPs; Q, K, V read and O written: 4 x 65,536 x 2 bytes.
  std::vector<Dims> qkv = {{2, 4, 128, 64}, {2, 4, 128, 64}, {2, 4, 128, 64}};
  expect_cost(cost("attention", "aten::_scaled_dot_product_flash_attention", qkv, kBf16x3,
                   {"", "", "", "0.0", "True"}),
              16777216.0, 524288.0);
  // Backward (dO, q, k, v), not causal: 2 x 8 x 128 x 128 x (3 x 64 + 2 x 64) = 83,886,080 FLOPs;
  // Q, K, V, O and dO read, dQ, dK, dV written: 8 x 65,536 x 2 bytes.
  std::vector<Dims> backward = {{2, 4, 128, 64}, qkv[0], qkv[1], qkv[2]};
  expect_cost(cost("attention", "aten::_scaled_dot_product_flash_attention_backward", backward,
                   {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16"}),
              83886080.0, 1048576.0);
}

TEST(PerfModel, ElementwiseReadEachInputOnceAndWriteTheOutput) {
  // mul [16, 1024] x [1024] in BF16: 16,384 outputs, one FLOP each; the broadcast input is read
  // once: (16,384 + 1,024 + 16,384) x 2 = 67,584 bytes.
  expect_cost(cost("binary", "aten::mul", {{16, 1024}, {1024}}, {"c10::BFloat16", "c10::BFloat16"}), 16384.0,
              67584.0);
  // A Python number has no bytes: (16,384 read + 16,384 written) x 4.
  expect_cost(cost("binary", "aten::mul", {{16, 1024}, {}}, {"float", "Scalar"}), 16384.0, 131072.0);
  expect_cost(cost("unary", "aten::relu", {{1000}}, {"float"}), 1000.0, 8000.0);
  // copy_(bf16 destination, fp32 source): 1,024 x 4 read, 1,024 x 2 written, no FLOPs.
  expect_cost(cost("copy", "aten::copy_", {{1024}, {1024}}, {"c10::BFloat16", "float"}, {}, 0), 0.0, 6144.0);
  EXPECT_FALSE(cost("binary", "aten::mul", {{3, 4}, {5}}, {"float", "float"}));  // does not broadcast
}

// Issue 72 (plan 1.2): fill_ and zero_ were counted as read and written, 2n bytes, and ResNet-50's
// fill_ rows reached 161% of the V100's bandwidth. They write each element and read none.
TEST(PerfModel, FillWritesEachElementAndReadsNone) {
  // fill_ of [512, 512, 3, 3] FP32 with a Python number: 2,359,296 elements x 4 bytes written.
  expect_cost(cost("fill", "aten::fill_", {{512, 512, 3, 3}, {}}, {"float", "Scalar"}), 2359296.0, 9437184.0);
  expect_cost(cost("fill", "aten::zero_", {{1024}}, {"c10::BFloat16"}), 1024.0, 2048.0);
  // The default rules give them that model (before: unary), and masked_fill_ keeps its own.
  CompiledClassification c(default_classification());
  for (const char* op : {"aten::fill_", "aten::zero_"}) {
    ASSERT_NE(c.op_model(op), nullptr) << op;
    EXPECT_EQ(c.op_model(op)->model, "fill") << op;
  }
  ASSERT_NE(c.op_model("aten::masked_fill_"), nullptr);
  EXPECT_EQ(c.op_model("aten::masked_fill_")->model, "binary");
}

TEST(PerfModel, ReductionsSoftmaxAndNorms) {
  // sum over dim 1 of [32, 128] FP32: 4,096 FLOPs; 4,096 read and 32 written: 16,512 bytes.
  expect_cost(cost("reduce", "aten::sum", {{32, 128}}, {"float"}, {"", "[1]", "False"}), 4096.0, 16512.0);
  // An empty dim list reduces every dim (h200_precision_mix's sum.dim_IntList, dim "[]"): 4,096
  // read and 1 written, 16,388 bytes (before: no dim reduced, 4,096 written, 32,768 bytes).
  expect_cost(cost("reduce", "aten::sum", {{32, 128}}, {"float"}, {"", "[]", "False", ""}), 4096.0, 16388.0);
  expect_cost(cost("reduce", "aten::mean", {{32, 128}}, {"float"}, {"", " [] ", "False"}), 4096.0, 16388.0);
  // softmax of [32, 128] BF16, 3 FLOPs an element: 12,288; read and written: 16,384 bytes;
  // its backward twice that (TraceLens).
  expect_cost(cost("softmax", "aten::_softmax", {{32, 128}}, {"c10::BFloat16"}, {}, 3), 12288.0, 16384.0);
  expect_cost(cost("softmax_backward", "aten::_softmax_backward_data", {{32, 128}, {32, 128}},
                   {"c10::BFloat16", "c10::BFloat16"}, {}, 3),
              24576.0, 32768.0);
  // native_layer_norm of [32, 128] over [128], with weight and bias, BF16 (TraceLens's
  // Normalization, training): FLOPs 3 x 128 + 3 x 4,096 + 3 x 128 + 2 x 4,096 = 21,248; bytes
  // (4,096 read + 4,096 written + 6 per-channel tensors x 128) x 2 = 17,920.
  expect_cost(cost("layer_norm", "aten::native_layer_norm", {{32, 128}, {}, {128}, {128}},
                   {"c10::BFloat16", "", "c10::BFloat16", "c10::BFloat16"}, {"", "[128]"}),
              21248.0, 17920.0);
  // rms_norm of [32, 128] over [128] with a weight, FP32: 32 rows x (2 x 128 + 2) + 4,096 x 2 =
  // 16,448 FLOPs; (4,096 + 4,096 + 128) x 4 = 33,280 bytes.
  expect_cost(
      cost("rms_norm", "aten::rms_norm", {{32, 128}, {}, {128}}, {"float", "", "float"}, {"", "[128]"}),
      16448.0, 33280.0);
  // native_batch_norm of [8, 16, 4, 4] (2,048 elements, 16 channels), affine, training, FP32:
  // 3 x 16 + 3 x 2,048 + 3 x 16 + 2 x 2,048 = 10,336 FLOPs; (2 x 2,048 + 6 x 16) x 4 bytes.
  expect_cost(cost("batch_norm", "aten::native_batch_norm", {{8, 16, 4, 4}, {16}, {16}, {16}, {16}},
                   {"float", "float", "float", "float", "float"}, {"", "", "", "", "", "True"}),
              10336.0, 16768.0);
}

// One 1 ms step on an H100 SXM (BF16 peak 989.4 TFLOP/s, FP32 67, memory 3,350 GB/s):
// - aten::mm [4096, 4096] x [4096, 4096] BF16, a 200 us kernel: 2 x 4096^3 = 137,438,953,472 FLOPs
//   = 138.91 us at the peak; 3 x 4096^2 x 2 = 100,663,296 bytes = 30.05 us at the bandwidth:
//   compute-bound, roofline 138.91 us, 69.46% of it.
// - aten::add of two [4096, 4096] BF16 tensors, a 100 us kernel: 16,777,216 FLOPs (0.25 us at the
//   FP32 rate), 100,663,296 bytes (30.05 us): memory-bound, 30.05% of the roofline; its saving
//   (69.95 us) is larger than the mm's (61.09 us), so it comes first.
// - my::custom_op, a 50 us kernel, no model: an unmodelled row.
std::string h100_trace(const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  TraceBuilder t;
  t.device(0, gpu, 9, 0, 80000000000, 132);
  t.step(1, 0, 1000);
  const char* bf16 = R"("Input type": ["c10::BFloat16", "c10::BFloat16"])";
  t.op("aten::mm", 10, 50, 1, 1, std::string(R"("Input Dims": [[4096, 4096], [4096, 4096]], )") + bf16);
  t.launch("sm90_xmma_gemm_bf16bf16_bf16f32", 20, 100, 200, 1);
  t.op("aten::add", 100, 30, 2, 1,
       std::string(R"("Input Dims": [[4096, 4096], [4096, 4096], []], )") +
           R"("Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  t.launch("vectorized_elementwise_kernel", 110, 310, 100, 2);
  t.op("my::custom_op", 150, 30, 3, 1);
  t.launch("my_custom_kernel", 160, 420, 50, 3);
  return t.json();
}

TEST(Roofline, RowsBoundAndShareOfTheRooflineOnAHandBuiltTrace) {
  WorkerAnalysis w = analyse_json(h100_trace());
  const std::vector<RooflineRow>& rows = w.tables.roofline;
  ASSERT_EQ(rows.size(), 3u);
  const RooflineRow& add = rows[0];
  const RooflineRow& mm = rows[1];
  EXPECT_EQ(add.name, "aten::add");
  EXPECT_EQ(mm.name, "aten::mm");
  EXPECT_EQ(rows[2].name, "my::custom_op");
  EXPECT_TRUE(rows[2].family.empty());
  EXPECT_EQ(rows[2].kernel_ns, 50000);
  EXPECT_EQ(mm.input_dims, "[[4096,4096],[4096,4096]]");  // as the trace writes them, compact

  EXPECT_EQ(mm.flop, 137438953472u);
  EXPECT_EQ(mm.bytes, 100663296u);
  EXPECT_TRUE(mm.counted_in_mfu);
  EXPECT_EQ(mm.precision, "bf16");
  EXPECT_GT(mm.compute_ps, mm.memory_ps);  // compute-bound
  EXPECT_NEAR(static_cast<double>(mm.roofline_ps) / 1e6, 137438953472.0 / 989.4e12 * 1e6, 1e-5);
  EXPECT_NEAR(static_cast<double>(mm.roofline_ps) / 1e6 / 200 * 100, 69.455, 1e-3);

  EXPECT_EQ(add.flop, 16777216u);
  EXPECT_EQ(add.bytes, 100663296u);
  EXPECT_FALSE(add.counted_in_mfu);
  EXPECT_EQ(add.precision, "bf16");          // its own type (issue 51), measured against the FP32 vector rate
  EXPECT_GT(add.memory_ps, add.compute_ps);  // memory-bound
  EXPECT_NEAR(static_cast<double>(add.roofline_ps) / 1e6, 100663296.0 / 3350e9 * 1e6, 1e-5);  // 30.049 us

  // The FLOPs MFU counts are the table's: the mm's alone.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), static_cast<double>(mm.flop));
  // Coverage: (200 + 100) / 350 us; GEMM time all modelled.
  EXPECT_NEAR(*w.metrics.get(Metric::RooflineCoveragePct), 100.0 * 300 / 350, 1e-9);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::RooflineMatrixCoveragePct), 100);
  // (138.91 + 30.05) / 300 us = 56.32%.
  double roofline_us = (137438953472.0 / 989.4e12 + 100663296.0 / 3350e9) * 1e6;
  EXPECT_NEAR(*w.metrics.get(Metric::RooflinePct), 100 * roofline_us / 300, 1e-4);
  // At the default target of 50%, only the add saves: 100 - 2 x 30.05 = 39.90 us of the 1 ms window.
  EXPECT_NEAR(*w.metrics.get(Metric::RooflineSavingPct), 100 * (100 - 2 * 100663296.0 / 3350e9 * 1e6) / 1000,
              1e-4);
}

TEST(Roofline, AGpuWithoutPeaksGetsTheModelButNoRooflineAndTheReportSaysWhy) {
  WorkerAnalysis w = analyse_json(h100_trace("Some Future GPU"));
  ASSERT_FALSE(w.tables.roofline.empty());
  for (const RooflineRow& r : w.tables.roofline) EXPECT_FALSE(r.has_roofline) << r.name;
  EXPECT_EQ(w.tables.roofline[0].name, "aten::mm");  // without savings: by kernel time
  EXPECT_EQ(w.tables.roofline[0].flop, 137438953472u);
  EXPECT_FALSE(w.metrics.get(Metric::RooflinePct));
  ReportModel report = report_of_json(h100_trace("Some Future GPU"), default_book());
  EXPECT_NE(report.workers[0].roofline_note.find("No roofline: no entry of rules: gpu_peaks"),
            std::string::npos);
}

TEST(Roofline, EveryOutputShowsIt) {
  ReportModel report = report_of_json(h100_trace(), default_book());
  EXPECT_NE(report.workers[0].roofline_note.find("Ceilings: NVIDIA H100 SXM"), std::string::npos);
  std::string json = render_json(report);
  for (const char* column : {"\"input_dims\"", "\"flop_per_byte\"", "\"tb_per_s\"", "\"roofline_pct\"",
                             "\"roofline_us\"", "\"bound\""})
    EXPECT_NE(json.find(column), std::string::npos) << column;
  std::string page = render_html(report).page;
  EXPECT_NE(page.find("<figure class=\"roofline\">"), std::string::npos);
  EXPECT_NE(page.find("arithmetic intensity (FLOP/byte)"), std::string::npos);
  EXPECT_NE(page.find("bf16 989.4"), std::string::npos);  // the compute ceiling at the dtype used
  std::string markdown = render_markdown(report);
  EXPECT_NE(markdown.find("Roofline"), std::string::npos);
  EXPECT_NE(markdown.find("aten::add"), std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
