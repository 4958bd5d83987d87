// Issue 72, item 10: advice in the terms of the device, the framework and the state the report
// sees. A recommendations entry may name the vendors (`vendors:`) and the workload (`workload:`)
// it is worded for (gate/run_context.h); the default rules use them for ops.far-from-roofline's
// attention backend, memory.underused's batch, and compute.low-mbu on weights already quantized;
// tensor-cores.eligible-ops ignores ops under 1% of the step.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "gate/gate.h"
#include "gate/rules.h"
#include "gate/run_context.h"
#include "support/capture_helpers.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

ReportModel gated(const std::string& json) {
  ReportModel report = report_of_json(json, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

ReportFinding finding(const std::string& json, std::string_view id) {
  ReportModel report = gated(json);
  const ReportFinding* f = find_finding(report, id);
  EXPECT_TRUE(f) << id;
  return f ? *f : ReportFinding{};
}

TEST(RunAdvice, AttentionOnAnMi300xNamesRocmsBackendsNotHoppers) {
  ReportFinding f =
      finding(slow_add_trace("AMD Instinct MI300X", 9, 4, 192 * kGiB, 304), "ops.far-from-roofline");
  EXPECT_EQ(f.status, FindingStatus::Warn) << f.reason;
  EXPECT_FALSE(says(f.recommendation, "Hopper")) << f.recommendation;
  EXPECT_FALSE(says(f.recommendation, "FlashAttention-3")) << f.recommendation;
  EXPECT_TRUE(says(f.recommendation, "AOTriton or Composable Kernel flash attention")) << f.recommendation;
  // An MI250 reports compute capability 9.0, as an H100 does: the vendor decides, not the number.
  ReportFinding mi250 =
      finding(slow_add_trace("AMD Instinct MI250X", 9, 0, 64 * kGiB, 110), "ops.far-from-roofline");
  EXPECT_EQ(mi250.status, FindingStatus::Warn) << mi250.reason;
  EXPECT_FALSE(says(mi250.recommendation, "Hopper")) << mi250.recommendation;
}

TEST(RunAdvice, HoppersAttentionBackendsOnlyOnHopper) {
  ReportFinding h100 =
      finding(slow_add_trace("NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132), "ops.far-from-roofline");
  EXPECT_EQ(h100.status, FindingStatus::Warn) << h100.reason;
  EXPECT_TRUE(says(h100.recommendation, "FlashAttention-3 or cuDNN attention on Hopper"))
      << h100.recommendation;
  ReportFinding a100 =
      finding(slow_add_trace("NVIDIA A100-SXM4-80GB", 8, 0, 80 * kGiB, 108), "ops.far-from-roofline");
  EXPECT_EQ(a100.status, FindingStatus::Warn) << a100.reason;
  EXPECT_FALSE(says(a100.recommendation, "Hopper")) << a100.recommendation;
  EXPECT_TRUE(says(a100.recommendation, "torch.nn.attention.sdpa_kernel")) << a100.recommendation;
  // Neutral of the workload: no training-only wording in advice that inference runs get.
  EXPECT_FALSE(says(a100.recommendation, "optimizer")) << a100.recommendation;
  EXPECT_FALSE(says(a100.recommendation, "train in")) << a100.recommendation;
}

// One 1 ms decode step (SGLang's step[DECODE bs=32]) on an H100: a MoE GEMM whose kernel is
// `kernel`, under aten::mm of BF16 activations, 900 us: decode at a few % of the bandwidth fires
// compute.low-mbu. triton_kernels' matmul_ogs bf16 x mxfp4 runs BF16 MMAs on MXFP4 weights.
std::string decode_trace(const std::string& kernel) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.annotation("step[DECODE bs=32]", 0, 1000);
  t.op("aten::mm", 10, 30, 1, 1,
       R"("Input Dims": [[32, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch(kernel, 12, 50, 900, 1);
  return t.json();
}

TEST(RunAdvice, DecodeOnMxfp4WeightsIsNotToldToQuantizeThem) {
  ReportModel report = gated(decode_trace("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1"));
  EXPECT_DOUBLE_EQ(report.metric(Metric::ComputeNarrowWeightPct).value_or(-1), 100);
  const ReportFinding* mbu = find_finding(report, "compute.low-mbu");
  ASSERT_TRUE(mbu);
  EXPECT_EQ(mbu->status, FindingStatus::Warn) << mbu->reason;
  EXPECT_FALSE(says(mbu->recommendation, "quantize weights")) << mbu->recommendation;
  EXPECT_TRUE(
      says(mbu->recommendation, "100.0% of the matrix time already runs on weights of 8 bits or fewer"))
      << mbu->recommendation;
  // BF16 weights (cuBLAS nvjet, t = BF16): quantizing them is the remedy.
  ReportModel bf16 = gated(decode_trace("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT"));
  EXPECT_DOUBLE_EQ(bf16.metric(Metric::ComputeNarrowWeightPct).value_or(-1), 0);
  const ReportFinding* plain = find_finding(bf16, "compute.low-mbu");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(says(plain->recommendation, "quantize weights and KV cache (FP8, INT4)"))
      << plain->recommendation;
}

TEST(RunAdvice, AnFp8NameUnderBf16OpsIsNotQuantized) {
  // The op's types decide (flops.h, op_peak): a Tensile FP8 name under BF16 ops ran in BF16.
  ReportModel report = gated(decode_trace("Cijk_Alik_Bljk_F8_BH_Bias_HA_S_SAV_MT128x128x64_MI16x16x1"));
  EXPECT_DOUBLE_EQ(report.metric(Metric::ComputeNarrowWeightPct).value_or(-1), 0);
}

const char* const kBf16Gemm =
    R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])";

// A step [0, step_us] on an H100 whose aten::mm (BF16) runs a cuBLAS nvjet Tensor Core GEMM of
// gemm_us from 50 us.
TraceBuilder h100_gemm_step(double step_us, double gemm_us) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.step(1, 0, step_us);
  t.op("aten::mm", 10, 30, 1, 1, kBf16Gemm);
  t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 12, 50, gemm_us, 1);
  return t;
}

