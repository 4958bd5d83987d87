// Issue 89, build item 3: advice in the words of the capture's own framework, vendor and workload
// (the shared inputs' reports named TensorFlow to JAX captures, JAX to an Nsight export, CUDA graphs
// to AMD GPUs, vLLM to SGLang servers and requests to offline inference). As capture_advice_test.cpp,
// each test sets the profile by hand on the report of a hand-built trace and gates that report.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "gate/rules.h"
#include "support/capture_helpers.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

// One kernel and no step ranges: steps.none fires.
std::string stepless_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.op("aten::mm", 10, 30, 1, 1);
  t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 12, 50, 1000, 1);
  return t.json();
}

TEST(CaptureAdviceByFramework, JaxAndTensorflowProfilesEachGetTheirOwnStepMarker) {
  ReportFinding jax = gated_finding(
      stepless_trace(), profile(DeviceKind::Tpu, DeviceVendor::Tpu, CaptureWorkload::Unknown, {"jax"}),
      "steps.none", "xplane");
  EXPECT_TRUE(says(jax.recommendation, "jax.profiler.StepTraceAnnotation")) << jax.recommendation;
  EXPECT_FALSE(says(jax.recommendation, "TensorFlow")) << jax.recommendation;
  EXPECT_FALSE(says(jax.recommendation, "tf.")) << jax.recommendation;
  ReportFinding tf =
      gated_finding(stepless_trace(),
                    profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training, {"tensorflow"}),
                    "steps.none", "xplane");
  EXPECT_TRUE(says(tf.recommendation, "tf.profiler.experimental.Trace")) << tf.recommendation;
  EXPECT_FALSE(says(tf.recommendation, "jax")) << tf.recommendation;
}

// A rule's docs link names PyTorch's page (pytorch.org): a JAX capture gets its own entry's link,
// a plain CUDA program none, and PyTorch the rule's.
TEST(CaptureAdviceByFramework, TheDocsLinkIsTheCapturesFrameworks) {
  ReportFinding jax = gated_finding(
      stepless_trace(), profile(DeviceKind::Tpu, DeviceVendor::Tpu, CaptureWorkload::Unknown, {"jax"}),
      "steps.none", "xplane");
  EXPECT_EQ(jax.docs, "https://docs.jax.dev/en/latest/profiling.html");
  ReportFinding cuda =
      gated_finding(stepless_trace(),
                    profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::MicroBenchmark, {"cuda"}),
                    "steps.none");
  EXPECT_EQ(cuda.status, FindingStatus::Warn);
  EXPECT_EQ(cuda.docs, "");
  ReportFinding pytorch = gated_finding(
      stepless_trace(),
      profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training, {"pytorch"}), "steps.none");
  EXPECT_EQ(pytorch.docs, "https://pytorch.org/docs/stable/profiler.html#torch.profiler.schedule");
}

TEST(CaptureAdviceByFramework, AnNsightExportIsToldNvtxRangesAlone) {
  ReportFinding f = gated_finding(
      stepless_trace(), profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Unknown, {"cuda"}),
      "steps.none", "nsys-sqlite");
  EXPECT_TRUE(says(f.recommendation, "NVTX range around each iteration")) << f.recommendation;
  for (std::string_view other : {"JAX", "jax.", "TensorFlow", "prof.step"})
    EXPECT_FALSE(says(f.recommendation, other)) << f.recommendation;
  // A PyTorch trace keeps torch.profiler's steps, and names no other framework's.
  ReportFinding pytorch = gated_finding(
      stepless_trace(), profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::Training, {"pytorch"}),
      "steps.none");
  EXPECT_TRUE(says(pytorch.recommendation, "prof.step()")) << pytorch.recommendation;
  EXPECT_FALSE(says(pytorch.recommendation, "JAX")) << pytorch.recommendation;
}

// A rule of the test's own that fires on any run, its problem in the vocabulary's words.
RuleSet with_words(const std::string& problem) {
  RuleSet rules = default_rules();
  Rule rule;
  rule.id = "test.words";
  rule.title = "words";
  rule.problem = problem;
  rule.condition = "1";
  rule.severity = Severity::Warning;
  rules.rules = {std::move(rule)};
  return rules;
}

TEST(CaptureAdviceByFramework, GraphsAreTheVendorsOwn) {
  RuleSet rules = with_words("{Graphs}|{graph}");
  auto problem = [&](DeviceVendor vendor) {
    return gated_finding(stepless_trace(), profile(DeviceKind::Gpu, vendor, CaptureWorkload::Training),
                         "test.words", "", rules)
        .problem;
  };
  EXPECT_EQ(problem(DeviceVendor::Nvidia), "CUDA graphs|CUDA graph");
  EXPECT_EQ(problem(DeviceVendor::Amd), "HIP graphs|HIP graph");
  ReportFinding tpu =
      gated_finding(stepless_trace(), profile(DeviceKind::Tpu, DeviceVendor::Tpu, CaptureWorkload::Training),
                    "test.words", "", rules);
  EXPECT_EQ(tpu.problem, "Device graphs|device graph");
}

