// Issue 42, item 3: TorchInductor's kernels tied to the ATen ops their names list and to the compiled
// region that ran them, what the ops make (RMSNorm, softmax, GEMM...), and FLOPs for Triton GEMM
// templates from their launch's shapes. Every expected value is worked out in the comments.
#include <gtest/gtest.h>

#include "analyse/ops/compiled_kernels.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

double metric(const WorkerAnalysis& w, Metric id) {
  return w.metrics.get(id).value_or(-1);
}

const FusedNames& default_names() {
  static const FusedNames names(default_classification());
  return names;
}

FusedKernel parse(const std::string& name) {
  std::optional<FusedKernel> k = default_names().parse(name);
  EXPECT_TRUE(k) << name;
  return k.value_or(FusedKernel{});
}

std::string pattern_of(const FusedKernel& k) {
  return k.pattern ? k.pattern->name : "";
}

TEST(FusedNames, AnRmsNormReductionListsItsFiveOps) {
  FusedKernel k = parse("triton_red_fused_add_mean_mul_pow_rsqrt_0");
  EXPECT_EQ(k.kind, "red");
  EXPECT_EQ(k.ops, (std::vector<std::string>{"add", "mean", "mul", "pow", "rsqrt"}));
  EXPECT_TRUE(k.unparsed.empty());
  EXPECT_EQ(k.ops_text(), "add, mean, mul, pow, rsqrt");
  EXPECT_EQ(pattern_of(k), "RMSNorm");
}

// Op names with underscores are read whole, the longest known name first: "_to_copy", not "to" and
// "copy"; "native_layer_norm_backward", not "native_layer_norm" then "backward"; "addmm", not "add".
TEST(FusedNames, OpNamesWithUnderscoresAreReadLongestFirst) {
  FusedKernel k = parse("triton_per_fused__to_copy_add_native_layer_norm_backward_7");
  EXPECT_EQ(k.kind, "per");
  EXPECT_EQ(k.ops, (std::vector<std::string>{"_to_copy", "add", "native_layer_norm_backward"}));
  EXPECT_EQ(pattern_of(k), "LayerNorm");  // the backward too: its ops say which
  k = parse("triton_poi_fused_convolution_backward_embedding_dense_backward_3");
  EXPECT_EQ(k.ops, (std::vector<std::string>{"convolution_backward", "embedding_dense_backward"}));
  EXPECT_EQ(pattern_of(k), "embedding");
  k = parse("triton_tem_fused_addmm_relu_12");
  EXPECT_EQ(k.ops, (std::vector<std::string>{"addmm", "relu"}));
  EXPECT_EQ(pattern_of(k), "GEMM");
  k = parse("triton_per_fused__softmax_0");
  EXPECT_EQ(k.ops, (std::vector<std::string>{"_softmax"}));
  EXPECT_EQ(pattern_of(k), "softmax");
}

TEST(FusedNames, WrittenOutSoftmaxAndNormsAreRecognised) {
  EXPECT_EQ(pattern_of(parse("triton_red_fused_amax_div_exp_sub_sum_0")), "softmax");
  EXPECT_EQ(pattern_of(parse("triton_red_fused__log_softmax_amax_exp_log_sub_sum_1")), "log-softmax");
  EXPECT_EQ(pattern_of(parse("triton_red_fused_add_mul_rsqrt_sub_var_mean_2")), "layer/batch norm");
  // An RMSNorm is not a layer norm: it subtracts no mean.
  EXPECT_EQ(pattern_of(parse("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_3")), "RMSNorm");
  // mm outside a template is not a GEMM the name can vouch for.
  EXPECT_EQ(pattern_of(parse("triton_poi_fused_mm_0")), "");
  EXPECT_EQ(pattern_of(parse("triton_poi_fused_add_cos_sin_0")), "");
}

TEST(FusedNames, WhatNamesNoKnownOpIsSaidUnparsed) {
  FusedKernel k = parse("triton_poi_fused_add_frobnicate_widget_mul_2");
  EXPECT_EQ(k.ops, (std::vector<std::string>{"add", "mul"}));
  EXPECT_EQ(k.unparsed, (std::vector<std::string>{"frobnicate_widget"}));
  EXPECT_EQ(k.ops_text(), "add, mul; unparsed: frobnicate_widget");
  k = parse("triton_poi_0");  // descriptive names off: a kernel, no ops listed
  EXPECT_EQ(k.kind, "poi");
  EXPECT_TRUE(k.ops.empty());
  EXPECT_EQ(k.ops_text(), "");
  EXPECT_FALSE(default_names().parse("aten::mm"));
  EXPECT_FALSE(default_names().parse("triton_poi_fused_add"));  // no kernel number: not Inductor's name
}