// One 100 ms step on an H100 with `peak_gib` allocated at its peak (8 GiB, 10% of 80 GiB:
// memory.underused fires). `backward` adds an autograd node (MmBackward0), the evidence of training.
std::string memory_trace(bool backward, std::int64_t peak_gib = 8) {
  TraceBuilder t = h100_gemm_step(100000, 500);
  if (backward) {
    t.op("MmBackward0", 1000, 40, 2, 1);
    t.op("aten::mm", 1005, 30, 3, 1, kBf16Gemm);
    t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 1010, 1050, 500, 3);
  }
  t.memory(20, peak_gib * kGiB, peak_gib * kGiB, 1, 0);
  return t.json();
}

TEST(RunAdvice, InferenceIsNotToldToRetuneTheLearningRate) {
  ReportModel inference = gated(memory_trace(false));
  EXPECT_DOUBLE_EQ(inference.metric(Metric::OpsBackwardPct).value_or(-1), 0);
  EXPECT_EQ(run_context(inference).workload, Workload::Inference);
  const ReportFinding* f = find_finding(inference, "memory.underused");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Warn) << f->reason;
  EXPECT_FALSE(says(f->recommendation, "learning rate")) << f->recommendation;
  // No server marker: an inference loop, told a larger batch per forward pass, not a server's settings.
  EXPECT_TRUE(says(f->recommendation, "larger batch")) << f->recommendation;
  EXPECT_FALSE(says(f->recommendation, "max_num_seqs")) << f->recommendation;

  ReportModel training = gated(memory_trace(true));
  EXPECT_NEAR(training.metric(Metric::OpsBackwardPct).value_or(-1), 100.0 * 2 / 3, 1e-9);
  EXPECT_EQ(run_context(training).workload, Workload::Training);
  const ReportFinding* t = find_finding(training, "memory.underused");
  ASSERT_TRUE(t);
  EXPECT_TRUE(says(t->recommendation, "retune the learning rate")) << t->recommendation;
}