TEST(CaptureAdviceByFramework, ServerSettingsAreTheCapturedServersOwn) {
  RuleSet rules = with_words("{server_batch}|{kv_cache_fp8}");
  auto problem = [&](std::vector<std::string> frameworks) {
    return gated_finding(
               stepless_trace(),
               profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::Serving, std::move(frameworks)),
               "test.words", "", rules)
        .problem;
  };
  EXPECT_EQ(problem({"pytorch", "vllm"}), "vLLM's max_num_seqs|vLLM --kv-cache-dtype fp8");
  EXPECT_EQ(problem({"pytorch", "sglang"}),
            "SGLang's --max-running-requests|SGLang --kv-cache-dtype fp8_e4m3");
  EXPECT_EQ(problem({"pytorch"}), "the server's limit on running requests|the engine's KV-cache type");
}

// One 1 ms iteration on an H100 whose one kernel runs 100 us: gpu.low-utilization fires (10%).
std::string idle_iteration_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.annotation("step[DECODE bs=32]", 0, 1000);
  t.op("aten::mm", 10, 30, 1, 1);
  t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 12, 50, 100, 1);
  return t.json();
}

TEST(CaptureAdviceByFramework, RequestsAreAServersAndTheServerIsNamedAlone) {
  ReportFinding offline = gated_finding(
      idle_iteration_trace(),
      profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::OfflineInference, {"pytorch"}),
      "gpu.low-utilization");
  ASSERT_EQ(offline.status, FindingStatus::Warn) << offline.reason;
  EXPECT_TRUE(says(offline.recommendation, "a larger batch")) << offline.recommendation;
  for (std::string_view other : {"requests", "convergence", "vLLM", "SGLang"})
    EXPECT_FALSE(says(offline.recommendation, other)) << offline.recommendation;
  ReportFinding sglang = gated_finding(
      idle_iteration_trace(),
      profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::Serving, {"pytorch", "sglang"}),
      "gpu.low-utilization");
  EXPECT_TRUE(says(sglang.recommendation, "raise SGLang's --max-running-requests")) << sglang.recommendation;
  EXPECT_FALSE(says(sglang.recommendation, "vLLM")) << sglang.recommendation;
  EXPECT_FALSE(says(sglang.recommendation, "TensorRT-LLM")) << sglang.recommendation;
}

// An A100's slow aten::add (ops.far-from-roofline fires; capture_helpers.h) and a 100 ms step's BF16
// GEMM of 137.4 GFLOP (compute.low-mfu fires: 1.4 TFLOP/s).
std::string a100_slow_add_trace() {
  return slow_add_trace("NVIDIA A100-SXM4-80GB", 8, 0, 80 * kGiB, 108);
}
std::string slow_gemm_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80 * kGiB, 108);
  t.step(1, 0, 100000);
  t.op("aten::mm", 10, 30, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nn", 12, 50, 500, 1);
  return t.json();
}

// A capture that already runs torch.compile is told where its unfused ops come from (graph breaks),
// not to use torch.compile (issue 89: the vLLM decode's roofline remedy); an eager one is told it.
TEST(CaptureAdviceByFramework, ACompiledCaptureIsNotToldToCompile) {
  auto nvidia = [](std::vector<std::string> frameworks) {
    return profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training, std::move(frameworks));
  };
  ReportFinding eager = gated_finding(a100_slow_add_trace(), nvidia({"pytorch"}), "ops.far-from-roofline");
  ASSERT_EQ(eager.status, FindingStatus::Warn) << eager.reason;
  EXPECT_TRUE(says(eager.recommendation, "fuse the chain it belongs to (torch.compile, fused LayerNorm"))
      << eager.recommendation;
  ReportFinding compiled =
      gated_finding(a100_slow_add_trace(), nvidia({"pytorch", "torch.compile"}), "ops.far-from-roofline");
  ASSERT_EQ(compiled.status, FindingStatus::Warn) << compiled.reason;
  EXPECT_FALSE(says(compiled.recommendation, "(torch.compile,")) << compiled.recommendation;
  EXPECT_TRUE(says(compiled.recommendation, "torch.compile already runs in this capture"))
      << compiled.recommendation;
  EXPECT_TRUE(says(compiled.recommendation, "TORCH_LOGS=graph_breaks")) << compiled.recommendation;

  ReportFinding mfu = gated_finding(slow_gemm_trace(), nvidia({"pytorch"}), "compute.low-mfu");
  ASSERT_EQ(mfu.status, FindingStatus::Warn) << mfu.reason;
  EXPECT_TRUE(says(mfu.recommendation, "fused kernels (torch.compile)")) << mfu.recommendation;
  ReportFinding compiled_mfu =
      gated_finding(slow_gemm_trace(), nvidia({"pytorch", "torch.compile"}), "compute.low-mfu");
  EXPECT_FALSE(says(compiled_mfu.recommendation, "fused kernels (torch.compile)"))
      << compiled_mfu.recommendation;
  EXPECT_TRUE(says(compiled_mfu.recommendation, "torch.compile already runs")) << compiled_mfu.recommendation;
}

