// Issue 29, item 3: the Tensor Core rules' advice follows the kernels and input types seen. On the
// MI300X trace, a BF16 run whose time off Tensor Cores was MIOpen's layout transposes, the advice
// read "move them to FP16/BF16". Each trace below has one cause of the time off Tensor Cores.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/errors.h"
#include "gate/gate.h"
#include "gate/rules.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const std::string kBf16 = R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])";
const std::string kFloat = R"("Input type": ["float", "float"])";

// Step [0,1000] on an A100 (compute capability 8.0). aten::addmm (BF16) runs a 40 us Tensor Core
// GEMM; a second eligible op `name` with `types` runs `kernel` for 60 us: efficiency 40%, and its
// 60 us are all the time off Tensor Cores.
std::string trace_with(const std::string& name, const std::string& types, const std::string& kernel) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80LL << 30, 108);
  t.step(1, 0, 1000);
  t.op("aten::addmm", 10, 50, 1, 1, kBf16);
  t.launch("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 11, 100, 40, 1);
  t.op(name, 70, 50, 2, 1, types);
  t.launch(kernel, 71, 200, 60, 2);
  return t.json();
}

ReportFinding finding(const std::string& json, std::string_view id) {
  ReportModel report = report_of_json(json, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* f = find_finding(report, id);
  EXPECT_TRUE(f) << id;
  return f ? *f : ReportFinding{};
}

bool says(const ReportFinding& f, const std::string& text) {
  return f.recommendation.find(text) != std::string::npos;
}

const char* const kChannelsLast = "channels_last";
const char* const kAlign = "pad their dimensions to multiples of 8";
const char* const kRecordShapes = "Profile with record_shapes=True";

TEST(TensorCoreAdvice, LayoutConversionsAdviseChannelsLast) {
  ReportFinding f = finding(
      trace_with("aten::cudnn_convolution", kBf16, "void cudnn::ops::nchwToNhwcKernel<__nv_bfloat16>(int)"),
      "tensor-cores.low-efficiency");
  EXPECT_EQ(f.status, FindingStatus::Warn);
  EXPECT_NE(f.problem.find("Of the rest, 100.0% is layout conversion"), std::string::npos) << f.problem;
  EXPECT_TRUE(says(f, kChannelsLast)) << f.recommendation;
  EXPECT_TRUE(says(f, "model.to(memory_format=torch.channels_last)")) << f.recommendation;
  EXPECT_FALSE(says(f, "autocast")) << f.recommendation;
}

TEST(TensorCoreAdvice, Fp32OpsAdviseAutocast) {
  ReportFinding f =
      finding(trace_with("aten::mm", kFloat, "volta_sgemm_128x64_nn"), "tensor-cores.low-efficiency");
  EXPECT_EQ(f.status, FindingStatus::Warn);
  EXPECT_NE(
      f.problem.find("0.0% is layout conversion (NCHW/NHWC transposes around the kernels), 100.0% other "
                     "kernels of ops with FP32 or FP64 inputs"),
      std::string::npos)
      << f.problem;
  // trace_with's BF16 addmm is all of the Tensor Core time: mixed precision already runs in BF16, so
  // the FP32 op is outside autocast, not a reason to enable it (issue 72, build item 6).
  EXPECT_TRUE(says(f, "mixed precision already runs in BF16")) << f.recommendation;
  EXPECT_FALSE(says(f, kChannelsLast)) << f.recommendation;
}

TEST(TensorCoreAdvice, HalfPrecisionOpsOffTensorCoresAdviseAlignedShapes) {
  ReportFinding f = finding(trace_with("aten::mm", kBf16, "gemv2T_kernel_val<__nv_bfloat16>"),
                            "tensor-cores.low-efficiency");
  EXPECT_EQ(f.status, FindingStatus::Warn);
  EXPECT_TRUE(says(f, kAlign)) << f.recommendation;
  EXPECT_FALSE(says(f, "autocast")) << f.recommendation;
}

TEST(TensorCoreAdvice, UnrecordedInputTypesAdviseRecordShapes) {
  ReportFinding f =
      finding(trace_with("aten::mm", "", "volta_sgemm_128x64_nn"), "tensor-cores.low-efficiency");
  EXPECT_EQ(f.status, FindingStatus::Warn);
  EXPECT_NE(f.problem.find("100.0% kernels of ops whose input types the trace does not record"),
            std::string::npos)
      << f.problem;
  EXPECT_TRUE(says(f, kRecordShapes)) << f.recommendation;
}

// tensor-cores.eligible-ops: the second op above runs no Tensor Core kernel at all.
TEST(TensorCoreAdvice, EligibleOpsOffTensorCoresFollowTheirInputTypes) {
  ReportFinding fp32 =
      finding(trace_with("aten::mm", kFloat, "volta_sgemm_128x64_nn"), "tensor-cores.eligible-ops");
  EXPECT_EQ(fp32.status, FindingStatus::Warn);
  EXPECT_NE(fp32.problem.find("100.0% is in ops with FP32 or FP64 inputs"), std::string::npos)
      << fp32.problem;
  EXPECT_TRUE(says(fp32, "These ops run in FP32")) << fp32.recommendation;
  ReportFinding half =
      finding(trace_with("aten::mm", kBf16, "gemv2T_kernel_val<__nv_bfloat16>"), "tensor-cores.eligible-ops");
  EXPECT_EQ(half.status, FindingStatus::Warn);
  EXPECT_TRUE(says(half, "These ops already run in half precision")) << half.recommendation;
  EXPECT_TRUE(says(half, kAlign)) << half.recommendation;
  EXPECT_FALSE(says(half, "autocast")) << half.recommendation;
  ReportFinding unknown =
      finding(trace_with("aten::mm", "", "volta_sgemm_128x64_nn"), "tensor-cores.eligible-ops");
  EXPECT_EQ(unknown.status, FindingStatus::Warn);
  EXPECT_TRUE(says(unknown, kRecordShapes)) << unknown.recommendation;
}

// Issue 59, item 2: a run of XSpace profiles (JAX, TensorFlow) is advised in its own terms: the
// entries with `formats: xplane` come first, and apply only where every input of the run is one.
ReportFinding finding_as(const std::string& json, std::string_view id,
                         const std::vector<std::string>& formats) {
  ReportModel report = report_of_json(json, default_book());
  ReportInput first = report.inputs.at(0);
  report.inputs.clear();
  for (const std::string& f : formats) {
    first.format = f;
    report.inputs.push_back(first);
  }
  // An XSpace profile alone is JAX's here (the capture profile names its framework, issue 89).
  if (formats == std::vector<std::string>{"xplane"}) report.capture.frameworks = {{"jax", "set by the test"}};
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* f = find_finding(report, id);
  EXPECT_TRUE(f) << id;
  return f ? *f : ReportFinding{};
}

TEST(TensorCoreAdvice, XSpaceRunsAreAdvisedInJaxTerms) {
  std::string fp32 = trace_with("aten::mm", kFloat, "volta_sgemm_128x64_nn");
  ReportFinding jax = finding_as(fp32, "tensor-cores.low-efficiency", {"xplane"});
  EXPECT_TRUE(says(jax, "jnp.bfloat16")) << jax.recommendation;
  EXPECT_TRUE(says(jax, "jax.default_matmul_precision")) << jax.recommendation;
  EXPECT_FALSE(says(jax, "torch")) << jax.recommendation;
  // Input types unknown: where a JAX profile keeps them (its HLO), not record_shapes.
  ReportFinding unknown = finding_as(trace_with("aten::mm", "", "volta_sgemm_128x64_nn"),
                                     "tensor-cores.eligible-ops", {"xplane"});
  EXPECT_TRUE(says(unknown, "/host:metadata")) << unknown.recommendation;
  EXPECT_FALSE(says(unknown, kRecordShapes)) << unknown.recommendation;
  // A run that mixes an XSpace profile with a PyTorch trace keeps the PyTorch wording.
  ReportFinding mixed = finding_as(fp32, "tensor-cores.low-efficiency", {"xplane", "kineto-json"});
  EXPECT_TRUE(says(mixed, "torch.autocast(dtype=torch.bfloat16)")) << mixed.recommendation;
  // compute.low-mfu's single recommendation has a JAX variant too.
  ReportFinding mfu = finding_as(fp32, "compute.low-mfu", {"xplane"});
  if (mfu.status == FindingStatus::Warn || mfu.status == FindingStatus::Fail) {
    EXPECT_FALSE(says(mfu, "torch.compile")) << mfu.recommendation;
  }
}

// The `formats` key of a recommendations entry: read from a rule file, written back by
// --print-effective-rules, and checked like the other keys.
TEST(TensorCoreAdvice, RecommendationFormatsAreReadAndWrittenBack) {
  std::string path =
      write_text(temp_dir() + "/formats.yaml",
                 "rules:\n"
                 "  - id: custom.idle\n"
                 "    title: Idle\n"
                 "    family: gpu\n"
                 "    metric: gpu.idle_pct\n"
                 "    better: lower\n"
                 "    warn: 10\n"
                 "    recommendations:\n"
                 "      - {when: \"gpu.idle_pct >= 0\", formats: [xplane], text: \"jit the step\"}\n"
                 "      - {when: \"gpu.idle_pct >= 0\", text: \"compile the model\"}\n"
                 "    recommendation: \"none\"\n");
  RuleBook book = load_rule_book({path});
  const RuleSet& rules = book.rules;
  auto it = std::find_if(rules.rules.begin(), rules.rules.end(),
                         [](const Rule& r) { return r.id == "custom.idle"; });
  ASSERT_NE(it, rules.rules.end());
  ASSERT_EQ(it->recommendations.size(), 2u);
  EXPECT_EQ(it->recommendations[0].formats, std::vector<std::string>{"xplane"});
  EXPECT_TRUE(it->recommendations[1].formats.empty());
  EXPECT_NE(effective_rules_yaml(book.knowledge, rules).find("formats: [xplane]"), std::string::npos);
  std::string bad =
      write_text(temp_dir() + "/formats_bad.yaml",
                 "rules:\n"
                 "  - id: custom.idle\n"
                 "    title: Idle\n"
                 "    family: gpu\n"
                 "    metric: gpu.idle_pct\n"
                 "    better: lower\n"
                 "    warn: 10\n"
                 "    recommendations:\n"
                 "      - {when: \"gpu.idle_pct >= 0\", format: xplane, text: \"jit the step\"}\n"
                 "    recommendation: \"none\"\n");
  EXPECT_THROW((void)load_rule_book({bad}), ConfigError);
}

}  // namespace
}  // namespace perfgate::testing
