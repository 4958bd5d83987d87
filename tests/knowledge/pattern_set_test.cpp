// PatternSet's answers, where patterns of literal text are matched without RE2
// (knowledge/literal_pattern.h) and the others with it: hand-built names with known classes, and
// every shipped pattern against RE2 itself over kernel, op, runtime and device names.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "common/errors.h"
#include "knowledge/literal_pattern.h"
#include "knowledge/needle_index.h"
#include "knowledge/pattern_set.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool matches(const std::string& pattern, std::string_view name) {
  return PatternSet({pattern}, "test").matches(name);
}

TEST(PatternSet, LiteralsMatchAnywhereUnlessAnchored) {
  EXPECT_TRUE(literal_pattern("nchwToNhwc|nhwcToNchw"));
  EXPECT_TRUE(matches("nchwToNhwc|nhwcToNchw", "void cudnn::ops::nchwToNhwcKernel<float>"));
  EXPECT_FALSE(matches("nchwToNhwc|nhwcToNchw", "void cudnn::ops::NchwToNhwcKernel<float>"));
  EXPECT_TRUE(matches("^aten::(mm|bmm)$", "aten::bmm"));
  EXPECT_FALSE(matches("^aten::(mm|bmm)$", "aten::bmm_out"));
  EXPECT_FALSE(matches("^aten::(mm|bmm)$", "my::aten::mm"));
  EXPECT_TRUE(matches("^(void )?transpose_readWrite", "void transpose_readWrite_alignment_kernel"));
  EXPECT_TRUE(matches("^(void )?transpose_readWrite", "transpose_readWrite_alignment_kernel"));
  EXPECT_FALSE(matches("^(void )?transpose_readWrite", "void  transpose_readWrite"));
  EXPECT_TRUE(matches("_sgemm_$", "volta_sgemm_"));
  EXPECT_FALSE(matches("_sgemm_$", "volta_sgemm_128"));
  EXPECT_TRUE(matches("(^|_)simt(_|$)", "cutlass_simt_sgemm"));
  EXPECT_TRUE(matches("(^|_)simt(_|$)", "simt"));
  EXPECT_FALSE(matches("(^|_)simt(_|$)", "cutlass_simtsgemm"));
  EXPECT_TRUE(matches("^enumerate\\(DataPipe\\)#", "enumerate(DataPipe)#MapperIterDataPipe"));
  EXPECT_TRUE(matches("", "anything"));
}

TEST(PatternSet, CaseFoldsForAsciiAndLeavesOtherNamesToRe2) {
  EXPECT_TRUE(literal_pattern("(?i)mfma"));
  EXPECT_TRUE(matches("(?i)mfma", "paged_attention_ll4mi_QKV_MFMA16_kernel"));
  EXPECT_TRUE(matches("(?i)mfma", "Mfma"));
  EXPECT_FALSE(matches("mfma", "MFMA"));
  // RE2 folds case by Unicode: the Kelvin sign (U+212A) is a K, which an ASCII test would miss.
  EXPECT_TRUE(matches("(?i)kernel",
                      "\xe2\x84\xaa"
                      "ernel"));
  EXPECT_FALSE(matches("kernel",
                       "\xe2\x84\xaa"
                       "ernel"));
  EXPECT_TRUE(matches("(?i)mfma", "h\xc3\xa9_mfma"));
}

TEST(PatternSet, ClassesOptionalsAndWordBoundaries) {
  EXPECT_TRUE(literal_pattern("\\bA10G?\\b|RTX 30[0-9]0"));
  EXPECT_TRUE(matches("\\bA10G?\\b|RTX 30[0-9]0", "NVIDIA A10G"));
  EXPECT_TRUE(matches("\\bA10G?\\b|RTX 30[0-9]0", "NVIDIA A10"));
  EXPECT_FALSE(matches("\\bA10G?\\b|RTX 30[0-9]0", "NVIDIA A100-SXM4-80GB"));
  EXPECT_TRUE(matches("\\bA10G?\\b|RTX 30[0-9]0", "GeForce RTX 3090"));
  EXPECT_FALSE(matches("\\bA10G?\\b|RTX 30[0-9]0", "GeForce RTX 30x0"));
  // A boundary is looked for at every place the text occurs, not only the first.
  EXPECT_TRUE(matches("\\bL4\\b", "xL4 and L4"));
  EXPECT_TRUE(matches("(?i)^TPU ?v5 ?(lite|e)\\b", "tpu v5 lite pod"));
  EXPECT_FALSE(matches("(?i)^TPU ?v5 ?(lite|e)\\b", "TPU v5ex"));
  EXPECT_TRUE(matches("fmha_cutlass[FB]_(f16|bf16)", "fmha_cutlassB_bf16_aligned"));
}

