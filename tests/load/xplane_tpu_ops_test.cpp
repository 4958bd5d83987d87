// Issue 91, item 1: each op a TPU ran is an op of the op tables, not the host call that ran its
// program, on hand-built spaces whose answers are worked out here. The ops run under one Execute call
// are two rows with their own device time and FLOPs, the call stays their launch (and its wait on the
// device), and a copy counts the time its copy-done held the core, so that overlapping transfers are
// never summed into more time than the TPU had.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyse/worker_analysis.h"
#include "load/xplane/xplane_reader.h"
#include "support/helpers.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

enum : std::int64_t { kFlops = 1, kBytes, kCategory, kShape, kTfOp };
const std::vector<std::pair<std::int64_t, std::string>> kStats = {{kFlops, "flops"},
                                                                  {kBytes, "bytes_accessed"},
                                                                  {kCategory, "hlo_category"},
                                                                  {kShape, "shape_with_layout"},
                                                                  {kTfOp, "tf_op"}};

// One program run [0, 10,000) ns on the host, returning after its ops.
Plane host() {
  Plane h = plane(0, "/host:CPU");
  h.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"}};
  h.lines = {line(4, "main", 0, {event(1, 0, 10'000'000)})};
  return h;
}

// TPU:0 runs fusion.1 [1,000, 4,000) ns (2,000,000 FLOPs, 100,000 bytes) and convolution.2
// [4,000, 9,000) ns (6,000,000 FLOPs, 300,000 bytes) for that one run.
Plane two_ops() {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  t.event_names = {{1, "%fusion.1 = bf16[64,64]{1,0} fusion(p0), kind=kOutput"},
                   {2, "%convolution.2 = bf16[64,64]{1,0} convolution(fusion.1, p1)"}};
  t.event_display_names = {{1, "fusion.1"}, {2, "convolution.2"}};
  t.event_stats = {
      {1,
       {int_stat(kFlops, 2'000'000), int_stat(kBytes, 100'000), str_stat(kCategory, "convolution fusion")}},
      {2, {int_stat(kFlops, 6'000'000), int_stat(kBytes, 300'000), str_stat(kCategory, "convolution")}}};
  t.lines = {line(1, "XLA Ops", 0, {event(1, 1'000'000, 3'000'000), event(2, 4'000'000, 5'000'000)})};
  return t;
}

const OpRow* row(const WorkerAnalysis& w, const std::string& name) {
  auto it =
      std::find_if(w.tables.ops.begin(), w.tables.ops.end(), [&](const OpRow& r) { return r.name == name; });
  return it == w.tables.ops.end() ? nullptr : &*it;
}

TEST(XplaneTpuOps, TwoXlaOpsUnderOneExecuteAreTwoOpRows) {
  Profile p = xplane::read_space(space({two_ops(), host()}), "tpu.xplane.pb", {});
  // The call is still their launch, and its wait on the device (it returned at 10,000 >= 9,000 ns).
  ASSERT_EQ(p.runtime_calls.size(), 1u);
  for (const GpuActivity& a : p.gpu_activities) EXPECT_EQ(a.correlation, p.runtime_calls[0].correlation);
  ASSERT_EQ(p.gpu_syncs.size(), 1u);
  EXPECT_EQ(p.gpu_syncs[0].kind, GpuSyncKind::Context);
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  const OpRow* fusion = row(w, "fusion.1");
  const OpRow* conv = row(w, "convolution.2");
  const OpRow* call = row(w, "TfrtTpuLoadedExecutable::Execute");
  ASSERT_TRUE(fusion && conv && call);
  // Each its own device time (4,000 - 1,000 and 9,000 - 4,000 ns), FLOPs and kernel, no host time.
  EXPECT_EQ(fusion->calls, 1u);
  EXPECT_EQ(fusion->device_self, 3000);
  EXPECT_DOUBLE_EQ(fusion->flops, 2'000'000.0);
  EXPECT_EQ(fusion->kernel_calls, 1u);
  EXPECT_EQ(fusion->host_total, 0);
  EXPECT_EQ(conv->device_self, 5000);
  EXPECT_DOUBLE_EQ(conv->flops, 6'000'000.0);
  // The call holds them as its callees': 3,000 + 5,000 ns in all, none of its own; its host time
  // (10,000 ns) is its own.
  EXPECT_EQ(call->device_self, 0);
  EXPECT_EQ(call->device_total, 8000);
  EXPECT_EQ(call->host_total, 10000);
  EXPECT_EQ(call->host_self, 10000);
  EXPECT_DOUBLE_EQ(call->flops, 0.0);
  // The top op is the convolution (5,000 of 8,000 ns), then the fusion; FLOPs 2e6 + 6e6 in all.
  ASSERT_GE(w.tables.top_gpu_ops.size(), 2u);
  EXPECT_EQ(w.tables.top_gpu_ops[0].name, "convolution.2");
  EXPECT_EQ(w.tables.top_gpu_ops[1].name, "fusion.1");
  EXPECT_DOUBLE_EQ(w.compute.flops, 8'000'000.0);
}

// Each XLA op is a call of its own op type, by its own name (rules: op_types' XLA patterns), not the
// type of the Execute call around it: fusion.1 a fusion (3,000 ns), convolution.2 a convolution
// (5,000 ns); the call keeps its host time as "other", with no device time left.
TEST(XplaneTpuOps, EachXlaOpIsACallOfItsOwnType) {
  Profile p = xplane::read_space(space({two_ops(), host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  auto type = [&](const std::string& name) -> const OpTypeRow* {
    auto it = std::find_if(w.tables.op_types.begin(), w.tables.op_types.end(),
                           [&](const OpTypeRow& r) { return r.type == name; });
    return it == w.tables.op_types.end() ? nullptr : &*it;
  };
  const OpTypeRow* fusion = type("fusion (XLA)");
  const OpTypeRow* conv = type("convolution");
  const OpTypeRow* other = type("other");
  ASSERT_TRUE(fusion && conv && other);
  EXPECT_EQ(fusion->calls, 1u);
  EXPECT_EQ(fusion->gpu, 3000);
  EXPECT_EQ(conv->gpu, 5000);
  EXPECT_EQ(other->gpu, 0);
  EXPECT_EQ(other->cpu_total, 10000);
}

// The framework op names the row where the profile states one ("model/conv:Conv2D", less its type),
// and two instructions of one framework op are one row of two calls.
TEST(XplaneTpuOps, AFrameworkOpNamesItsInstructionsRow) {
  Plane t = two_ops();
  for (auto& [id, stats] : t.event_stats) stats.push_back(str_stat(kTfOp, "model/conv:Conv2D"));
  Profile p = xplane::read_space(space({t, host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  const OpRow* conv = row(w, "model/conv");
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->calls, 2u);
  EXPECT_EQ(conv->device_self, 8000);
  EXPECT_DOUBLE_EQ(conv->flops, 8'000'000.0);
  EXPECT_FALSE(row(w, "fusion.1"));
}

const std::string kDevice = "f32[1024]{0:T(256)}";
const std::string kHost = "f32[1024]{0:T(256)S(5)}";

// Two prefetches whose transfers overlap: copy-start at 1,000 ns and copy-start.1 at 2,000 ns;
// copy-done waits [6,000, 7,000) ns, copy-done.1 [7,000, 7,500) ns. The transfers last
// [1,000, 7,000) and [2,000, 7,500): 6,000 + 5,500 = 11,500 ns summed, 6,500 ns as their union.
Plane overlapping_copies() {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  std::string tuple = "(" + kDevice + ", " + kHost + ", u32[]{:S(2)})";
  t.event_names = {{1, "%copy-start = " + tuple + " copy-start(" + kHost + " %p0)"},
                   {2, "%copy-start.1 = " + tuple + " copy-start(" + kHost + " %p1)"},
                   {3, "%copy-done = " + kDevice + " copy-done(" + tuple + " %copy-start)"},
                   {4, "%copy-done.1 = " + kDevice + " copy-done(" + tuple + " %copy-start.1)"}};
  t.event_display_names = {{1, "copy-start"}, {2, "copy-start.1"}, {3, "copy-done"}, {4, "copy-done.1"}};
  auto stats = [&](const char* category, const std::string& shape) {
    return std::vector<std::string>{int_stat(kFlops, 0), int_stat(kBytes, 4096),
                                    str_stat(kCategory, category), str_stat(kShape, shape)};
  };
  t.event_stats = {{1, stats("copy-start", tuple)},
                   {2, stats("copy-start", tuple)},
                   {3, stats("copy-done", kDevice)},
                   {4, stats("copy-done", kDevice)}};
  t.lines = {line(1, "XLA Ops", 0,
                  {event(1, 1'000'000, 1'000), event(2, 2'000'000, 1'000), event(3, 6'000'000, 1'000'000),
                   event(4, 7'000'000, 500'000)})};
  return t;
}

TEST(XplaneTpuOps, OverlappingCopiesAreNeverSummedPastTheirUnion) {
  Profile p = xplane::read_space(space({overlapping_copies(), host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  // The transfers stay copies over their spans: busy 6,500 ns of the TPU's, 8,192 bytes.
  EXPECT_EQ(w.metrics.get(Metric::MemcpyH2dBytes), 8192);
  const OpRow* first = row(w, "copy-done");
  const OpRow* second = row(w, "copy-done.1");
  const OpRow* call = row(w, "TfrtTpuLoadedExecutable::Execute");
  ASSERT_TRUE(first && second && call);
  // Each copy's row holds the time its copy-done held the core: 1,000 and 500 ns.
  EXPECT_EQ(first->device_self, 1000);
  EXPECT_EQ(second->device_self, 500);
  // Neither the call's total nor the rows' sum passes the transfers' union (6,500 ns); summed, the
  // transfers would make 11,500 ns.
  EXPECT_EQ(call->device_total, 1500);
  TimeNs all = 0;
  for (const OpRow& r : w.tables.ops) all += r.device_self;
  EXPECT_LE(all, 6500);
  EXPECT_EQ(all, 1500);
  // The copies are first among the top ops, the longer wait first; no FLOPs counted.
  ASSERT_EQ(w.tables.top_gpu_ops.size(), 2u);
  EXPECT_EQ(w.tables.top_gpu_ops[0].name, "copy-done");
  EXPECT_DOUBLE_EQ(w.compute.flops, 0.0);
}

}  // namespace
}  // namespace perfgate::testing
