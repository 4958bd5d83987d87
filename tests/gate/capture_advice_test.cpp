// Issue 89, build items 2 and 3: a finding's words and advice follow the capture profile
// (ReportModel::capture). Until the analysis fills the profile, each test sets it by hand on the
// report of a hand-built trace, as the analysis would, and gates that report.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "gate/capture_words.h"
#include "gate/gate.h"
#include "gate/rules.h"
#include "support/capture_helpers.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

// One 1 ms decode iteration (SGLang's step[DECODE bs=32]) on an H100 whose one kernel runs 100 us:
// the GPU is busy 100 / 1000 = 10% of the iteration, under gpu.low-utilization's 50%.
std::string idle_decode_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.annotation("step[DECODE bs=32]", 0, 1000);
  t.op("aten::mm", 10, 30, 1, 1,
       R"("Input Dims": [[32, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 12, 50, 100, 1);
  return t.json();
}

TEST(CaptureAdvice, AServerIsNotToldToTrainWithALargerBatch) {
  ReportFinding f =
      gated_finding(idle_decode_trace(),
                    profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Serving, {"sglang"}),
                    "gpu.low-utilization");
  ASSERT_EQ(f.status, FindingStatus::Warn) << f.reason;
  EXPECT_FALSE(says(f.recommendation, "convergence")) << f.recommendation;
  EXPECT_FALSE(says(f.recommendation, "batch size")) << f.recommendation;
  EXPECT_TRUE(says(f.recommendation, "let more requests share each iteration")) << f.recommendation;
  // The same trace as a training run's keeps the batch size and its cost to convergence.
  ReportFinding training =
      gated_finding(idle_decode_trace(),
                    profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training, {"pytorch"}),
                    "gpu.low-utilization");
  EXPECT_TRUE(says(training.recommendation,
                   "larger batch size (it may change the speed and stability of "
                   "convergence)"))
      << training.recommendation;
}

// One 100 ms step whose aten::mm (BF16, 4096 x 4096 x 4096: 2 x 4096^3 = 137.4 GFLOP) runs a 500 us
// matrix kernel `kernel` on `gpu`: 137.4 GFLOP / 100 ms = 1.4 TFLOP/s, far below any of these GPUs'
// peaks, so compute.low-mfu fires; the kernel is all of the matrix time (compute.bf16_pct 100).
std::string gemm_trace(const std::string& gpu, int major, int minor, int units, const std::string& kernel) {
  TraceBuilder t;
  t.device(0, gpu, major, minor, 192 * kGiB, units);
  t.step(1, 0, 100000);
  t.op("aten::mm", 10, 30, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch(kernel, 12, 50, 500, 1);
  return t.json();
}

const char* const kMi300xGemm = "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1";

TEST(CaptureAdvice, AnMi300xIsNotToldHoppersFp8) {
  for (CaptureWorkload workload : {CaptureWorkload::Training, CaptureWorkload::Serving}) {
    ReportFinding f =
        gated_finding(gemm_trace("AMD Instinct MI300X", 9, 4, 304, kMi300xGemm),
                      profile(DeviceKind::Gpu, DeviceVendor::Amd, workload, {"pytorch"}), "compute.low-mfu");
    ASSERT_EQ(f.status, FindingStatus::Warn) << f.reason;
    EXPECT_FALSE(says(f.recommendation, "Hopper")) << f.recommendation;
    EXPECT_FALSE(says(f.recommendation, "TensorRT")) << f.recommendation;
    EXPECT_TRUE(says(f.recommendation, "MI300X (gfx942) and newer")) << f.recommendation;
  }
}

// vLLM's MXFP4 MoE GEMM (triton_kernels' matmul_ogs, BF16 activations on MXFP4 weights) in a
// prefill: the weights are already 4 bits, so FP8 weights are no remedy.
TEST(CaptureAdvice, WeightsAlreadyInMxfp4AreNotToldFp8) {
  ReportFinding f = gated_finding(
      gemm_trace("NVIDIA H100 80GB HBM3", 9, 0, 132, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1"),
      profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Serving, {"vllm", "pytorch"}),
      "compute.low-mfu");
  ASSERT_EQ(f.status, FindingStatus::Warn) << f.reason;
  EXPECT_FALSE(says(f.recommendation, "FP8 weights")) << f.recommendation;
  EXPECT_TRUE(says(f.recommendation, "100.0% of the matrix time already runs on weights of 8 bits or fewer"))
      << f.recommendation;
}

// A 10 ms step in which the GPU runs one 1 ms kernel and the launching thread records nothing else:
// the GPU is idle 9 of 10 ms with nothing recorded (gpu.idle's last cause).
std::string unrecorded_idle_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.step(1, 0, 10000);
  t.op("aten::mm", 10, 30, 1, 1);
  t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 12, 50, 1000, 1);
  return t.json();
}

