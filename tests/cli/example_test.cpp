// The bundled example is what tools/make_example.cpp writes, and shows what it is meant to show.
#include <gtest/gtest.h>

#include <zlib.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buffer[65536];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

TEST(Example, IsReproducibleFromItsGenerator) {
  std::string fresh = temp_dir() + "/fresh.pt.trace.json.gz";
  ASSERT_EQ(std::system((std::string(PERFGATE_MAKE_EXAMPLE) + " " + fresh).c_str()), 0);
  std::string committed = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
  EXPECT_EQ(gunzip(fresh), gunzip(committed)) << "regenerate examples/ with perfgate-make-example";
}

TEST(Example, AnalysesAsDescribedInItsReadme) {
  LoadedRun run = load_run({std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz"});
  const Profile& p = run.workers.front();
  EXPECT_TRUE(p.notes.empty());
  EXPECT_FALSE(p.forward_backward_links.empty());
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_EQ(w.steps.steps.size(), 8u);
  EXPECT_EQ(w.steps.steps.front().name, "ProfilerStep#3");
  EXPECT_EQ(*w.metrics.get(Metric::GpuCount), 1);
  EXPECT_GT(*w.metrics.get(Metric::BreakdownDataloaderPct), 5);   // DataLoader without workers
  EXPECT_EQ(*w.metrics.get(Metric::TensorCoreKernelTimePct), 0);  // FP32: no Tensor Cores
  EXPECT_GT(*w.metrics.get(Metric::TensorCoreEligibleKernelTimePct), 50);

  // FLOPs by hand from the generator's shapes (2 per multiply-accumulate; a backward gradient
  // costs one forward): conv1 64x32x32x32 outputs x 27 MACs, conv2 64x64x32x32 x 288, addmm
  // 64x10x16384; backward: conv2 (input and weight gradients), conv1 (weight gradient only: its
  // output_mask is [False, True, True]) and one mm of the same size as addmm. A bias adds one
  // addition per output (TraceLens's GEMM and CONV): conv1 64x32x32x32, conv2 64x64x32x32 and
  // addmm 64x10, forward; the bias gradients of conv1 and conv2 the same again, backward.
  double conv1 = 2.0 * 64 * 32 * 32 * 32 * 27;
  double conv2 = 2.0 * 64 * 64 * 32 * 32 * 288;
  double gemm = 2.0 * 64 * 10 * 16384;
  double biases = 2.0 * (64 * 32 * 32 * 32 + 64 * 64 * 32 * 32) + 64 * 10;
  double per_step = conv1 + conv2 + gemm + 2 * conv2 + conv1 + gemm + biases;
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 8 * per_step);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlopsCoveragePct), 100);
}

}  // namespace
}  // namespace perfgate::testing
