// Issue 40, items 5-11: the roofline's ceilings per op family and GPU, its remedies, type
// promotion of 0-dim operands, a gain bounded by the GPU's idle time waiting on the host, "What to
// fix first" above a threshold, AMD devices PyTorch did not name, AOTriton/CK attention kernels.
// The B200 and vLLM MI300X traces the issue names are not in ../shared: the traces below are built
// with their features (device name and properties, op shapes).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "analyse/gpu/perf_model.h"
#include "gate/gate.h"
#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const RooflineRow* row_named(const WorkerAnalysis& w, const std::string& name) {
  for (const RooflineRow& r : w.tables.roofline)
    if (r.name == name) return &r;
  return nullptr;
}

// One 1 ms step on a B200 (gpu_peaks: FP32 75 TFLOP/s, BF16 2,250, 8,000 GB/s):
// - aten::copy_ of [888, 2880] float into BF16, 10 us: 0 FLOPs; 2,557,440 x (4 + 2) = 15,344,640
//   bytes = 1.91808 us at 8 TB/s: memory-bound at the memory ceiling alone (no compute peak).
// - aten::add of two [888, 2880] BF16 tensors, 10 us: 2,557,440 FLOPs = 0.0341 us at the FP32 rate;
//   3 x 2,557,440 x 2 = 15,344,640 bytes = 1.91808 us: memory-bound.
std::string b200_trace(const std::string& gpu = "NVIDIA B200") {
  TraceBuilder t;
  t.device(0, gpu, 10, 0, 191'000'000'000, 148);
  t.step(1, 0, 1000);
  t.op("aten::copy_", 10, 20, 1, 1,
       R"("Input Dims": [[888, 2880], [888, 2880], []], "Input type": ["c10::BFloat16", "float", "Scalar"])");
  t.launch("elementwise_kernel", 12, 100, 10, 1);
  t.op("aten::add", 40, 20, 2, 1,
       R"("Input Dims": [[888, 2880], [888, 2880], []], )"
       R"("Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  t.launch("vectorized_elementwise_kernel", 42, 200, 10, 2);
  return t.json();
}

TEST(RooflineCeilings, ACopyAndAnElementwiseOpOnB200AreMeasuredAgainstMemory) {
  WorkerAnalysis w = analyse_json(b200_trace());
  const RooflineRow* copy = row_named(w, "aten::copy_");
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->has_roofline);
  EXPECT_EQ(copy->flop, 0u);
  EXPECT_EQ(copy->bytes, 15'344'640u);
  EXPECT_EQ(copy->peak_tflops, 0);  // no compute ceiling for 0 FLOPs
  EXPECT_EQ(copy->memory_gbps, 8000);
  EXPECT_EQ(copy->roofline_ps, 1'918'080u);  // 15,344,640 B / 8e12 B/s
  const RooflineRow* add = row_named(w, "aten::add");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->has_roofline);
  EXPECT_EQ(add->peak_tflops, 75);
  EXPECT_GT(add->memory_ps, add->compute_ps);
  EXPECT_EQ(add->roofline_ps, 1'918'080u);
  // Every modelled op has a roofline: 20 of 20 us of kernel time.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::RooflineCoveragePct), 100);
  ReportModel report = report_of_json(b200_trace(), default_book());
  const ReportTable* t = find_table(report.workers[0].tables, "roofline");
  ASSERT_NE(t, nullptr);
  for (std::size_t i = 0; i < t->rows.size(); ++i)
    EXPECT_TRUE(cell_number(*find_cell(*t, i, "roofline_pct"))) << i;
}