TEST(CaptureAdvice, APlainCudaProgramIsNotToldPytorchsProfilerSettings) {
  ReportFinding f = gated_finding(
      unrecorded_idle_trace(),
      profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::MicroBenchmark, {"cuda"}), "gpu.idle");
  ASSERT_EQ(f.status, FindingStatus::Warn) << f.reason;
  EXPECT_FALSE(says(f.recommendation, "with_stack")) << f.recommendation;
  EXPECT_TRUE(says(f.recommendation, "the host's call stacks recorded")) << f.recommendation;
  ReportFinding pytorch = gated_finding(
      unrecorded_idle_trace(),
      profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training, {"pytorch"}), "gpu.idle");
  EXPECT_TRUE(says(pytorch.recommendation, "with_stack=True")) << pytorch.recommendation;
}

// A rule of the test's own that fires on any run, its texts in the vocabulary's words.
RuleSet with_rule(Rule rule) {
  RuleSet rules = default_rules();
  rule.condition = "1";
  rule.severity = Severity::Warning;
  rules.rules = {std::move(rule)};
  return rules;
}

TEST(CaptureAdvice, FindingsSpeakTheCapturesWords) {
  Rule words;
  words.id = "test.words";
  words.title = "words";
  words.problem = "{Device}|{devices}|{matrix_units}|{runtime}|{kernel}|{step}";
  RuleSet rules = with_rule(words);
  auto problem = [&](const CaptureProfile& capture) {
    return gated_finding(unrecorded_idle_trace(), capture, "test.words", rules).problem;
  };
  EXPECT_EQ(problem(profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::Training)),
            "GPU|GPUs|Matrix Cores|HIP runtime|kernel|step");
  EXPECT_EQ(problem(profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Serving)),
            "GPU|GPUs|Tensor Cores|CUDA runtime|kernel|iteration");
  EXPECT_EQ(problem(profile(DeviceKind::Tpu, DeviceVendor::Tpu, CaptureWorkload::Training)),
            "TPU|TPUs|MXUs|XLA runtime|XLA op|step");
  EXPECT_EQ(problem(profile(DeviceKind::NeuronCore, DeviceVendor::Neuron, CaptureWorkload::Training)),
            "NeuronCore|NeuronCores|TensorEngines|Neuron runtime|kernel|step");
  // A capture whose devices are unknown (and whose trace names none: an empty report's gpus) reads
  // neutral words, not an NVIDIA GPU's.
  ReportModel unknown;
  apply_gate(unknown, rules, nullptr, {});
  const ReportFinding* f = find_finding(unknown, "test.words");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->problem, "Device|devices|matrix units|runtime|kernel|step");
}

TEST(CaptureAdvice, AdviceForOtherCapturesAloneIsNoRemedy) {
  Rule rule;
  rule.id = "test.training-only";
  rule.title = "training only";
  rule.problem = "measured";
  rule.recommendations.push_back({.when = "1", .text = "shard the optimizer", .workloads = {"training"}});
  RuleSet rules = with_rule(rule);
  ReportFinding serving = gated_finding(unrecorded_idle_trace(),
                                        profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::Serving),
                                        "test.training-only", rules);
  EXPECT_EQ(serving.problem, "measured");
  EXPECT_EQ(serving.recommendation,
            "No remedy is given for serving on AMD GPUs: this rule's advice is worded for other captures.");
  ReportFinding training = gated_finding(
      unrecorded_idle_trace(), profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::Training),
      "test.training-only", rules);
  EXPECT_EQ(training.recommendation, "shard the optimizer");
}

TEST(CaptureAdvice, EntriesNameDevicesFrameworksAndWorkloads) {
  Rule rule;
  rule.id = "test.keyed";
  rule.title = "keyed";
  rule.recommendations.push_back({.when = "1", .text = "tpu", .devices = {"tpu"}});
  rule.recommendations.push_back(
      {.when = "1", .text = "jax on gpu", .devices = {"gpu"}, .frameworks = {"jax"}});
  rule.recommendations.push_back(
      {.when = "1", .text = "amd inference", .devices = {"amd"}, .workloads = {"inference"}});
  rule.recommendation = "neutral";
  RuleSet rules = with_rule(rule);
  auto advice = [&](const CaptureProfile& capture) {
    return gated_finding(unrecorded_idle_trace(), capture, "test.keyed", rules).recommendation;
  };
  EXPECT_EQ(advice(profile(DeviceKind::Tpu, DeviceVendor::Tpu, CaptureWorkload::Training, {"jax"})), "tpu");
  EXPECT_EQ(advice(profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training, {"jax"})),
            "jax on gpu");
  EXPECT_EQ(advice(profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::OfflineInference)),
            "amd inference");
  EXPECT_EQ(advice(profile(DeviceKind::Gpu, DeviceVendor::Amd, CaptureWorkload::Training)), "neutral");
}

