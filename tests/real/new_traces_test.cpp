// Issue 14, item 8: the three TraceLens traces added to ../shared/traces, with expected values
// computed from their JSON by tests/real/new_traces_expected.py (plain counts and sums of the
// events; no perfgate code).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

#include "gate/gate.h"
#include "render/format.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// What the reader loaded: kernels, and those whose correlation id matches no runtime or driver call.
std::pair<std::size_t, std::size_t> loaded_kernels(const std::string& file) {
  LoadedRun run = load_run({shared_traces_dir() + "/" + file});
  const Profile& p = run.workers.front();
  std::set<std::int64_t> launched;
  for (const RuntimeCall& c : p.runtime_calls) launched.insert(c.correlation);
  std::size_t kernels = 0, without = 0;
  for (const GpuActivity& a : p.gpu_activities) {
    if (a.kind != GpuActivityKind::Kernel) continue;
    ++kernels;
    without += launched.count(a.correlation) == 0;
  }
  return {kernels, without};
}

WorkerAnalysis analyse_shared(const std::string& file, const std::vector<std::string>& rules = {}) {
  Classification c = rules.empty() ? default_classification() : load_rule_book(rules).knowledge;
  LoadedRun run = load_run({shared_traces_dir() + "/" + file}, load_options_for(c));
  return analyse_profile(run.workers.front(), c, {});
}

std::uint64_t kernel_calls(const WorkerAnalysis& w) {
  std::uint64_t n = 0;
  for (const KernelRow& k : w.tables.kernels) n += k.calls;
  return n;
}

const OpRow* no_op_row(const WorkerAnalysis& w) {
  auto it = std::find_if(w.tables.ops.begin(), w.tables.ops.end(),
                         [](const OpRow& r) { return r.name == kNoOpName; });
  return it == w.tables.ops.end() ? nullptr : &*it;
}

// 154 kernels, all with a launch call; 49 of them (406.015 us) launched through cuLaunchKernel
// (cuda_driver), which the TensorBoard plugin does not read.
TEST(NewRealTraces, H100CudnnDriverApiLaunches) {
  if (shared_traces_dir().empty()) GTEST_SKIP() << "../shared/traces not found";
  WorkerAnalysis w = analyse_shared("h100_cudnn_driver_api_conv.json.gz");
  EXPECT_EQ(kernel_calls(w), 154u);
  EXPECT_EQ(*w.metrics.get(Metric::KernelsWithoutLaunch), 0);
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].architecture, "Hopper");
  WorkerAnalysis plugin = analyse_shared("h100_cudnn_driver_api_conv.json.gz", {"tb-plugin"});
  EXPECT_EQ(kernel_calls(plugin), 154u);  // the kernels themselves are read in both modes
  EXPECT_EQ(*plugin.metrics.get(Metric::KernelsWithoutLaunch), 49);
  // In the plugin's mode the driver-launched kernels belong to no op: the (no op) row grows by
  // exactly their time.
  const OpRow* outside = no_op_row(plugin);
  ASSERT_NE(outside, nullptr);
  const OpRow* outside_default = no_op_row(w);
  TimeNs before = outside_default ? outside_default->device_total : 0;
  EXPECT_NEAR(static_cast<double>(outside->device_total - before) / 1000.0, 406.015, 1e-6);
}

// 1,465 kernels; 436 have no launch call in the slice (launched before it): all are read, none
// dropped. One step.
TEST(NewRealTraces, H100LlmInferenceSlice) {
  if (shared_traces_dir().empty()) GTEST_SKIP() << "../shared/traces not found";
  EXPECT_EQ(loaded_kernels("h100_llm_inference_slice.json.gz"),
            std::make_pair(std::size_t{1465}, std::size_t{436}));
  WorkerAnalysis w = analyse_shared("h100_llm_inference_slice.json.gz");
  EXPECT_EQ(*w.metrics.get(Metric::StepsCount), 1);
  EXPECT_EQ(w.steps.steps.at(0).name, "ProfilerStep#6");
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].architecture, "Hopper");
}

