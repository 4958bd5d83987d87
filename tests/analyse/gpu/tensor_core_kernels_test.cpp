// Issue 51: Tensor Core kernels by what they compute (Blackwell, FP8, AMD matrix cores, SIMT kernels
// that never are), the precision each ran in, peaks per precision, the inferred architecture as a
// lower bound, and Tensor Core efficiency only where the ops are known.
#include <gtest/gtest.h>

#include "analyse/classifier.h"
#include "render/format.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr const char* kBmmMx =
    "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_"
    "transOut_schedP2x1x2";
constexpr const char* kBmmBf16 =
    "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1";
constexpr const char* kFmha =
    "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext";
constexpr const char* kFfma =
    "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_"
    "execute_"
    "kernel_trt";
constexpr const char* kMatmulOgs = "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu";
constexpr const char* kTensile = "Cijk_Alik_Bljk_BBS_BH_MT64x16x64_MI16x16x1_SN_1LDSB0_APM1";
constexpr const char* kNvjetFp8 = "nvjet_sm90_qqtst_128x128_128x6_2x1_v_bz_coopA_algo2_TNT";
constexpr const char* kQuantize = "fbgemm_gpu::_compute_FP8_quantize_cuda_kernel";
constexpr const char* kSgemm = "volta_sgemm_128x64_nn";

// Step [0,1000]; one op per kernel (us): the B200 MX GEMMs 40 and 20 and FP8 attention 10 (issue 51's
// kernels), an FP32 FFMA GEMM 50 (xmma, but on the SIMT units), MI300X matmul_ogs BF16 x MXFP4 30 and a
// Tensile BBS MFMA GEMM 15, a Hopper FP8 nvjet GEMM 25, an FP8 quantize kernel 5 (FP8, no matrix work)
// and a SIMT SGEMM 5. All kernel time 200; Tensor Core: 40 + 20 + 10 + 30 + 15 + 25 = 140 (70%).
// By precision: mxfp8 40 + 20 = 60, fp8 10 + 25 = 35, bf16 30 + 15 = 45.
std::string mixed_kernels_trace() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  const std::vector<std::pair<const char*, double>> kernels = {
      {kBmmMx, 40},   {kBmmBf16, 20},  {kFmha, 10},    {kFfma, 50}, {kMatmulOgs, 30},
      {kTensile, 15}, {kNvjetFp8, 25}, {kQuantize, 5}, {kSgemm, 5}};
  double at = 10;
  std::int64_t id = 1;
  for (const auto& [name, us] : kernels) {
    t.op("my::op" + std::to_string(id), at, 5, id);
    t.launch(name, at + 1, at + 2, us, id);
    at += us + 10;
    ++id;
  }
  return t.json();
}

const KernelRow& kernel_row(const WorkerAnalysis& w, std::string_view name) {
  const KernelRow* r = find_row(w.tables.kernels, name);
  EXPECT_NE(r, nullptr) << name;
  static const KernelRow none;
  return r ? *r : none;
}