// `phases:`: the window's phase is steady where the steady state is more than half of it, else the
// one-off phase that holds the most of it; a capture without phases matches no keyed entry.
TEST(CaptureAdvice, EntriesNameTheWindowsPhase) {
  Rule rule;
  rule.id = "test.phased";
  rule.title = "phased";
  rule.recommendations.push_back(
      {.when = "", .text = "profile a later window", .phases = {"setup", "teardown", "profiler"}});
  rule.recommendations.push_back({.when = "", .text = "capture graphs", .phases = {"steady"}});
  rule.recommendation = "neutral";
  RuleSet rules = with_rule(rule);
  auto advice = [&](std::optional<double> steady, double setup, double profiler) {
    CaptureProfile capture = profile(DeviceKind::Gpu, DeviceVendor::Nvidia, CaptureWorkload::Training);
    if (steady) {
      capture.phases.window_us = 100;
      capture.phases.steady_us = steady;
      capture.phases.setup_us = setup;
      capture.phases.teardown_us = 0;
      capture.phases.profiler_us = profiler;
    }
    return gated_finding(unrecorded_idle_trace(), capture, "test.phased", rules).recommendation;
  };
  EXPECT_EQ(advice(60, 40, 0), "capture graphs");
  EXPECT_EQ(advice(50, 50, 0), "profile a later window");   // half is not more than half
  EXPECT_EQ(advice(30, 20, 50), "profile a later window");  // the profiler's stop holds the most
  EXPECT_EQ(advice(std::nullopt, 0, 0), "neutral");
  CapturePhases p;
  p.window_us = 100;
  p.steady_us = 30;
  p.setup_us = 20;
  p.teardown_us = 0;
  p.profiler_us = 50;
  EXPECT_EQ(window_phase(p), "profiler");
  p.setup_us = 60;
  p.profiler_us = 10;
  EXPECT_EQ(window_phase(p), "setup");
  EXPECT_EQ(window_phase(CapturePhases{}), "");
}

std::string load_error(const std::string& yaml) {
  try {
    (void)load_rule_book({write_text(temp_dir() + "/capture_advice.yaml", yaml)});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CaptureAdvice, RulesCheckRefusesAdviceThatNamesAFrameworkItDoesNotDeclare) {
  std::string bare = load_error(
      "rules:\n  - id: dataloader.bottleneck\n    recommendation: \"Raise DataLoader num_workers.\"\n");
  EXPECT_TRUE(says(bare, "names 'DataLoader' without declaring whom it is for")) << bare;
  std::string undeclared = load_error(
      "rules:\n  - id: dataloader.bottleneck\n    recommendations:\n"
      "      - {when: \"1\", workloads: training, text: \"Raise DataLoader num_workers.\"}\n");
  EXPECT_TRUE(says(undeclared, "(frameworks: pytorch)")) << undeclared;
  EXPECT_EQ(
      load_error("rules:\n  - id: dataloader.bottleneck\n    recommendations:\n"
                 "      - {when: \"1\", frameworks: pytorch, workloads: training, text: \"Raise DataLoader "
                 "num_workers.\"}\n"),
      "no error");
  std::string device = load_error(
      "rules:\n  - id: compute.low-mfu\n    recommendations:\n"
      "      - {when: \"1\", devices: [gpu, intel], text: \"x\"}\n");
  EXPECT_TRUE(says(device, "unknown device 'intel'")) << device;
  std::string phase = load_error(
      "rules:\n  - id: compute.low-mfu\n    recommendations:\n"
      "      - {phases: [setup, warmup], text: \"x\"}\n");
  EXPECT_TRUE(says(phase, "unknown phase 'warmup' (one of: steady, setup, teardown, profiler)")) << phase;
  // No `when`: the entry holds wherever its keys fit.
  EXPECT_EQ(load_error("rules:\n  - id: compute.low-mfu\n    recommendations:\n"
                       "      - {phases: steady, text: \"x\"}\n"),
            "no error");
  EXPECT_TRUE(says(load_error("rules:\n  - id: compute.low-mfu\n    recommendations:\n"
                              "      - {phases: steady}\n"),
                   "a recommendations entry needs 'text'"));
}

}  // namespace
}  // namespace perfgate::testing