// A server already in BF16 is told FP8 and the KV cache in its own terms, not training's (FP8
// training, activation checkpointing, the optimizer's state); a training run keeps them. The same
// 100 ms step, its 500 us BF16 GEMM far below the peak (compute.low-mfu fires, compute.bf16_pct 100),
// with 76 GiB allocated at the peak (95% of 80 GiB: memory.near-capacity fires).
constexpr std::int64_t kNearCapacityGiB = 76;

TEST(RunAdvice, AServerInBf16IsToldFp8AndTheKvCacheInItsTerms) {
  ReportModel inference = gated(memory_trace(false, kNearCapacityGiB));
  ASSERT_EQ(run_context(inference).workload, Workload::Inference);
  const ReportFinding* mfu = find_finding(inference, "compute.low-mfu");
  ASSERT_TRUE(mfu);
  EXPECT_EQ(mfu->status, FindingStatus::Warn) << mfu->reason;
  EXPECT_TRUE(says(mfu->recommendation, "torchao float8 inference")) << mfu->recommendation;
  EXPECT_FALSE(says(mfu->recommendation, "training")) << mfu->recommendation;
  const ReportFinding* full = find_finding(inference, "memory.near-capacity");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, FindingStatus::Warn) << full->reason;
  // An inference loop (no server marker) holds a forward pass's activations, not a KV cache.
  EXPECT_TRUE(says(full->recommendation, "forward pass")) << full->recommendation;
  EXPECT_FALSE(says(full->recommendation, "optimizer")) << full->recommendation;
  EXPECT_FALSE(says(full->recommendation, "checkpointing")) << full->recommendation;

  ReportModel training = gated(memory_trace(true, kNearCapacityGiB));
  ASSERT_EQ(run_context(training).workload, Workload::Training);
  const ReportFinding* tmfu = find_finding(training, "compute.low-mfu");
  ASSERT_TRUE(tmfu);
  EXPECT_TRUE(says(tmfu->recommendation, "torchao float8 training")) << tmfu->recommendation;
  const ReportFinding* tfull = find_finding(training, "memory.near-capacity");
  ASSERT_TRUE(tfull);
  EXPECT_TRUE(says(tfull->recommendation, "gradient (activation) checkpointing")) << tfull->recommendation;
}

// One 35 ms step on an H100: BF16 GEMMs on Tensor Cores, and one FP32 aten::bmm of `bmm_us` on a
// SIMT kernel (an eligible op off Tensor Cores).
std::string eligible_trace(double bmm_us) {
  TraceBuilder t = h100_gemm_step(35000, 20000);
  t.op("aten::bmm", 100, 30, 2, 1,
       R"("Input Dims": [[1, 16, 16], [1, 16, 16]], "Input type": ["float", "float"])");
  t.launch("volta_sgemm_32x32_sliced1x4_nn", 102, 20100, bmm_us, 2);
  return t.json();
}

TEST(RunAdvice, AnEligibleOpUnderOnePercentOfTheStepIsNotAFinding) {
  ReportModel tiny = gated(eligible_trace(3.5));
  EXPECT_EQ(tiny.metric(Metric::TensorCoreEligibleOpsNotUsingTc).value_or(-1), 1);
  EXPECT_NEAR(tiny.metric(Metric::TensorCoreEligibleNoTcPct).value_or(-1), 100.0 * 3.5 / 35000, 1e-9);
  const ReportFinding* f = find_finding(tiny, "tensor-cores.eligible-ops");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::NotApplicable) << f->reason;
  ReportModel large = gated(eligible_trace(7000));  // 20% of the step
  const ReportFinding* g = find_finding(large, "tensor-cores.eligible-ops");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->status, FindingStatus::Warn) << g->reason;
}