TEST(PatternSet, RegularExpressionsStillGoThroughRe2) {
  EXPECT_FALSE(literal_pattern("sm\\d+_xmma_gemm"));
  EXPECT_FALSE(literal_pattern("A100.*80GB"));
  EXPECT_FALSE(literal_pattern("^Optimizer\\.|(?i)adam"));
  EXPECT_FALSE(literal_pattern("a\\b+"));
  EXPECT_TRUE(matches("sm\\d+_xmma_gemm", "sm90_xmma_gemm_bf16bf16"));
  EXPECT_FALSE(matches("sm\\d+_xmma_gemm", "smx_xmma_gemm"));
  // A set of both: the first pattern that matches, whichever way it is matched.
  PatternSet mixed({"^aten::mm$", "sm\\d+_xmma", "xmma", "(?i)^ATEN::"}, "test");
  EXPECT_EQ(mixed.first_match("sm80_xmma_gemm"), 1);
  EXPECT_EQ(mixed.first_match("xmma_gemm"), 2);
  EXPECT_EQ(mixed.first_match("aten::mm"), 0);
  EXPECT_EQ(mixed.first_match("Aten::bmm"), 3);
  EXPECT_EQ(mixed.first_match("cutlass"), -1);
  std::vector<int> all;
  mixed.all_matches("sm80_xmma", all);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int>{1, 2}));
}

// The text a regular expression's every match contains: RE2 runs only on names that hold it.
TEST(PatternSet, RequiredTextOfRegularExpressions) {
  auto required = [](std::string_view p) {
    std::optional<RequiredText> r = required_text(p);
    return r ? r->any_of : std::vector<std::string>{};
  };
  using Pieces = std::vector<std::string>;
  EXPECT_EQ(required("^cu(Ctx|Stream|Event)Synchronize(_v\\d+)?$"), Pieces{"Synchronize"});
  EXPECT_EQ(required("sm\\d+_xmma_(gemm|fprop)"), Pieces{"_xmma_"});
  EXPECT_EQ(required("rcclGenericKernel|\\brccl\\w*Kernel"), (Pieces{"rcclGenericKernel", "Kernel"}));
  EXPECT_EQ(required("(?i)cutlass\\w*_tensorop_"), Pieces{"_tensorop_"});
  EXPECT_EQ(required("ab?c"), Pieces{"a"});         // b is optional: "a" and "c" apart
  EXPECT_EQ(required("x(abc|de)+y"), Pieces{"x"});  // a repeated group is not kept
  EXPECT_EQ(required("^(?:aten::(mm|bmm))\\d$"), Pieces{"aten::"});
  EXPECT_EQ(required("abc|\\d+"), Pieces{});                   // the second branch needs no text
  EXPECT_EQ(required("^Optimizer\\.|(?i)adam\\w"), Pieces{});  // flags inside: unknown
  EXPECT_EQ(required("a{2,}|b"), Pieces{});
  // A set whose regular expressions need text the name lacks answers without RE2, and the same.
  PatternSet set({"^cu(Ctx|Stream)Synchronize(_v\\d+)?$", "(?i)cutlass\\w*_tensorop_"}, "test");
  EXPECT_EQ(set.first_match("cudaLaunchKernel"), -1);
  EXPECT_EQ(set.first_match("cuStreamSynchronize_v2"), 0);
  EXPECT_EQ(set.first_match("CUTLASS_80_TensorOp_s1688gemm"), 1);
  EXPECT_EQ(set.first_match("cutlass_80_tensorop_s1688gemm \xe2\x84\xaa"), 1);
}

TEST(PatternSet, NeedleIndexFindsEveryPieceInOnePass) {
  NeedleIndex index;
  int hmma = index.add("hmma", false);
  int h884 = index.add("h884", false);
  int underscore = index.add("_", false);
  int tensorop = index.add("tensorop", true);
  int tail = index.add("gemm", false);
  index.finish();
  std::vector<unsigned char> found;
  std::string name = "volta_h884gemm_TensorOp";
  std::string lowered = "volta_h884gemm_tensorop";
  index.find_all(name, lowered, found);
  EXPECT_EQ(found, (std::vector<unsigned char>{0, 1, 1, 1, 1}));
  index.find_all("hmm", "hmm", found);  // a piece is not found past the name's end
  EXPECT_EQ(found[static_cast<std::size_t>(hmma)] + found[static_cast<std::size_t>(underscore)], 0);
  index.find_all("xgem", "xgem", found);
  EXPECT_EQ(found[static_cast<std::size_t>(tail)] + found[static_cast<std::size_t>(h884)] +
                found[static_cast<std::size_t>(tensorop)],
            0);
}

