// Issue 72, build item 6 (what is already applied, and the framework): advice for the state the
// trace shows, on hand-built traces. SDPA already called: ops.far-from-roofline names what comes
// after it (the backend SDPA chose, FP8 attention on Hopper), not SDPA. Mixed precision already on
// (GradScaler's ops, or BF16 Tensor Core kernels): the FP32 ops left are outside autocast, not a
// reason to enable it. A TensorRT engine's kernels: TensorRT's remedies, not torch.compile's. Kernels
// TorchInductor generated: what comes after torch.compile (reduce-overhead, graph breaks).
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

bool says(const std::string& text, std::string_view what) {
  return text.find(what) != std::string::npos;
}

const ReportFinding& fired(const ReportModel& report, std::string_view id) {
  const ReportFinding* f = find_finding(report, id);
  EXPECT_TRUE(f && (f->status == FindingStatus::Warn || f->status == FindingStatus::Fail)) << id;
  static const ReportFinding kNone;
  return f ? *f : kNone;
}

ReportModel gated(const TraceBuilder& t) {
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

// One 1 ms step on an H100: an aten::add of two [4096, 4096] BF16 tensors whose kernel runs 900 us
// [50, 950], far below its memory roofline (ops.far-from-roofline fires); with `sdpa`, also
// aten::scaled_dot_product_attention [100, 140] over aten::_scaled_dot_product_flash_attention [105,
// 135] that launches a FlashAttention kernel [955, 975]: two fused-attention calls.
TraceBuilder attention_trace(bool sdpa) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.step(1, 0, 1000);
  t.op("aten::add", 10, 30, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096], []], )"
       R"("Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  t.launch("vectorized_elementwise_kernel", 12, 50, 900, 1);
  if (sdpa) {
    t.op("aten::scaled_dot_product_attention", 100, 40, 2, 1);
    t.op("aten::_scaled_dot_product_flash_attention", 105, 30, 3, 1);
    t.launch("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>", 110, 955, 20,
             3);
  }
  return t;
}

TEST(AppliedStateAdvice, SdpaAlreadyUsedGetsWhatComesNext) {
  ReportModel with = gated(attention_trace(true));
  ASSERT_TRUE(with.metric(Metric::OpsFusedAttentionCalls));
  EXPECT_EQ(*with.metric(Metric::OpsFusedAttentionCalls), 2);
  const ReportFinding& f = fired(with, "ops.far-from-roofline");
  EXPECT_TRUE(says(f.recommendation, "scaled_dot_product_attention already runs (2 calls)"))
      << f.recommendation;
  EXPECT_TRUE(says(f.recommendation, "FlashAttention-3 or cuDNN attention, in FP8")) << f.recommendation;
  EXPECT_TRUE(says(f.recommendation, "beside the SDPA calls the model already makes")) << f.recommendation;
  EXPECT_FALSE(says(f.recommendation, "whose flash and memory-efficient kernels never write them"));

  ReportModel without = gated(attention_trace(false));
  ASSERT_TRUE(without.metric(Metric::OpsFusedAttentionCalls));
  EXPECT_EQ(*without.metric(Metric::OpsFusedAttentionCalls), 0);
  const ReportFinding& g = fired(without, "ops.far-from-roofline");
  EXPECT_TRUE(says(g.recommendation, "use torch.nn.functional.scaled_dot_product_attention, whose flash"))
      << g.recommendation;
  EXPECT_FALSE(says(g.recommendation, "already runs")) << g.recommendation;
}

// One 1 ms step on an A100: an FP32 aten::mm [10, 20] whose SIMT kernel runs [50, 550] (no Tensor
// Core: tensor-cores.eligible-ops fires on its FP32 inputs). `scaler`: GradScaler's two ops after it
// (unscale [600, 10], update [620, 10]); `bf16`: a BF16 aten::mm [700, 20] on a BF16 Tensor Core
// kernel [720, 900], all of the Tensor Core time (compute.bf16_pct 100).
TraceBuilder fp32_mm_trace(bool scaler, bool bf16) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80 * kGiB, 108);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 20, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["float", "float"])");
  t.launch("ampere_sgemm_128x64_nn", 12, 50, 500, 1);
  if (scaler) {
    t.op("aten::_amp_foreach_non_finite_check_and_unscale_", 600, 10, 2, 1);
    t.op("aten::_amp_update_scale_", 620, 10, 3, 1);
  }
  if (bf16) {
    t.op("aten::mm", 700, 20, 4, 1,
         R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
    t.launch(
        "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_"
        "kernel",
        705, 720, 200, 4);
  }
  return t;
}