// The same GEMM in a step whose GPU is busy 80.5% of it, 80 ms of it copying a batch to the device:
// the matrix units wait for the copies, and compute.low-mfu says so and sends the reader to the
// copies (gpu.low-utilization) instead of precision, batch and fusion (issue 91: XProf's v6e file,
// 73% copies, was told BF16 and jit). Utilization 0.5% (the GEMM alone), busy 80.5%.
TEST(CaptureAdviceByFramework, DevicesBusyCopyingAreToldTheCopiesBeforeIntensity) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80 * kGiB, 108);
  t.step(1, 0, 100000);
  t.op("aten::mm", 10, 30, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_nn", 12, 50, 500, 1);
  t.op("aten::copy_", 600, 30, 2, 1);
  t.runtime("cudaMemcpyAsync", 605, 5, 77, 2);
  t.memcpy("Memcpy HtoD (Pinned -> Device)", 1000, 80000, 77, 0, 7, std::int64_t{1} << 30);
  auto nvidia = profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training, {"pytorch"});
  ReportFinding copying = gated_finding(t.json(), nvidia, "compute.low-mfu");
  ASSERT_EQ(copying.status, FindingStatus::Warn) << copying.reason;
  EXPECT_TRUE(says(copying.recommendation, "busy 80.5% of the window but run GPU ops only 0.5% of it"))
      << copying.recommendation;
  EXPECT_TRUE(says(copying.recommendation, "Shorten the copies first (see gpu.low-utilization)"))
      << copying.recommendation;
  EXPECT_FALSE(says(copying.recommendation, "fused kernels (torch.compile)")) << copying.recommendation;
  // Without the copies, the GEMM alone: the intensity advice, as before.
  ReportFinding computing = gated_finding(slow_gemm_trace(), nvidia, "compute.low-mfu");
  EXPECT_FALSE(says(computing.recommendation, "Shorten the copies first")) << computing.recommendation;
}

// One step of an aten::mm whose kernel is no Tensor Core kernel: tensor-cores.amp fires. A GradScaler
// scales a training loss: training is told it, inference and an unknown workload autocast alone
// (issue 89: the nsys 2026 export, of unknown workload, was told GradScaler).
TEST(CaptureAdviceByFramework, GradScalerIsTrainingsAlone) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80 * kGiB, 108);
  t.step(1, 0, 1000).op("aten::mm", 10, 30, 1, 1).launch("gemm_kernel", 12, 50, 100, 1);
  auto advice = [&](CaptureWorkload workload) {
    ReportFinding f = gated_finding(
        t.json(), profile(DeviceKind::Gpu, DeviceVendor::Nvidia, workload, {"pytorch"}), "tensor-cores.amp");
    EXPECT_EQ(f.status, FindingStatus::Warn) << f.reason;
    return f.recommendation;
  };
  EXPECT_TRUE(says(advice(CaptureWorkload::Training), "GradScaler"));
  for (CaptureWorkload w :
       {CaptureWorkload::OfflineInference, CaptureWorkload::Serving, CaptureWorkload::Unknown}) {
    std::string text = advice(w);
    EXPECT_FALSE(says(text, "GradScaler")) << text;
    EXPECT_TRUE(says(text, "torch.autocast")) << text;
  }
}

TEST(CaptureAdviceByFramework, AWordsEntryForAnUnknownFrameworkIsRefused) {
  std::string yaml =
      "vocabulary:\n  words:\n    - {for: default, device: device, source: s}\n"
      "    - {for: vllm, server_batch: max_num_seqs, source: s}\n    - {for: vlm, graph: g, source: s}\n";
  std::string error = "no error";
  try {
    (void)load_rule_book({write_text(temp_dir() + "/words_for.yaml", yaml)});
  } catch (const std::exception& e) {
    error = e.what();
  }
  EXPECT_TRUE(says(error, "'for: vlm' is no device kind, vendor, workload or framework")) << error;
  EXPECT_FALSE(says(error, "'for: vllm'")) << error;
}

}  // namespace
}  // namespace perfgate::testing