CaptureDevices devices(DeviceKind kind, DeviceVendor vendor, const std::string& model) {
  return {kind, vendor, model, 1, ""};
}

// The run's vendors and workload are its capture profile's (issue 89): the analysis decided them
// (tests/analyse/capture_profile_test.cpp), or a rule file's capture: section or --workload set them.
TEST(RunAdvice, TheRunsVendorsAndWorkload) {
  ReportModel report;
  report.capture.devices.push_back(devices(DeviceKind::Gpu, DeviceVendor::Amd, "AMD Instinct MI300X"));
  EXPECT_EQ(run_context(report).vendors, (std::vector<std::string_view>{"amd"}));
  EXPECT_EQ(run_context(report).workload, Workload::Unknown);  // the profile cannot say
  report.capture.devices.push_back(devices(DeviceKind::Gpu, DeviceVendor::Nvidia, "NVIDIA H100 SXM"));
  EXPECT_EQ(run_context(report).vendors, (std::vector<std::string_view>{"nvidia", "amd"}));
  EXPECT_FALSE(vendors_are(run_context(report), {"amd"}));
  EXPECT_TRUE(vendors_are(run_context(report), {"amd", "nvidia"}));
  EXPECT_TRUE(vendors_are(run_context(report), {}));
  ReportModel tpu;
  tpu.capture.devices.push_back(devices(DeviceKind::Tpu, DeviceVendor::Tpu, "Google TPU v6e (Trillium)"));
  EXPECT_EQ(run_context(tpu).vendors, (std::vector<std::string_view>{"tpu"}));
  // Serving and offline inference are `workload: inference`; a micro-benchmark is neither.
  for (CaptureWorkload w : {CaptureWorkload::Serving, CaptureWorkload::OfflineInference}) {
    tpu.capture.workload = w;
    EXPECT_EQ(run_context(tpu).workload, Workload::Inference);
  }
  tpu.capture.workload = CaptureWorkload::MicroBenchmark;
  EXPECT_EQ(run_context(tpu).workload, Workload::Unknown);
  tpu.capture.workload = CaptureWorkload::Training;
  EXPECT_EQ(run_context(tpu).workload, Workload::Training);
  EXPECT_FALSE(vendors_are(run_context(ReportModel{}), {"nvidia"}));  // no known device: no list
}

TEST(RunAdvice, RuleFilesNameKnownVendorsAndWorkloads) {
  auto load = [](const std::string& entry) {
    return load_rule_book({write_text(temp_dir() + "/run_advice.yaml",
                                      "rules:\n  - id: memory.underused\n    recommendations:\n"
                                      "      - {when: \"memory.peak_pct >= 0\", " +
                                          entry + ", text: \"x\"}\n")});
  };
  RuleBook book = load("vendors: [amd, tpu], workload: inference");
  auto it = std::find_if(book.rules.rules.begin(), book.rules.rules.end(),
                         [](const Rule& r) { return r.id == "memory.underused"; });
  ASSERT_NE(it, book.rules.rules.end());
  ASSERT_EQ(it->recommendations.size(), 1u);
  EXPECT_EQ(it->recommendations[0].vendors, (std::vector<std::string>{"amd", "tpu"}));
  EXPECT_EQ(it->recommendations[0].workload, "inference");
  std::string written = effective_rules_yaml(book.knowledge, book.rules);
  EXPECT_NE(written.find("vendors: [amd, tpu]"), std::string::npos);
  EXPECT_NE(written.find("workload: inference"), std::string::npos);
  EXPECT_THROW((void)load("vendors: cuda"), ConfigError);
  EXPECT_THROW((void)load("workload: serving"), ConfigError);
}

}  // namespace
}  // namespace perfgate::testing