TEST(AppliedStateAdvice, MixedPrecisionAlreadyOnIsNotAdvisedAgain) {
  ReportModel plain = gated(fp32_mm_trace(false, false));
  EXPECT_EQ(plain.metric(Metric::OpsGradScalerCalls), 0);
  const ReportFinding& f = fired(plain, "tensor-cores.eligible-ops");
  // Forward ops alone (offline inference): autocast, and no GradScaler, which scales a training loss.
  EXPECT_TRUE(says(f.recommendation, "run them in BF16 or FP16 with torch.autocast, or allow TF32"))
      << f.recommendation;
  EXPECT_FALSE(says(f.recommendation, "GradScaler")) << f.recommendation;

  ReportModel scaled = gated(fp32_mm_trace(true, false));
  EXPECT_EQ(scaled.metric(Metric::OpsGradScalerCalls), 2);
  const ReportFinding& g = fired(scaled, "tensor-cores.eligible-ops");
  EXPECT_TRUE(says(g.recommendation, "mixed precision already runs with FP16 and a GradScaler"))
      << g.recommendation;
  EXPECT_TRUE(says(g.recommendation, "2 calls")) << g.recommendation;
  EXPECT_FALSE(says(g.recommendation, "with a GradScaler for FP16")) << g.recommendation;

  ReportModel bf16 = gated(fp32_mm_trace(false, true));
  ASSERT_TRUE(bf16.metric(Metric::ComputeBf16Pct));
  EXPECT_NEAR(*bf16.metric(Metric::ComputeBf16Pct), 100, 1e-9);
  const ReportFinding& h = fired(bf16, "tensor-cores.eligible-ops");
  EXPECT_TRUE(says(h.recommendation, "mixed precision already runs in BF16")) << h.recommendation;
  EXPECT_FALSE(says(h.recommendation, "GradScaler")) << h.recommendation;
}

// A TensorRT engine without PyTorch ops: one 10 ms step on an A100, 100 cudaLaunchKernel calls
// [100 i, +90] each launching a 9 us Myelin kernel at 100 i + 91. The GPU is idle 91% of the step,
// the host launching through 90 us of each 91 us gap: launch-bound, in TensorRT's terms.
TraceBuilder engine_trace(const std::string& kernel) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80 * kGiB, 108);
  t.step(1, 0, 10000);
  for (int i = 0; i < 100; ++i)
    t.runtime("cudaLaunchKernel", 100 * i, 90, i + 1).kernel(kernel, 100 * i + 91, 9, i + 1);
  return t;
}

TEST(AppliedStateAdvice, ATensorRtEngineGetsTensorRtsRemedies) {
  ReportModel trt = gated(engine_trace("__myl_bb0_1_AddMulMeaSubMulMeaAddSqrDivMulMulAdd"));
  ASSERT_TRUE(trt.metric(Metric::GpuTensorrtKernelPct));
  EXPECT_NEAR(*trt.metric(Metric::GpuTensorrtKernelPct), 100, 1e-9);
  EXPECT_NEAR(*trt.metric(Metric::GpuIdlePct), 91, 1e-6);
  const ReportFinding& idle = fired(trt, "gpu.idle");
  EXPECT_TRUE(says(idle.recommendation, "between a TensorRT engine's kernels")) << idle.recommendation;
  EXPECT_TRUE(says(idle.recommendation, "trtexec --useCudaGraph")) << idle.recommendation;
  EXPECT_FALSE(says(idle.recommendation, "torch.compile")) << idle.recommendation;

  ReportModel eager = gated(engine_trace("vectorized_elementwise_kernel"));
  EXPECT_NEAR(*eager.metric(Metric::GpuTensorrtKernelPct), 0, 1e-9);
  const ReportFinding& g = fired(eager, "gpu.idle");
  EXPECT_TRUE(says(g.recommendation, "capture the step with CUDA graphs (torch.compile")) << g.recommendation;
}

// The same launch-bound step with TorchInductor's kernels (triton_poi_fused_add_cos_sin_0, as
// a100_triton's): torch.compile already runs, so the advice is what comes after it - its CUDA-graph
// mode and the graph breaks - never "capture the step with CUDA graphs (torch.compile ...)".
TEST(AppliedStateAdvice, CompiledKernelsGetWhatComesAfterTorchCompile) {
  ReportModel compiled = gated(engine_trace("triton_poi_fused_add_cos_sin_0"));
  ASSERT_TRUE(compiled.metric(Metric::KernelsCompiledPct));
  EXPECT_NEAR(*compiled.metric(Metric::KernelsCompiledPct), 100, 1e-9);
  const ReportFinding& idle = fired(compiled, "gpu.idle");
  EXPECT_TRUE(says(idle.recommendation, "torch.compile already runs (100.0% of the kernel time"))
      << idle.recommendation;
  EXPECT_TRUE(says(idle.recommendation, "mode=\"reduce-overhead\"")) << idle.recommendation;
  EXPECT_TRUE(says(idle.recommendation, "TORCH_LOGS=graph_breaks")) << idle.recommendation;
  EXPECT_FALSE(says(idle.recommendation, "capture the step with")) << idle.recommendation;
  for (const ReportFinding& f : compiled.findings)
    if (f.status == FindingStatus::Warn || f.status == FindingStatus::Fail) {
      EXPECT_FALSE(says(f.recommendation, "use torch.compile")) << f.id << ": " << f.recommendation;
      EXPECT_FALSE(says(f.recommendation, "Fuse the small ops: torch.compile"))
          << f.id << ": " << f.recommendation;
    }
}

}  // namespace
}  // namespace perfgate::testing