// Issue 78: a set remembers its answers for the first names it is asked about (a run folder's
// ranks ask about the same few), and stops remembering once it holds 64. Each name gets
// the same answer asked once, twice, after the memo is full, and from a set that never remembered.
TEST(PatternSet, RememberedAnswersAreTheAnswers) {
  std::vector<std::string> patterns = {"nccl", "^aten::(mm|bmm)$", R"(gemm\d+)", "Memcpy"};
  PatternSet remembering(patterns, "test");
  auto name_of = [](int i) {
    switch (i % 5) {
      case 0:
        return "ncclKernel_" + std::to_string(i);
      case 1:
        return std::string(i % 2 ? "aten::mm" : "aten::bmm");
      case 2:
        return "sgemm" + std::to_string(i) + "_kernel";
      case 3:
        return "Memcpy HtoD " + std::string(static_cast<std::size_t>(i), 'x');  // past 128 bytes later on
      default:
        return "aten::add_" + std::to_string(i);
    }
  };
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < 700; ++i) {
      std::string name = name_of(i);
      PatternSet fresh(patterns, "test");
      int first = fresh.first_match(name);
      EXPECT_EQ(remembering.matches(name), first >= 0) << name;
      EXPECT_EQ(remembering.first_match(name), first) << name;
      EXPECT_EQ(first, i % 5 == 0 ? 0 : i % 5 == 1 ? 1 : i % 5 == 2 ? 2 : i % 5 == 3 ? 3 : -1) << name;
    }
}

// The memo is read without a lock while other threads add to it: threads asking one set about
// the same names, as a run folder's ranks analysed side by side do, each get every name's answer.
TEST(PatternSet, ThreadsAskingOneSetGetTheSameAnswers) {
  std::vector<std::string> patterns = {"nccl", "^aten::(mm|bmm)$", R"(gemm\d+)"};
  PatternSet shared(patterns, "test");
  std::vector<std::string> names;
  for (int i = 0; i < 100; ++i)
    names.push_back(i % 3 == 0   ? "ncclKernel_" + std::to_string(i % 40)
                    : i % 3 == 1 ? "aten::mm"
                                 : "x" + std::to_string(i));
  std::vector<int> expected;
  for (const std::string& name : names) expected.push_back(PatternSet(patterns, "test").first_match(name));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round)
        for (std::size_t k = 0; k < names.size(); ++k) {
          std::size_t i = (k + static_cast<std::size_t>(t) * 25) % names.size();
          if (shared.first_match(names[i]) != expected[i] || shared.matches(names[i]) != (expected[i] >= 0))
            ++wrong;
        }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(PatternSet, BadPatternIsRefusedWhenFirstMatched) {
  PatternSet bad({"ok", "(unclosed"}, "test_list");
  try {
    bad.matches("name");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid test_list pattern '(unclosed'"), std::string::npos);
  }
}

// Every shipped pattern, alone, gives RE2's answer on names from the shared traces' families.
TEST(PatternSet, ShippedPatternsAnswerAsRe2Does) {
  const Classification& c = default_classification();
  std::vector<std::string> patterns;
  for (const auto* list : {&c.tensor_core_kernels, &c.non_tensor_core_kernels, &c.tensor_core_eligible_ops,
                           &c.layout_conversion_kernels, &c.communication_kernels, &c.communication_ops,
                           &c.sync_calls, &c.warmup_calls, &c.warmup_ranges, &c.teardown_calls,
                           &c.profiler_events, &c.tensorrt_kernels, &c.graph_launch_calls, &c.library_frames})
    patterns.insert(patterns.end(), list->begin(), list->end());
  for (const auto& t : c.op_types) patterns.push_back(t.pattern);
  for (const auto& p : c.gpu_peaks) patterns.push_back(p.match);
  for (const auto& a : c.gpu_architectures) patterns.push_back(a.devices);
  const std::vector<std::string> names = {
      "aten::mm",
      "aten::addmm_",
      "aten::conv2d",
      "Optimizer.step#Adam.step",
      "aten::_foreach_add_",
      "cudaDeviceSynchronize",
      "cudaMemcpyAsync",
      "cuLaunchKernel",
      "cudaGraphLaunch_v10000",
      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
      "void rcclGenericKernel<1, false>(ncclDevComm*)",
      "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_ffma_kernel",
      "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
      "volta_sgemm_128x64_nn",
      "NVIDIA A10G",
      "NVIDIA A100-SXM4-80GB",
      "NVIDIA H100 80GB HBM3",
      "AMD Instinct MI250X",
      "AMD Radeon Graphics",
      "Tesla V100-PCIE-32GB",
      "TPU v5 lite",
      "NVIDIA L4",
      "void at::native::vectorized_elementwise_kernel",
      "triton_poi_fused_add_0",
      "fmha_cutlassF_f16_aligned_64x64_rf_sm80",
      "Cijk_Alik_Bljk_MI16x16x1",
      "\xe2\x84\xaa"
      "ernel_MFMA",
      "nchwToNhwcKernel",
      "transpose_readWrite_alignment_kernel",
      "",
      "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
      "cuModuleUnload",
      "aten::relu_"};
  int literal = 0;
  for (const std::string& p : patterns) {
    if (p.empty()) continue;
    literal += literal_pattern(p).has_value();
    RE2 re(p);
    ASSERT_TRUE(re.ok()) << p;
    PatternSet set({p}, "shipped");
    for (const std::string& name : names)
      EXPECT_EQ(set.matches(name), RE2::PartialMatch(name, re)) << p << " on " << name;
  }
  EXPECT_GT(literal, 40);  // most of the shipped patterns skip RE2
}

}  // namespace
}  // namespace perfgate::testing