// The template's launch records the kernel's arguments: A [64, 128], B [128, 256], the output
// [64, 256]: M = 64, N = 256, K = 128, 2 x 64 x 256 x 128 = 4,194,304 FLOPs. bmm: A [8, 32, 64],
// B [8, 64, 16], out [8, 32, 16]: 2 x 8 x 32 x 16 x 64 = 524,288. An epilogue's bias [256] first
// changes nothing.
TEST(TemplateGemm, FlopsFromTheLaunchShapes) {
  FusedKernel mm = parse("triton_tem_fused_mm_0");
  EXPECT_EQ(template_gemm_flops(mm, {{64, 128}, {128, 256}, {64, 256}}), 4'194'304.0);
  FusedKernel addmm = parse("triton_tem_fused_addmm_0");
  EXPECT_EQ(template_gemm_flops(addmm, {{256}, {64, 128}, {128, 256}, {64, 256}}), 4'194'304.0);
  FusedKernel bmm = parse("triton_tem_fused_bmm_3");
  EXPECT_EQ(template_gemm_flops(bmm, {{8, 32, 64}, {8, 64, 16}, {8, 32, 16}}), 524'288.0);
  // A square GEMM reads the same whichever pair is taken: 2 x 32^3 = 65,536.
  EXPECT_EQ(template_gemm_flops(mm, {{32, 32}, {32, 32}, {32, 32}}), 65'536.0);
}

TEST(TemplateGemm, AbsentOrAmbiguousShapesGiveNoFlops) {
  FusedKernel mm = parse("triton_tem_fused_mm_0");
  EXPECT_FALSE(template_gemm_flops(mm, {}));                             // not recorded
  EXPECT_FALSE(template_gemm_flops(mm, {{64, 128}, {128, 256}}));        // no output among them
  EXPECT_FALSE(template_gemm_flops(mm, {{64, 128}, {128, 256}, {64}}));  // nor here
  // Two readings, 4 x 4 x 4 (out [4, 4]) and M = 4, K = 4, N = 8 (out [4, 8]): not guessed.
  EXPECT_FALSE(template_gemm_flops(mm, {{4, 4}, {4, 4}, {4, 4}, {4, 8}, {4, 8}}));
  // Not a template: a pointwise kernel's shapes are not a GEMM's.
  EXPECT_FALSE(template_gemm_flops(parse("triton_poi_fused_mm_0"), {{64, 128}, {128, 256}, {64, 256}}));
}

// One step of a torch.compile'd model: ProfilerStep#1 [0, 1000] holds "Torch-Compiled Region: 0/0"
// [10, 500] > CompiledFunction [20, 480], which launches two Inductor kernels through their ranges:
//   triton_red_fused_add_mean_mul_pow_rsqrt_0 [30, 50], its kernel [100, 140]: 40 us (an RMSNorm)
//   triton_tem_fused_mm_0 [60, 100] with Input Dims [[64,128],[128,256],[64,256]], its kernel
//     [150, 210]: 60 us, 4,194,304 FLOPs
// then an eager aten::add [600, 610] launches elementwise_kernel [700, 800]: 100 us.
//   the region's device time: 40 + 60 = 100 us
//   compiled kernel time 100 of 200 us: kernels.compiled_pct 50%
std::string compiled_step() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("Torch-Compiled Region: 0/0", 10, 490, 1);
  t.op("CompiledFunction", 20, 460, 2);
  t.op("triton_red_fused_add_mean_mul_pow_rsqrt_0", 30, 20, 3, 1,
       R"("kernel_backend": "triton", "Input Dims": [[32, 4096], [4096], [32, 4096]])");
  t.launch("triton_red_fused_add_mean_mul_pow_rsqrt_0", 35, 100, 40, 3);
  t.op("triton_tem_fused_mm_0", 60, 40, 4, 1,
       R"("kernel_backend": "triton", "Input Dims": [[64, 128], [128, 256], [64, 256]], )"
       R"("Input type": ["float", "float", "float"])");
  t.launch("triton_tem_fused_mm_0", 65, 150, 60, 4);
  t.op("aten::add", 600, 10, 5);
  t.launch("elementwise_kernel", 602, 700, 100, 5);
  return t.json();
}

TEST(CompiledCode, ATritonCompiledStepTiesKernelsToTheirOpsRegionAndPattern) {
  WorkerAnalysis w = analyse_json(compiled_step());
  const OpRow* norm = find_op(w.tables.ops, "triton_red_fused_add_mean_mul_pow_rsqrt_0");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->op_type, "compiled (Triton)");
  EXPECT_EQ(norm->fused_ops, "add, mean, mul, pow, rsqrt");
  EXPECT_EQ(norm->fused_as, "RMSNorm");
  EXPECT_EQ(norm->device_total, 40'000);
  EXPECT_EQ(norm->flops, 0);  // not a GEMM
  const OpRow* gemm = find_op(w.tables.ops, "triton_tem_fused_mm_0");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->fused_ops, "mm");
  EXPECT_EQ(gemm->fused_as, "GEMM");
  EXPECT_EQ(gemm->flops, 4'194'304.0);
  const OpRow* region = find_op(w.tables.ops, "Torch-Compiled Region: 0/0");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->device_total, 100'000);
  EXPECT_EQ(region->fused_ops, "");
  const OpRow* eager = find_op(w.tables.ops, "aten::add");
  ASSERT_NE(eager, nullptr);
  EXPECT_EQ(eager->fused_ops, "");
  const KernelRow* kernel = find_kernel(w.tables.kernels, "triton_red_fused_add_mean_mul_pow_rsqrt_0");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->fused_ops, "add, mean, mul, pow, rsqrt");
  EXPECT_EQ(kernel->fused_as, "RMSNorm");
  EXPECT_EQ(find_kernel(w.tables.kernels, "elementwise_kernel")->fused_ops, "");
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsCompiledPct), 50.0);
  EXPECT_DOUBLE_EQ(metric(w, Metric::ComputeFlops), 4'194'304.0);
  // The share is in the summary.
  std::string terminal = render_terminal(report_of_json(compiled_step(), default_book()));
  EXPECT_NE(terminal.find("Kernel time in compiled (Triton) kernels 50.0%"), std::string::npos) << terminal;
}