TEST(TensorCoreKernels, ClassifiedByWhatTheyComputeWithTheDecidingPattern) {
  WorkerAnalysis w = analyse_json(mixed_kernels_trace());
  EXPECT_EQ(w.tensor_cores.kernel_ns, 200000);
  EXPECT_EQ(w.tensor_cores.tc_kernel_ns, 140000);
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreKernelTimePct), 100.0 * 140 / 200, 1e-9);
  // The kernels table says which pattern decided each and the precision its name states.
  EXPECT_TRUE(kernel_row(w, kBmmMx).uses_tc);
  EXPECT_EQ(kernel_row(w, kBmmMx).precision, "mxfp8 (MXFP4 x MXFP8)");
  EXPECT_EQ(kernel_row(w, kFmha).precision, "fp8");
  EXPECT_FALSE(kernel_row(w, kFfma).uses_tc);
  EXPECT_EQ(kernel_row(w, kFfma).tc_rule, "simt: _ffma_");
  EXPECT_EQ(kernel_row(w, kFfma).precision, "fp32");
  EXPECT_EQ(kernel_row(w, kMatmulOgs).precision, "bf16 (BF16 x MX weights)");
  EXPECT_EQ(kernel_row(w, kTensile).precision, "bf16");
  EXPECT_EQ(kernel_row(w, kNvjetFp8).tc_rule, "wgmma|nvjet");
  // And that entry's source in rules/default.yaml (issue 76).
  EXPECT_EQ(kernel_row(w, kNvjetFp8).tc_rule_source,
            "Hopper warpgroup MMA kernels; cuBLASLt nvjet GEMM kernels (Hopper/Blackwell)");
  EXPECT_EQ(kernel_row(w, kFfma).tc_rule_source.substr(0, 36), "cuBLAS/cuDNN xmma FFMA kernels: FP32");
  EXPECT_EQ(kernel_row(w, kNvjetFp8).precision, "fp8");
  EXPECT_FALSE(kernel_row(w, kQuantize).uses_tc);
  EXPECT_EQ(kernel_row(w, kQuantize).tc_rule, "");
  EXPECT_EQ(kernel_row(w, kQuantize).tc_rule_source, "");
  EXPECT_EQ(kernel_row(w, kQuantize).precision, "");  // an FP8 name, but no matrix work
  EXPECT_FALSE(kernel_row(w, kSgemm).uses_tc);
  EXPECT_EQ(kernel_row(w, kSgemm).precision, "fp32");
  // Tensor Core time by precision.
  const auto& by = w.tensor_cores.tc_kernel_ns_by_precision;
  EXPECT_EQ(by.at("mxfp8"), 60000);
  EXPECT_EQ(by.at("fp8"), 35000);
  EXPECT_EQ(by.at("bf16"), 45000);
  EXPECT_EQ(by.size(), 3u);
}

// The plugin's list has no SIMT exclusions: its xmma_gemm counts the FFMA GEMM (50 of 200), and it
// knows none of the 2026 kernels.
TEST(TensorCoreKernels, ThePluginModeKeepsThePluginsCount) {
  WorkerAnalysis w = analyse_json(mixed_kernels_trace(), {}, {"tb-plugin"});
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreKernelTimePct), 100.0 * 50 / 200, 1e-9);
}

// The report's table of Tensor Core time by precision: 60, 45 and 35 us of the 140 (and of all 200).
TEST(TensorCoreKernels, TheReportListsTensorCoreTimeByPrecision) {
  ReportModel report = report_of_json(mixed_kernels_trace(), default_book());
  const ReportTable* t = find_table(report.tables, "tc_precisions");
  if (!t && !report.workers.empty()) t = find_table(report.workers[0].tables, "tc_precisions");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_EQ(std::get<std::string>(t->rows[0][0]), "mxfp8");
  EXPECT_NEAR(std::get<double>(t->rows[0][1]), 60, 1e-9);
  EXPECT_NEAR(std::get<double>(t->rows[0][2]), 100.0 * 60 / 140, 1e-9);
  EXPECT_NEAR(std::get<double>(t->rows[0][3]), 100.0 * 60 / 200, 1e-9);
  EXPECT_EQ(std::get<std::string>(t->rows[1][0]), "bf16");
  EXPECT_EQ(std::get<std::string>(t->rows[2][0]), "fp8");
}

// nsys 2026 exports name no GPU: sm80_ FFMA GEMMs say "sm 8.0 or newer", never "Ampere" alone.
TEST(TensorCoreKernels, AnInferredArchitectureIsALowerBound) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.launch(kFfma, 10, 100, 500);
  ReportModel report = report_of_json(t.json(), default_book());
  ASSERT_EQ(report.gpus.size(), 1u);
  EXPECT_EQ(gpu_architecture_text(report.gpus[0]),
            " (Ampere or newer, sm 8.0 or newer, inferred from kernel names)");
  EXPECT_DOUBLE_EQ(*report.metrics.get(Metric::TensorCoreKernelTimePct), 0);
}