// A GB200 has its own entry (GB200 NVL72 datasheet, per GPU): BF16 2,500 TFLOP/s, 8 TB/s; and an
// elementwise op on a GPU whose entry has no FP32 rate still gets the memory ceiling.
TEST(RooflineCeilings, Gb200HasItsOwnPeaksAndEveryEntryItsCeilings) {
  WorkerAnalysis w = analyse_json(b200_trace("NVIDIA GB200"));
  const RooflineRow* add = row_named(w, "aten::add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->peak_tflops, 90);
  EXPECT_EQ(add->memory_gbps, 8000);
  WorkerAnalysis no_fp32 = analyse_json(b200_trace("NVIDIA B200"), {},
                                        {write_text(temp_dir() + "/peaks.yaml", R"(schema: perfgate-rules/1
gpu_peaks:
  patterns:
    - {match: 'B200', name: "B200 without FP32", tflops: {bf16: 2250}, memory_gbps: 8000, source: "test"}
)")});
  const RooflineRow* elementwise = row_named(no_fp32, "aten::add");
  ASSERT_NE(elementwise, nullptr);
  EXPECT_TRUE(elementwise->has_roofline);
  EXPECT_EQ(elementwise->roofline_ps, 1'918'080u);
  // Every entry of gpu_peaks: FP32, a 16-bit peak and the memory bandwidth, with a source.
  for (const GpuPeak& p : default_classification().gpu_peaks) {
    EXPECT_TRUE(p.peak("fp32")) << p.name;
    EXPECT_TRUE(p.peak("fp16") || p.peak("bf16")) << p.name;
    EXPECT_TRUE(p.memory_gbps) << p.name;
    EXPECT_NE(p.source.find("HBM"), std::string::npos) << p.name;
  }
}

// An H100 step with three half-precision GEMMs:
// - addmm [768] + [788, 768] x [768, 768] on a Tensor Core kernel: only M = 788 is not a multiple of
//   8, and it ran on Tensor Cores: no "alignment".
// - mm [1, 2880] x [2880, 25136], a GEMV off Tensor Cores: K and N are multiples of 8 (M = 1 is not,
//   and does not matter): no "alignment".
// - mm [64, 770] x [770, 512] off Tensor Cores: K = 770 keeps it off: "alignment".
TEST(RooflineRemedies, AlignmentOnlyForMatrixOpsOffTensorCoresByKOrN) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80'000'000'000, 132);
  t.step(1, 0, 2000);
  const char* bf16x3 = R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])";
  t.op("aten::addmm", 10, 20, 1, 1,
       std::string(R"("Input Dims": [[768], [788, 768], [768, 768]], )") + bf16x3);
  t.launch("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 12, 100, 50, 1);
  t.op("aten::mm", 40, 20, 2, 1,
       R"("Input Dims": [[1, 2880], [2880, 25136]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("gemv2T_kernel_val", 42, 200, 80, 2);
  t.op("aten::mm", 70, 20, 3, 1,
       R"("Input Dims": [[64, 770], [770, 512]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("gemmSN_NN_kernel", 72, 400, 30, 3);
  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* table = find_table(report.workers[0].tables, "roofline");
  ASSERT_NE(table, nullptr);
  std::map<std::string, std::string> remedy;  // "" for an empty cell
  for (std::size_t i = 0; i < table->rows.size(); ++i) {
    const ReportCell* cell = find_cell(*table, i, "remedy");
    const std::string* text = cell ? std::get_if<std::string>(cell) : nullptr;
    remedy[std::get<std::string>(*find_cell(*table, i, "input_dims"))] = text ? *text : "";
  }
  EXPECT_EQ(remedy["[[768],[788,768],[768,768]]"], "");
  EXPECT_EQ(remedy["[[1,2880],[2880,25136]]"], "");
  EXPECT_EQ(remedy["[[64,770],[770,512]]"], "alignment");
}

// A fused attention op below its roofline gets the attention remedy (head dimension, sequence
// length, backend), and the finding's text no longer tells it to use fused kernels.
TEST(RooflineRemedies, FusedAttentionBelowItsRooflineGetsItsOwnRemedy) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80'000'000'000, 132);
  t.step(1, 0, 3000);
  t.op("aten::_scaled_dot_product_flash_attention", 10, 20, 1, 1,
       R"("Input Dims": [[2, 16, 559, 64], [2, 16, 559, 64], [2, 16, 559, 64]], )"
       R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  t.launch("flash_fwd_kernel", 12, 100, 2200, 1);
  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* table = find_table(report.workers[0].tables, "roofline");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(*find_cell(*table, 0, "remedy")), "attention");
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* far = find_finding(report, "ops.far-from-roofline");
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(far->recommendation.find("use SDPA's fused kernels"), std::string::npos) << far->recommendation;
  EXPECT_NE(far->recommendation.find("attention: a fused attention kernel"), std::string::npos);
}

std::optional<OpCost> binary(const std::vector<Dims>& dims, const std::vector<std::string>& types) {
  OpModelPattern binary;
  binary.model = "binary";
  return op_cost(binary, OpCall{"aten::add", dims, types, {}, nullptr});
}

// PyTorch's type promotion: a 0-dim tensor or a Python number of the same category does not widen
// a tensor with dimensions (TraceLens's values on the H100 LLM slice).
TEST(PerfModelPromotion, AZeroDimOperandKeepsTheTensorsType) {
  // add([16, 559, 1] float, 0-dim double): 8,944 x 4 read + 8 + 8,944 x 4 written = 71,560.
  auto add = binary({{16, 559, 1}, {}, {}}, {"float", "double", "Scalar"});
  ASSERT_TRUE(add && add->bytes);
  EXPECT_DOUBLE_EQ(*add->bytes, 71'560);
  // mul([1, 559, 64] float, 0-dim double): 35,776 x 4 + 8 + 35,776 x 4 = 286,216.
  auto mul = binary({{1, 559, 64}, {}}, {"float", "double"});
  ASSERT_TRUE(mul && mul->bytes);
  EXPECT_DOUBLE_EQ(*mul->bytes, 286'216);
  // A BF16 tensor and a 0-dim double: the result stays BF16: 16 x 2 + 8 + 16 x 2 = 72.
  auto bf16 = binary({{4, 4}, {}}, {"c10::BFloat16", "double"});
  ASSERT_TRUE(bf16 && bf16->bytes);
  EXPECT_DOUBLE_EQ(*bf16->bytes, 72);
  // A higher category wins: an int tensor and a 0-dim float tensor give float: 16 x 4 + 4 + 16 x 4.
  auto promoted = binary({{4, 4}, {}}, {"int", "float"});
  ASSERT_TRUE(promoted && promoted->bytes);
  EXPECT_DOUBLE_EQ(*promoted->bytes, 132);
  // Two tensors with dimensions: the wider type, as before: 16 x 2 + 16 x 4 + 16 x 4.
  auto both = binary({{4, 4}, {4, 4}}, {"c10::BFloat16", "float"});
  ASSERT_TRUE(both && both->bytes);
  EXPECT_DOUBLE_EQ(*both->bytes, 160);
}

// A 1 ms H100 step: aten::add of two [4096, 4096] BF16 tensors, a 300 us kernel (roofline
// 100,663,296 B / 3,350 GB/s = 30.049 us: at the 50% target 60.097 us, a saving of 239.903 us =
// 23.99% of the window), and a 100 us kernel. Host-bound: the second kernel's launch comes 555 us
// after the first ended, so the GPU idles 60% of the window, all of its gaps waiting on the host:
// 23.99 - 60 x 100% < 0: faster kernels would not shorten the step (gain 0, not in "What to fix
// first"). GPU-bound (launched while the first ran, no gap): the whole 23.99%.
std::string host_bound_trace(bool host_bound) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80'000'000'000, 132);
  t.step(1, 0, 1000);
  t.op("aten::add", 5, 10, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096], []], )"
       R"("Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  t.launch("vectorized_elementwise_kernel", 10, 20, 300, 1);
  double second = host_bound ? 880 : 320;  // the second kernel's start
  t.op("my::custom_op", host_bound ? 870 : 100, 10, 2, 1);
  t.launch("my_custom_kernel", host_bound ? 875 : 105, second, 100, 2);
  return t.json();
}

TEST(RooflineGain, BoundedByTheGpusIdleTimeWaitingOnTheHost) {
  for (bool host_bound : {true, false}) {
    ReportModel report = report_of_json(host_bound_trace(host_bound), default_book());
    double saving = 100 * (300 - 2 * 100663296.0 / 3350e9 * 1e6) / 1000;  // 23.99%
    EXPECT_NEAR(*report.metrics.get(Metric::RooflineSavingPct), saving, 1e-3) << host_bound;
    apply_gate(report, default_rules(), nullptr, {});
    const ReportFinding* far = find_finding(report, "ops.far-from-roofline");
    ASSERT_NE(far, nullptr);
    EXPECT_EQ(far->status, FindingStatus::Warn);
    ASSERT_TRUE(far->gain_pct);
    if (host_bound) {
      // The 560 us gap [320, 880] waits for the host but for the last 4 us, when the second kernel's
      // call had returned (876) and it was queued (issue 53): 556 / 560.
      EXPECT_DOUBLE_EQ(*report.metrics.get(Metric::GpuIdleHostWaitPct), 100.0 * 556 / 560);
      EXPECT_EQ(*far->gain_pct, 0);
      EXPECT_FALSE(far->fix_first);
      std::string page = render_html(report).page;
      std::size_t first = page.find("What to fix first");
      std::string diagnosis =
          first == std::string::npos ? "" : page.substr(first, page.find("</div>", first) - first);
      EXPECT_EQ(diagnosis.find("finding-ops.far-from-roofline"), std::string::npos) << diagnosis;
    } else {
      EXPECT_NEAR(*far->gain_pct, saving, 1e-3);
      EXPECT_TRUE(far->fix_first);
    }
  }
}

// "What to fix first" takes findings whose gain is at least advice.fix_first_min_gain_pct of the
// step: raising it to 50% drops the GPU-bound step's 23.99%.
TEST(FixFirst, TheThresholdIsARulesSetting) {
  RuleBook book = load_rule_book({write_text(temp_dir() + "/advice.yaml", R"(schema: perfgate-rules/1
advice:
  fix_first_min_gain_pct: 50
)")});
  EXPECT_EQ(book.rules.fix_first_min_gain_pct, 50);
  ReportModel report = report_of_json(host_bound_trace(false), book);
  apply_gate(report, book.rules, nullptr, {});
  const ReportFinding* far = find_finding(report, "ops.far-from-roofline");
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(far->status, FindingStatus::Warn);
  EXPECT_FALSE(far->fix_first);
}

// vLLM's graph-replay traces on an MI300X: deviceProperties with an empty name, compute 9.4, 304
// CUs, and roctracer/HIP versions at the top level. The device is named from them, its
// architecture is gfx942 and gpu_peaks gives it the MI300X's ceilings.
TEST(AmdDevices, AnUnnamedMi300xIsIdentifiedFromItsProperties) {
  TraceBuilder t;
  t.top_level("roctracer_version", "\"4.1\"");
  t.top_level("hip_runtime_version", "\"60342134\"");
  t.device(0, "", 9, 4, 206'141'652'992, 304);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 20, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
  t.launch("Cijk_Alik_Bljk_BBS_BH_MT256x256x64_MI16x16x16x1", 12, 100, 200, 1);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].name, "AMD GPU compute 9.4, 304 CUs, 192 GiB");
  EXPECT_EQ(w.gpus[0].architecture, "gfx942");
  ASSERT_FALSE(w.tables.roofline.empty());
  EXPECT_EQ(w.tables.roofline[0].peak_tflops, 1307.4);  // the MI300X's BF16 peak
  EXPECT_TRUE(w.metrics.get(Metric::ComputeMfuPct));
  // Without the HIP keys, nor warp size 64, an unnamed device stays unnamed.
  TraceBuilder plain;
  plain.device(0, "", 9, 4, 206'141'652'992, 304);
  plain.step(1, 0, 1000);
  plain.launch("k", 10, 100, 50);
  EXPECT_EQ(analyse_json(plain.json()).gpus.at(0).name, "");
}

// AOTriton's attn_fwd (what _flash_attention_forward runs on ROCm) and composable_kernel's FMHA
// kernels run on the matrix cores: counted as Tensor Core (matrix-core) kernels.
TEST(AmdDevices, AotritonAndCkAttentionKernelsAreMatrixCoreKernels) {
  for (const char* kernel : {"attn_fwd", "bwd_kernel_dk_dv",
                             "_ZN7ck_tile6kentryILi64ENS_13FmhaFwdKernelINS_22BlockFmhaPipelineQRKSVS"}) {
    TraceBuilder t;
    t.device(0, "AMD Instinct MI300X", 9, 4, 206'141'652'992, 304);
    t.step(1, 0, 5000);
    t.op("aten::_flash_attention_forward", 10, 20, 1, 1,
         R"("Input Dims": [[1, 559, 16, 64], [1, 559, 16, 64], [1, 559, 16, 64]], )"
         R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
    t.launch(kernel, 12, 100, 4020, 1);
    WorkerAnalysis w = analyse_json(t.json());
    EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreKernelTimePct), 100) << kernel;
  }
}

}  // namespace
}  // namespace perfgate::testing
