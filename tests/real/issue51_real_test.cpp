// Issue 51 on the shared files: the vLLM decode on an MI300X (MXFP4 mixture of experts) against
// TraceLens's CSVs beside it, and the nsys 2026 export of FP32 FFMA GEMMs on H100s.
#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>

#include "engine/analyse_profiles.h"
#include "render/format.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

double model_flop(const WorkerAnalysis& w, std::string_view family) {
  double sum = 0;
  for (const RooflineRow& r : w.tables.roofline)
    if (r.family == family) sum += static_cast<double>(r.flop);
  return sum;
}

// vllm_decode_full with its capture trace. TraceLens (perf_csvs/): MoE_unfused_fwd.csv 24 calls of
// 7.247757312 GFLOP = 173.946 GFLOP; InferenceAttention_fwd.csv 24 x 0.902529024 = 21.661 GFLOP;
// unified_perf_summary.csv 273.610 GFLOP in all (GEMM 77.981, RMSNorm 0.022, which MFU does not count).
// Tensor Core share by an independent script (research/51/ref_tc_classify.py over the JSON): the
// Tensile Cijk GEMMs, _matmul_ogs_*mxfp4* and kernel_unified_attention_2d/3d are 83.6% of kernel time.
TEST(Issue51RealTraces, VllmDecodeMoeAndAttentionAgreeWithTraceLens) {
  std::string trace = shared_reference("serving_graphs/vllm_decode_full/graph_execution.json.gz");
  if (trace.empty()) GTEST_SKIP() << "../shared/references/serving_graphs is absent";
  const Classification& c = default_classification();
  RunAnalysis run = load_and_analyse({trace}, load_options_for(c), c, {}).analysis;
  ASSERT_EQ(run.workers.size(), 1u);
  const WorkerAnalysis& w = run.workers[0];
  EXPECT_NEAR(model_flop(w, "moe") / 173.946175e9, 1, 0.02);
  EXPECT_NEAR(model_flop(w, "serving_attention") / 21.660697e9, 1, 0.02);
  EXPECT_NEAR(w.metrics.get(Metric::ComputeFlops).value_or(0) / (273.610e9 - 0.022e9), 1, 0.02);
  EXPECT_NEAR(w.metrics.get(Metric::TensorCoreKernelTimePct).value_or(-1), 83.6, 0.1);
}

// The same replay trace without its capture (copied alone): research/51 by hand, ops own 286 us of
// the 10,674 us of kernel time (2.68%: the replayed 10,388 us sit in an annotation), so efficiency is
// n/a; the only modelled matrix op is aten::mm (276.678 us) beside 8,644.169 us of replayed Tensor
// Core kernels no op owns: coverage 276.678 / 8,920.847 = 3.10%, and MFU n/a.
TEST(Issue51RealTraces, VllmDecodeWithoutItsCaptureSaysWhatItCannotJudge) {
  std::string trace = shared_reference("serving_graphs/vllm_decode_full/graph_execution.json.gz");
  if (trace.empty()) GTEST_SKIP() << "../shared/references/serving_graphs is absent";
  std::filesystem::path alone = std::filesystem::path(temp_dir()) / "nocap";
  std::filesystem::create_directories(alone);
  std::filesystem::copy_file(trace, alone / "graph_execution.json.gz",
                             std::filesystem::copy_options::overwrite_existing);
  ReportModel report = report_of_files({(alone / "graph_execution.json.gz").string()}, default_book());
  EXPECT_NEAR(report.metric(Metric::TensorCoreJudgedKernelTimePct).value_or(-1), 2.68, 0.01);
  EXPECT_FALSE(report.metric(Metric::TensorCoreEfficiencyPct));
  EXPECT_NEAR(report.metric(Metric::ComputeFlopsCoveragePct).value_or(-1), 3.10, 0.01);
  EXPECT_FALSE(report.metric(Metric::ComputeMfuPct));
  EXPECT_EQ(report.largest_unmodelled_op.rfind("Tensor Core kernels no op owns", 0), 0u)
      << report.largest_unmodelled_op;
}

// SGLang on an MI300X (serving_graphs/sglang_decode and sglang_prefilldecode): TraceLens @182f3616's
// InferenceAttention_fwd.csv (made by research/51, the CSVs are not in ../shared): decode 36 calls of
// 0.53714944 GFLOP = 32 heads x 256 x 2 x 32,785 (128.566 MiB each), prefill 36 x 128.84901888 =
// 32 x 256 x (2 x 15,728,640 - 15,728,640) (300.0 MiB each).
TEST(Issue51RealTraces, SglangServingAttentionAgreesWithTraceLens) {
  for (auto [trace, per_call, mib] :
       {std::tuple{"serving_graphs/sglang_decode/sglang_Qwen3-8B_decode.json.gz", 0.53714944e9, 128.56640625},
        std::tuple{"serving_graphs/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz",
                   128.84901888e9, 300.0}}) {
    std::string path = shared_reference(trace);
    if (path.empty()) GTEST_SKIP() << "../shared/references/serving_graphs is absent";
    const Classification& c = default_classification();
    RunAnalysis run = load_and_analyse({path}, load_options_for(c), c, {}).analysis;
    ASSERT_EQ(run.workers.size(), 1u);
    // One row per layer's op name (decode) or one for all calls (prefill): summed.
    double calls = 0, flop = 0, bytes = 0;
    for (const RooflineRow& r : run.workers[0].tables.roofline)
      if (r.family == "serving_attention") {
        calls += static_cast<double>(r.calls);
        flop += static_cast<double>(r.flop);
        bytes += static_cast<double>(r.bytes);
      }
    EXPECT_EQ(calls, 36) << trace;
    EXPECT_NEAR(flop / 36, per_call, 1) << trace;
    EXPECT_NEAR(bytes / 36 / (1 << 20), mib, 1e-6) << trace;
  }
}

// nsys_2026/h100_2gpu_1s.sqlite: every GEMM is sm80_xmma_gemm_f32f32_..._ffma_... (85.5% of kernel
// time by SQL over CUPTI_ACTIVITY_KIND_KERNEL): FP32 on the SIMT units, so no Tensor Core time; the
// export names no GPU, and sm80_ kernels only bound the architecture below.
TEST(Issue51RealTraces, Nsys2026FfmaGemmsAreNotTensorCoreWork) {
  std::string trace = shared_reference("nsys_2026/h100_2gpu_1s.sqlite");
  if (trace.empty()) GTEST_SKIP() << "../shared/references/nsys_2026 is absent";
  ReportModel report = report_of_files({trace}, default_book());
  EXPECT_DOUBLE_EQ(report.metric(Metric::TensorCoreKernelTimePct).value_or(-1), 0);
  ASSERT_FALSE(report.gpus.empty());
  for (const ReportGpu& g : report.gpus)
    EXPECT_EQ(gpu_architecture_text(g), " (Ampere or newer, sm 8.0 or newer, inferred from kernel names)");
}

}  // namespace
}  // namespace perfgate::testing