// ProfilerStep#15..17 on the CPU and again on the GPU timeline: three steps, not six; the GPUs
// are MI300X, gfx942.
TEST(NewRealTraces, Mi300xGpuSideStepsAreNotCountedTwice) {
  if (shared_traces_dir().empty()) GTEST_SKIP() << "../shared/traces not found";
  WorkerAnalysis w = analyse_shared("mi300x_resnet_actckpt_gpu_steps.json.gz");
  ASSERT_EQ(w.steps.steps.size(), 3u);
  EXPECT_EQ(w.steps.steps[0].name, "ProfilerStep#15");
  EXPECT_EQ(w.steps.steps[2].name, "ProfilerStep#17");
  EXPECT_EQ(loaded_kernels("mi300x_resnet_actckpt_gpu_steps.json.gz"),
            std::make_pair(std::size_t{2995}, std::size_t{757}));
  ASSERT_FALSE(w.gpus.empty());
  EXPECT_EQ(w.gpus[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(w.gpus[0].architecture, "gfx942");
}

// Issue 29, item 3: the GPU runs about 30 ms behind the host, so the window starts after the host
// side of step 15; the ops table counted only the calls after that (record_param_comms: 7 calls,
// 24.6 ms) while "kernels by op" counted every kernel that ran in the window (47.2 ms). The ops of
// the three steps: 18 calls, whose 12 kernels take 47,200.310 us, in both tables.
TEST(NewRealTraces, Mi300xOpsAndKernelsByOpCountTheSameWork) {
  if (shared_traces_dir().empty()) GTEST_SKIP() << "../shared/traces not found";
  WorkerAnalysis w = analyse_shared("mi300x_resnet_actckpt_gpu_steps.json.gz");
  auto op = std::find_if(w.tables.ops.begin(), w.tables.ops.end(),
                         [](const OpRow& r) { return r.name == "record_param_comms"; });
  ASSERT_NE(op, w.tables.ops.end());
  EXPECT_EQ(op->calls, 18u);
  EXPECT_EQ(op->kernel_calls, 12u);
  EXPECT_NEAR(static_cast<double>(op->device_self) / 1000.0, 47200.310, 1e-3);
  TimeNs by_op = 0;
  for (const KernelRow& k : w.tables.kernels_by_op)
    if (k.op == "record_param_comms") by_op += k.total;
  EXPECT_EQ(by_op, op->device_self);
  ASSERT_FALSE(w.tables.top_gpu_ops.empty());
  EXPECT_EQ(w.tables.top_gpu_ops[0].device_self, op->device_self);
}

// Issue 29, item 3: a BF16 run whose time off matrix cores inside the convolutions is mostly
// MIOpen's NCHW <-> NHWC transposes (76.6205% of it, new_traces_expected.py); the rest is MIOpen's
// cast and fill kernels of BF16 ops. The advice was "move them to FP16/BF16"; it is channels_last.
TEST(NewRealTraces, Mi300xTensorCoreAdviceIsChannelsLast) {
  if (shared_traces_dir().empty()) GTEST_SKIP() << "../shared/traces not found";
  ReportModel report =
      report_of_files({shared_traces_dir() + "/mi300x_resnet_actckpt_gpu_steps.json.gz"}, default_book());
  EXPECT_NEAR(*report.metrics.get(Metric::TensorCoreNonTcLayoutPct), 76.6205, 1e-3);
  EXPECT_DOUBLE_EQ(*report.metrics.get(Metric::TensorCoreNonTcFp32Pct), 0);
  EXPECT_DOUBLE_EQ(*report.metrics.get(Metric::TensorCoreNonTcUnknownPrecisionPct), 0);
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* f = find_finding(report, "tensor-cores.low-efficiency");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn);
  EXPECT_NE(f->recommendation.find("torch.channels_last"), std::string::npos) << f->recommendation;
  EXPECT_EQ(f->recommendation.find("FP16/BF16"), std::string::npos) << f->recommendation;
  EXPECT_EQ(f->recommendation.find("autocast"), std::string::npos) << f->recommendation;
}

}  // namespace
}  // namespace perfgate::testing
