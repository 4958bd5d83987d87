// Issue 14, item 4: a GPU the trace does not describe (no deviceProperties before PyTorch 1.10)
// gets its architecture from the kernel names it ran (rules: gpu_architectures), so that the
// Tensor Core rules still apply; a described one gets its architecture by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <zlib.h>
#include <boost/json.hpp>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// One step; aten::mm launches an FP32 SGEMM (no Tensor Cores) named for its architecture.
std::string fp32_gemm_trace(const std::string& kernel, bool describe_device) {
  TraceBuilder t;
  if (describe_device) t.device(0, "Tesla V100-SXM2-32GB", 7, 0, 34359738368, 80);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 100, 1);
  t.launch(kernel, 20, 200, 500, 1);
  return t.json();
}

TEST(Architecture, InferredFromKernelNamesWhenTheTraceDoesNotDescribeTheGpu) {
  WorkerAnalysis w = analyse_json(fp32_gemm_trace("volta_sgemm_128x64_nn", false));
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].architecture, "Volta");
  EXPECT_TRUE(w.gpus[0].architecture_inferred);
  EXPECT_EQ(w.gpus[0].compute_major, 7);
  EXPECT_EQ(w.gpus[0].compute_minor, 0);
  EXPECT_EQ(*w.metrics.get(Metric::GpuComputeCapability), 7.0);
  // The AMP rule applies (compute capability >= 7) and says the architecture was inferred.
  ReportModel report = report_of_json(fp32_gemm_trace("volta_sgemm_128x64_nn", false), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* amp = find_finding(report, "tensor-cores.amp");
  ASSERT_NE(amp, nullptr);
  EXPECT_EQ(amp->status, FindingStatus::Warn);
  EXPECT_NE(amp->problem.find("architecture Volta or newer, sm 7.0 or newer, inferred from kernel names"),
            std::string::npos)
      << amp->problem;
}

TEST(Architecture, TheNewestArchitectureAnyKernelNamesWins) {
  // H100s run cuDNN kernels built for sm80 next to their own sm90 ones.
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.launch("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc", 10, 100, 50);
  t.launch("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 20, 200, 50);
  t.launch("ampere_sgemm_64x32_nn", 30, 300, 50);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].architecture, "Hopper");
  EXPECT_EQ(w.gpus[0].compute_major, 9);
}

TEST(Architecture, NoKernelNameNamesOneThenNothingIsInferred) {
  WorkerAnalysis w = analyse_json(fp32_gemm_trace("my_custom_kernel", false));
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].architecture, "");
  EXPECT_FALSE(w.gpus[0].architecture_inferred);
  EXPECT_FALSE(w.metrics.get(Metric::GpuComputeCapability).has_value());
}

TEST(Architecture, ADescribedDeviceIsNamedByItsNameNotItsKernels) {
  WorkerAnalysis w = analyse_json(fp32_gemm_trace("sm90_xmma_gemm_f32", true));
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].architecture, "Volta");
  EXPECT_FALSE(w.gpus[0].architecture_inferred);
}

TEST(Architecture, AmdDevicesAreNamedByTheirGfxTarget) {
  TraceBuilder t;
  t.device(0, "AMD Instinct MI300X", 9, 4, 206141652992, 304);
  t.device(1, "AMD Radeon Graphics", 9, 0, 68702699520, 104);
  t.step(1, 0, 1000);
  t.launch("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI16x16x16x1", 10, 100, 50, 0, 0);
  t.launch("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI16x16x16x1", 20, 200, 50, 0, 1);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  ASSERT_EQ(report.gpus.size(), 2u);
  EXPECT_EQ(report.gpus[0].architecture, "gfx942");
  EXPECT_EQ(report.gpus[1].architecture, "gfx90x");  // 9.0 without a known model: the family
  CommandResult r =
      run_perfgate("analyze --verbose " + write_text(temp_dir() + "/amd.json", t.json()) + " --no-progress");
  EXPECT_NE(r.out.find("AMD Instinct MI300X (gfx942)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sm 9.4"), std::string::npos) << r.out;
}

TEST(Architecture, OneListedDeviceAndKernelsOnAnotherIdTakeTheListedOne) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, 108);
  t.step(1, 0, 1000);
  t.launch("ampere_sgemm_64x32_nn", 10, 100, 50, 0, 3);  // device 3
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].device, 3);
  EXPECT_EQ(w.gpus[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(w.gpus[0].architecture, "Ampere");
  EXPECT_TRUE(has_line(w.warnings, "the trace describes one device, id 0"));
}

// The old-API ResNet-50 on a V100 without its deviceProperties (as PyTorch <= 1.9 wrote it):
// the AMP finding still fires, saying the architecture was inferred.
TEST(Architecture, ResNet50WithoutDevicePropertiesStillGetsTheAmpFinding) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces is absent";
  gzFile in = gzopen((dir + "/resnet50_v100_workers0.pt.trace.json.gz").c_str(), "rb");
  ASSERT_NE(in, nullptr);
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  gzclose(in);
  boost::json::object trace = boost::json::parse(text).as_object();
  ASSERT_TRUE(trace.erase("deviceProperties"));
  ReportModel report = report_of_json(boost::json::serialize(trace), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  ASSERT_FALSE(report.gpus.empty());
  EXPECT_EQ(report.gpus[0].architecture, "Volta");
  EXPECT_TRUE(report.gpus[0].architecture_inferred);
  const ReportFinding* amp = find_finding(report, "tensor-cores.amp");
  ASSERT_NE(amp, nullptr);
  EXPECT_EQ(amp->status, FindingStatus::Warn);
  EXPECT_NE(amp->problem.find("inferred from kernel names"), std::string::npos) << amp->problem;
}

}  // namespace
}  // namespace perfgate::testing
