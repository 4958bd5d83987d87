// Issue 72, items 1 and 2: a kernel's precision from what its op ran in (the op's recorded input
// types) before its name, and the names' grammars (rules: kernel_precisions) read right: hipBLASLt's
// Cijk_..._B_BS_ is BF16 data, not the FP32 of its activation's _HA_S_; CUTLASS's s1688 is an MMA
// shape with FP32 accumulation, not TF32, where the element tokens say bf16 or fp16.
#include <gtest/gtest.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const char* kTensileNew =
    "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_AFC1_GRVWA8_GRVWB8_ISA942_"
    "IU1_K1";
const char* kTensileOld =
    "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI16x16x1_SN_LDSB1_AFC1_GRVWA8_GRVWB8_ISA942_"
    "IU1_K1";
const char* kBf16Mm =
    R"("Input Dims": [[8192, 8192], [8192, 8192]], "Input type": ["c10::BFloat16", "c10::BFloat16"])";

// P1 of the plan: an MI300X (BF16 peak 1,307.4 TFLOP/s, FP32 163.4), one 30 ms step, ten aten::mm
// [8192, 8192] x [8192, 8192] in BF16 (1.0995e12 FLOPs each), each a 2,360 us hipBLASLt kernel
// (465.9 TFLOP/s). At BF16: MFU = 10 x 1.0995e12 / 1307.4e12 s / 30 ms = 28.03%; read as FP32 (the
// name's _HA_S_) it was 224.3%.
std::string mi300x_gemms(const std::string& kernel, const std::string& args = kBf16Mm) {
  TraceBuilder t;
  t.device(0, "AMD Instinct MI300X", 9, 4, 206158430208, 304);
  t.step(1, 0, 30000);
  for (int i = 0; i < 10; ++i) {
    t.op("aten::mm", 100 + 30 * i, 20, i + 1, 1, args);
    t.launch(kernel, 105 + 30 * i, 410 + 2360 * i, 2360, i + 1);
  }
  return t.json();
}

