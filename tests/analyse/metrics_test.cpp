#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "analyse/metric_values.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TEST(MetricCatalog, NamesAreUniqueDottedAndDocumented) {
  std::set<std::string_view> seen;
  std::ifstream docs(std::string(PERFGATE_SOURCE_DIR) + "/docs/metrics.md");
  std::stringstream text;
  text << docs.rdbuf();
  for (const MetricInfo& m : metric_catalog()) {
    EXPECT_TRUE(seen.insert(m.name).second) << "duplicate " << m.name;
    EXPECT_NE(m.name.find('.'), std::string_view::npos) << m.name;
    EXPECT_TRUE(m.unit == "us" || m.unit == "%" || m.unit == "count" || m.unit == "ratio" ||
                m.unit == "bytes")
        << m.name << " " << m.unit;
    EXPECT_FALSE(m.definition.empty()) << m.name;
    EXPECT_NE(text.str().find("`" + std::string(m.name) + "`"), std::string::npos)
        << m.name << " is missing from docs/metrics.md";
  }
}

TEST(MetricValues, UnknownNamesAreProgrammingErrors) {
  MetricValues v;
  EXPECT_THROW(v.set("no.such_metric", 1.0), std::logic_error);
  v.set("steps.mean_us", 5.0);
  EXPECT_EQ(v.get("steps.mean_us"), 5.0);
  EXPECT_FALSE(v.get("steps.max_us"));
}

// Worker A: steps 1 and 2 last 100 and 200 µs; worker B: 150 and 120 µs. The run's steps take the
// slowest worker: 150 and 200, mean 175. GPU utilization averages the two GPUs:
// A has 50 + 10 µs of kernels in 300 µs, B 120 + 10 in 270.
TEST(RunMetrics, SeveralWorkersCombine) {
  std::string dir = temp_dir();
  TraceBuilder a;
  a.step(1, 0, 100).step(2, 100, 200);
  a.launch("k", 10, 20, 50);
  a.launch("k", 110, 120, 10);
  TraceBuilder b;
  b.step(1, 0, 150).step(2, 150, 120);
  b.launch("k", 10, 20, 120, 0, 1);
  b.launch("k", 160, 170, 10, 0, 1);
  a.write(dir + "/rank-0.json");
  b.write(dir + "/rank-1.json");
  LoadedRun run = load_run({dir});
  RunAnalysis r = analyse_run(run, default_classification(), {});
  ASSERT_EQ(r.workers.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.metrics.get("steps.mean_us"), 175);
  EXPECT_DOUBLE_EQ(*r.metrics.get("steps.max_us"), 200);
  EXPECT_EQ(*r.metrics.get("gpu.count"), 2);
  EXPECT_NEAR(*r.metrics.get("gpu.utilization_pct"), (100.0 * 60 / 300 + 100.0 * 130 / 270) / 2, 1e-9);
  EXPECT_DOUBLE_EQ(*r.workers[0].metrics.get("steps.mean_us"), 150);
  auto steps = run_steps(r.workers);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].first, "ProfilerStep#1");
  EXPECT_DOUBLE_EQ(steps[0].second, 150);
}

}  // namespace
}  // namespace perfgate::testing
