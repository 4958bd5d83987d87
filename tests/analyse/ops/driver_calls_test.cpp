// Issue 14, item 1: cuLaunchKernel and other driver-API calls (`cuda_driver`). perfgate counts them
// as runtime calls by default; the TensorBoard plugin reads none of them, and `--rules tb-plugin`
// must do the same (classification: attribution.count_driver_api_calls: false).
#include <gtest/gtest.h>

#include <algorithm>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// One step [0, 1000] us. aten::linear [10, 210] launches, with External id 1:
//   a Tensor Core GEMM through the driver API: cuLaunchKernel [20, 70] -> kernel [100, 400];
//   an elementwise kernel through the runtime: cudaLaunchKernel [150, 160] -> kernel [400, 500].
std::string driver_launch_trace() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::linear", 10, 200, 1);
  t.raw_event(R"({"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 100, "tid": 1,)"
              R"( "ts": 20, "dur": 50, "args": {"correlation": 5, "External id": 1}})");
  t.kernel("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64", 100, 300, 5, 0, 7, {}, 1);
  t.runtime("cudaLaunchKernel", 150, 10, 6, 1).kernel("elementwise_kernel", 400, 100, 6, 0, 7, {}, 1);
  return t.json();
}

const OpRow& linear(const WorkerAnalysis& w) {
  auto it = std::find_if(w.tables.ops.begin(), w.tables.ops.end(),
                         [](const OpRow& r) { return r.name == "aten::linear"; });
  EXPECT_NE(it, w.tables.ops.end());
  return *it;
}

double runtime_us(const WorkerAnalysis& w) {
  return static_cast<double>(
             w.steps.steps.at(0).breakdown[static_cast<std::size_t>(BreakdownPart::Runtime)]) /
         1000.0;
}

TEST(DriverCalls, CountAsRuntimeCallsByDefault) {
  WorkerAnalysis w = analyse_json(driver_launch_trace());
  // Both kernels are the op's: 300 + 100 us, 300 of them on Tensor Cores.
  EXPECT_EQ(linear(w).device_total, 400'000);
  EXPECT_EQ(linear(w).tc_device, 300'000);
  EXPECT_TRUE(linear(w).uses_tc);
  // Runtime in the step breakdown: cuLaunchKernel [20, 70] (no kernel runs then); cudaLaunchKernel
  // [150, 160] lies under the GEMM, which the breakdown counts first.
  EXPECT_DOUBLE_EQ(runtime_us(w), 50);
  // Tensor Core share: 300 of the 400 us of kernels.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreKernelTimePct), 75.0);
}

TEST(DriverCalls, TbPluginModeReadsNoneAsThePluginDoes) {
  WorkerAnalysis w = analyse_json(driver_launch_trace(), {}, {"tb-plugin"});
  // The GEMM has no launching call the plugin knows: it belongs to no op.
  EXPECT_EQ(linear(w).device_total, 100'000);
  EXPECT_EQ(linear(w).tc_device, 0);
  EXPECT_FALSE(linear(w).uses_tc);
  EXPECT_DOUBLE_EQ(runtime_us(w), 0);
  // The kernels themselves still count: the step's kernel time is [100, 500].
  EXPECT_EQ(w.steps.steps.at(0).breakdown[static_cast<std::size_t>(BreakdownPart::Kernel)], 400'000);
  // The plugin's Tensor Core share is of the kernels whose launching call it read: the
  // elementwise kernel only, 0 of 100 us.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::TensorCoreKernelTimePct), 0.0);
  // And the report says what was left out and why.
  EXPECT_TRUE(has_line(w.warnings, "1 driver-API calls (cuda_driver) not read"));
}

TEST(DriverCalls, TheSettingsAreRuleFileKeys) {
  EXPECT_TRUE(load_rule_book({}).knowledge.count_driver_api_calls);
  EXPECT_FALSE(load_rule_book({"tb-plugin"}).knowledge.count_driver_api_calls);
  EXPECT_TRUE(load_rule_book({}).knowledge.tc_share_counts_unlaunched_kernels);
  EXPECT_FALSE(load_rule_book({"tb-plugin"}).knowledge.tc_share_counts_unlaunched_kernels);
}

// Kernels with no launching call (here: launched before the capture began) count in the Tensor
// Core share by default, not in the plugin's.
TEST(DriverCalls, KernelsWithoutALaunchingCallAndTheTensorCoreShare) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.kernel("volta_h884gemm_128x128_ldg8_nn", 100, 300, 41, 0, 7);  // correlation 41: no call
  t.op("aten::relu", 10, 200, 1);
  t.runtime("cudaLaunchKernel", 20, 10, 42, 1).kernel("elementwise_kernel", 400, 100, 42, 0, 7, {}, 1);
  WorkerAnalysis all = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*all.metrics.get(Metric::TensorCoreKernelTimePct), 75.0);
  WorkerAnalysis plugin = analyse_json(t.json(), {}, {"tb-plugin"});
  EXPECT_DOUBLE_EQ(*plugin.metrics.get(Metric::TensorCoreKernelTimePct), 0.0);
}

}  // namespace
}  // namespace perfgate::testing