// A graph replay without its capture: 90 of the 100 us of kernels have no op, so whether they were
// eligible cannot be judged: efficiency is n/a (it would read 100% over the 10 us of aten::mm).
TEST(TensorCoreKernels, EfficiencyIsNotApplicableWhereOpsAreUnknown) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 20, 1).launch(kNvjetFp8, 11, 100, 10, 1);
  t.kernel(kMatmulOgs, 200, 90, 999);  // no runtime call launched it in the trace
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreJudgedKernelTimePct), 100.0 * 10 / 100, 1e-9);
  EXPECT_FALSE(w.metrics.get(Metric::TensorCoreEfficiencyPct));
  EXPECT_NEAR(*w.metrics.get(Metric::TensorCoreKernelTimePct), 100, 1e-9);
  // The threshold is data: at 0 the efficiency over the known 10 us is back.
  std::string rules =
      write_text(temp_dir() + "/judged0.yaml",
                 "schema: perfgate-rules/1\nextends: default\ncompute:\n  tensor_core_min_judged_pct: 0\n");
  WorkerAnalysis all = analyse_json(t.json(), {}, {rules});
  EXPECT_NEAR(*all.metrics.get(Metric::TensorCoreEfficiencyPct), 100, 1e-9);
}

// Dense peaks per precision, FP6 and FP4 where the hardware has them (rules: gpu_peaks).
TEST(TensorCoreKernels, PeaksPerPrecisionForTheGpusOf2026) {
  CompiledClassification c(default_classification());
  auto peak = [&](std::string_view device, std::string_view precision) -> std::optional<double> {
    const GpuPeak* p = c.gpu_peak(device);
    return p ? p->peak(precision) : std::nullopt;
  };
  EXPECT_EQ(peak("NVIDIA B200", "fp4"), 9000);
  EXPECT_EQ(peak("NVIDIA B200", "fp6"), 4500);
  EXPECT_EQ(peak("NVIDIA GB200", "fp4"), 10000);
  EXPECT_EQ(peak("AMD Instinct MI355X", "fp4"), 10066.3);
  EXPECT_EQ(peak("AMD Instinct MI355X", "fp8"), 5033.2);
  EXPECT_FALSE(peak("AMD Instinct MI355X", "tf32"));
  EXPECT_EQ(peak("AMD Instinct MI350X", "bf16"), 2306.9);
  EXPECT_EQ(peak("AMD Instinct MI325X", "fp8"), 2614.9);
  EXPECT_EQ(c.gpu_peak("AMD Instinct MI325X")->memory_gbps, 6000);
  EXPECT_FALSE(peak("NVIDIA H100 80GB HBM3", "fp4"));  // Hopper has no FP4
}

// One 1 ms step on an H100 SXM: an FP8 _scaled_mm [1024, 1024] x [1024, 1024] (2^31 FLOPs) that ran
// nvjet qq (FP8, 1978.9 TFLOP/s) and a float32 mm of the same size that ran an FFMA GEMM (FP32 on the
// SIMT units, 67 TFLOP/s: not the TF32 peak it could have used). MFU against the mix it ran:
// (2^31 / 1978.9e12 + 2^31 / 67e12) / 1 ms.
TEST(TensorCoreKernels, MfuIsAgainstThePrecisionsTheOpsRanIn) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80000000000, 132);
  t.step(1, 0, 1000);
  t.op(
      "aten::_scaled_mm", 10, 100, 1, 1,
      R"("Input Dims": [[1024, 1024], [1024, 1024], [], []], "Input type": ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float"])");
  t.launch(kNvjetFp8, 20, 100, 50, 1);
  t.op("aten::mm", 200, 100, 2, 1,
       R"("Input Dims": [[1024, 1024], [1024, 1024]], "Input type": ["float", "float"])");
  t.launch(kFfma, 210, 300, 50, 2);
  WorkerAnalysis w = analyse_json(t.json());
  const double f = 2.0 * 1024 * 1024 * 1024;
  EXPECT_NEAR(w.compute.ideal_seconds_by_precision.at("fp8"), f / 1978.9e12, 1e-15);
  EXPECT_NEAR(w.compute.ideal_seconds_by_precision.at("fp32"), f / 67e12, 1e-15);
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMfuPct), 100.0 * (f / 1978.9e12 + f / 67e12) / 1e-3, 1e-9);
  // The roofline's precision column names what each ran in.
  for (const RooflineRow& r : w.tables.roofline)
    EXPECT_EQ(r.precision, r.name == "aten::mm" ? "fp32" : "fp8") << r.name;
}

}  // namespace
}  // namespace perfgate::testing