TEST(PrecisionSource, OpTypesDecideOverAHipblasltName) {
  for (const char* kernel : {kTensileNew, kTensileOld}) {
    WorkerAnalysis w = analyse_json(mi300x_gemms(kernel));
    ASSERT_TRUE(w.metrics.get(Metric::ComputeMfuPct)) << kernel;
    EXPECT_NEAR(*w.metrics.get(Metric::ComputeMfuPct), 100.0 * 10 * 1.0995116277760e12 / 1307.4e12 / 0.030,
                0.01);
    const RooflineRow* mm = find_row(w.tables.roofline, "aten::mm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->precision, "bf16");
    EXPECT_DOUBLE_EQ(mm->peak_tflops, 1307.4);
    EXPECT_TRUE(w.invariants.empty()) << note_text(invariant_warning(w.invariants.front()));
  }
}

TEST(PrecisionSource, WhereTheNameContradictsTheTypesTheTypesDecideAndTheReportSaysSo) {
  // A Tensile FP32 name (SB_: S data, Beta) under BFloat16 ops: the ops ran in BF16.
  WorkerAnalysis w =
      analyse_json(mi300x_gemms("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_ISA942"));
  const RooflineRow* mm = find_row(w.tables.roofline, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->precision, "bf16");
  EXPECT_TRUE(has_line(w.warnings,
                       "precision from what the ops ran in: 1.1e+13 FLOPs (100.0%) at bf16 (their "
                       "kernels' names read fp32)"));
  // FP32 ops on a TF32 kernel: the name says more than the types (FP32 inputs on TF32 Tensor
  // Cores) and decides, with no note.
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.step(1, 0, 30000);
  t.op("aten::mm", 100, 20, 1, 1,
       R"("Input Dims": [[8192, 8192], [8192, 8192]], "Input type": ["float", "float"])");
  t.launch(
      "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_"
      "kernel__5x_cublas",
      105, 200, 5000, 1);
  WorkerAnalysis tf32 = analyse_json(t.json());
  EXPECT_EQ(find_row(tf32.tables.roofline, "aten::mm")->precision, "tf32");
  EXPECT_FALSE(has_line(tf32.warnings, "precision from what the ops ran in"));
}

// The names' grammar where the ops recorded no types (rocprofv3, nsys exports, graph replays): the
// kernels table's precision is the name's.
TEST(PrecisionSource, KernelNameGrammarsOnRealNames) {
  struct Case {
    const char* name;
    const char* precision;
  };
  const Case cases[] = {
      // hipBLASLt new form (joined by "_") and old form (concatenated), BF16 in, BF16 out, FP32 compute.
      {kTensileNew, "bf16"},
      {kTensileOld, "bf16"},
      {"Cijk_Ailk_Bljk_BBS_BH_Bias_HAS_SAV_UserArgs_MT16x16x256_MI16x16x1_SN_LDSB0_AFC1", "bf16"},
      {"Cijk_Ailk_Bljk_BBS_BH_MT64x64x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0", "bf16"},
      // FP32 data, non-HPA (S + Beta), old and new joins (mi250_rocm_minitoy's aten::addmm float).
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_ISA90a", "fp32"},
      {"Cijk_Alik_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_ISA942", "fp32"},
      {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0", "fp16"},
      {"Cijk_Alik_Bljk_F8_S_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_ISA942", "fp8"},
      // CUTLASS/cuBLAS: s1688 and s16816 are FP32-accumulate MMA shapes; the element tokens decide.
      {"void "
       "cutlass::Kernel<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_32x1_nn_align8>(cutlass_75_tensorop_"
       "bf16_s1688gemm_bf16_128x128_32x1_nn_align8::Params)",
       "bf16"},
      {"ampere_fp16_s1688gemm_fp16_128x128_ldg8_f2f_stages_32x1_nn", "fp16"},
      {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8", "bf16"},
      {"cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1", "tf32"},  // FP32 elements: TF32
      {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_"
       "kernel__5x_cublas",
       "tf32"},
  };
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.step(1, 0, 10000);
  int i = 0;
  for (const Case& c : cases) {
    t.op("my::matmul", 100 + 20 * i, 10, i + 1);
    t.launch(c.name, 102 + 20 * i, 1000 + 300 * i, 200, i + 1);
    ++i;
  }
  WorkerAnalysis w = analyse_json(t.json());
  for (const Case& c : cases) {
    const KernelRow* k = find_kernel(w.tables.kernels, c.name);
    ASSERT_NE(k, nullptr) << c.name;
    EXPECT_EQ(k->precision, c.precision) << c.name;
  }
}

// P2 of the plan: on an H100, BF16 aten::bmm on cutlass_75_tensorop_bf16_s1688gemm_bf16 and on an
// A100 a Half aten::baddbmm on ampere_fp16_s1688gemm_fp16: 16-bit work, no "precision" remedy
// (whose text says to allow TF32).
TEST(PrecisionSource, S1688IsAnMmaShapeNotTf32) {
  TraceBuilder h100;
  h100.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  h100.step(1, 0, 200000);
  h100.op(
      "aten::bmm", 100, 20, 1, 1,
      R"("Input Dims": [[16, 5185, 64], [16, 64, 5185]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  h100.launch(
      "void "
      "cutlass::Kernel<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_32x1_nn_align8>(cutlass_75_tensorop_"
      "bf16_s1688gemm_bf16_128x128_32x1_nn_align8::Params)",
      105, 200, 150000, 1);
  WorkerAnalysis w = analyse_json(h100.json());
  const RooflineRow* bmm = find_row(w.tables.roofline, "aten::bmm");
  ASSERT_NE(bmm, nullptr);
  EXPECT_EQ(bmm->precision, "bf16");
  EXPECT_DOUBLE_EQ(bmm->peak_tflops, 989.4);

  TraceBuilder a100;
  a100.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, 108);
  a100.step(1, 0, 20000);
  a100.op("aten::baddbmm", 100, 20, 1, 1,
          R"("Input Dims": [[64, 1024, 1024], [64, 1024, 64], [64, 64, 1024], [], []], )"
          R"("Input type": ["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"])");
  a100.launch("ampere_fp16_s1688gemm_fp16_128x128_ldg8_f2f_stages_32x1_nn", 105, 200, 15000, 1);
  WorkerAnalysis a = analyse_json(a100.json());
  const RooflineRow* baddbmm = find_row(a.tables.roofline, "aten::baddbmm");
  ASSERT_NE(baddbmm, nullptr);
  EXPECT_EQ(baddbmm->precision, "fp16");
  EXPECT_DOUBLE_EQ(baddbmm->peak_tflops, 312);
  const ReportModel report = report_of_json(a100.json(), default_book());
  const ReportTable* table = find_table(report.workers[0].tables, Table::Roofline);
  ASSERT_NE(table, nullptr);
  bool seen = false;
  for (std::size_t row = 0; row < table->rows.size(); ++row) {
    if (std::get<std::string>(*find_cell(*table, row, "name")) != "aten::baddbmm") continue;
    seen = true;
    const std::string* remedy = std::get_if<std::string>(find_cell(*table, row, "remedy"));
    EXPECT_TRUE(!remedy || *remedy != "precision") << *remedy;
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// P2 of the plan: on an H100, attention written as aten::bmm [16, 5185, 64] x [16, 64, 5185] (the
// scores), aten::_softmax over [16, 5185, 5185] and aten::bmm [16, 5185, 5185] x [16, 5185, 64]:
// each of the three rows gets the SDPA remedy, not "precision" (the BF16 bmms) or "fusion" (the
// softmax).
TEST(Roofline, UnfusedAttentionChainGetsTheSdpaRemedy) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.step(1, 0, 1210000);
  const char* kernel =
      "void "
      "cutlass::Kernel<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_32x1_nn_align8>(cutlass_75_tensorop_"
      "bf16_"
      "s1688gemm_bf16_128x128_32x1_nn_align8::Params)";
  t.op("aten::bmm", 100, 20, 1, 1,
       R"("Input Dims": [[16, 5185, 64], [16, 64, 5185]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch(kernel, 105, 200, 150000, 1);
  t.op("aten::_softmax", 130, 20, 2, 1,
       R"("Input Dims": [[16, 5185, 5185], [], []], "Input type": ["c10::BFloat16", "Scalar", "Scalar"])");
  t.launch(
      "void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, 10, false, "
      "false>",
      135, 150300, 191000, 2);
  t.op(
      "aten::bmm", 160, 20, 3, 1,
      R"("Input Dims": [[16, 5185, 5185], [16, 5185, 64]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch(kernel, 165, 341400, 150000, 3);
  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* table = find_table(report.workers[0].tables, Table::Roofline);
  ASSERT_NE(table, nullptr);
  std::size_t unfused = 0;
  for (std::size_t row = 0; row < table->rows.size(); ++row) {
    const std::string* remedy = std::get_if<std::string>(find_cell(*table, row, "remedy"));
    EXPECT_TRUE(remedy && *remedy == "unfused-attention")
        << std::get<std::string>(*find_cell(*table, row, "name"));
    unfused += remedy && *remedy == "unfused-attention";
  }
  EXPECT_EQ(unfused, 3u);
}

}  // namespace
}  // namespace perfgate::testing