// The same step where the template's launch recorded no shapes: no FLOPs, and the report says why.
TEST(CompiledCode, ATemplateWithoutShapesCountsNoFlopsAndSaysSo) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("triton_tem_fused_bmm_0", 60, 40, 4);
  t.launch("triton_tem_fused_bmm_0", 65, 150, 60, 4);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(find_op(w.tables.ops, "triton_tem_fused_bmm_0")->flops, 0);
  EXPECT_FALSE(w.metrics.get(Metric::ComputeFlops));
  bool said = false;
  for (const std::string& warning : note_texts(w.warnings))
    said = said || warning.starts_with(
                       "1 call of Triton GEMM templates (triton_tem_fused_bmm_0) record no "
                       "input shapes");
  EXPECT_TRUE(said);
}

// Inductor's kernel ranges beside the region instead of under it: the region [10, 100]; a kernel
// range [90, 130] starts inside it and ends after it (so it is the region's sibling), its kernel
// [200, 250]: 50 us; a second range [135, 145] follows with no op between, its kernel [260, 280]:
// 20 us. Then the eager aten::mul [300, 310], and a kernel range [320, 330] after it, kernel
// [400, 430]: 30 us, is not the region's (another op ran in between).
//   the region's device time: 50 + 20 = 70 us (0 before: nothing under it launched anything)
TEST(CompiledCode, KernelRangesBesideTheRegionCountInItsDeviceTime) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("Torch-Compiled Region: 1/0", 10, 90, 1);
  t.op("triton_poi_fused_add_0", 90, 40, 2);
  t.launch("triton_poi_fused_add_0", 95, 200, 50, 2);
  t.op("triton_poi_fused_mul_1", 135, 10, 3);
  t.launch("triton_poi_fused_mul_1", 136, 260, 20, 3);
  t.op("aten::mul", 300, 10, 4);
  t.op("triton_poi_fused_sub_2", 320, 10, 5);
  t.launch("triton_poi_fused_sub_2", 321, 400, 30, 5);
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* region = find_op(w.tables.ops, "Torch-Compiled Region: 1/0");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->device_total, 70'000);
  EXPECT_EQ(find_op(w.tables.ops, "triton_poi_fused_sub_2")->device_total, 30'000);
  // The kernel ranges keep their own time, and each kernel counts once in the op types: the region
  // is "other" with no GPU time of its own, the three ranges "compiled (Triton)" with 100 us.
  for (const OpTypeRow& r : w.tables.op_types) {
    if (r.type == "compiled (Triton)") {
      EXPECT_EQ(r.gpu, 100'000);
    } else if (r.type == "other") {
      EXPECT_EQ(r.gpu, 0);
    }
  }
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsCompiledPct), 100.0);
}

}  // namespace
}  // namespace perfgate::testing
