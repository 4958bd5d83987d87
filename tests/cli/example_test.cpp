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
  EXPECT_EQ(*w.metrics.get("gpu.count"), 1);
  EXPECT_GT(*w.metrics.get("breakdown.dataloader_pct"), 5);     // DataLoader without workers
  EXPECT_EQ(*w.metrics.get("tensor_core.kernel_time_pct"), 0);  // FP32: no Tensor Cores
  EXPECT_GT(*w.metrics.get("tensor_core.eligible_kernel_time_pct"), 50);
}

}  // namespace
}  // namespace perfgate::testing
