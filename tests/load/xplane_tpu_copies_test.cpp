// Issue 91, item 1: a TPU's asynchronous copies and its program runs, on hand-built spaces whose
// answers are worked out here. A copy-start ... copy-done pair is one transfer from the copy-start
// to the copy-done's end, its bytes once, its direction from the memory spaces of its shapes (XLA's
// host memory space S(5)); the copy ops are not kernels and their bytes not the program's memory
// traffic. The host call that runs a program is `…Executable::Execute`, not ExecutePrepare or
// ExecuteLaunch inside it.
#include <gtest/gtest.h>

#include <string>

#include "analyse/worker_analysis.h"
#include "load/xplane/xplane_reader.h"
#include "model/xla_hlo.h"
#include "support/helpers.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

enum : std::int64_t { kBytes = 1, kCategory, kShape };
const std::vector<std::pair<std::int64_t, std::string>> kStats = {
    {kBytes, "bytes_accessed"}, {kCategory, "hlo_category"}, {kShape, "shape_with_layout"}};

const std::string kDevice = "f32[1024]{0:T(256)}";
const std::string kHost = "f32[1024]{0:T(256)S(5)}";

// TPU:0: a parameter in host memory prefetched (copy-start at 1,000 ns, 4 ns; copy-done waits
// [5,000, 9,000) ns), a loop fusion on it [9,000, 12,000) ns, and its result offloaded to the host
// (copy-start.1 at 12,000 ns; copy-done.1 [15,000, 15,001) ns). Each copy moves 4,096 bytes.
Plane tpu() {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  std::string in_tuple = "(" + kDevice + ", " + kHost + ", u32[]{:S(2)})";
  std::string out_tuple = "(" + kHost + ", " + kDevice + ", u32[]{:S(2)})";
  t.event_names = {{1, "%copy-start = " + in_tuple + " copy-start(" + kHost + " %param)"},
                   {2, "%copy-done = " + kDevice + " copy-done(" + in_tuple + " %copy-start)"},
                   {3, "%add_fusion = " + kDevice + " fusion(" + kDevice + " %copy-done), kind=kLoop"},
                   {4, "%copy-start.1 = " + out_tuple + " copy-start(" + kDevice + " %add_fusion)"},
                   {5, "%copy-done.1 = " + kHost + " copy-done(" + out_tuple + " %copy-start.1)"}};
  t.event_display_names = {
      {1, "copy-start"}, {2, "copy-done"}, {3, "add_fusion"}, {4, "copy-start.1"}, {5, "copy-done.1"}};
  t.event_stats = {
      {1, {int_stat(kBytes, 4096), str_stat(kCategory, "copy-start"), str_stat(kShape, in_tuple)}},
      {2, {int_stat(kBytes, 4096), str_stat(kCategory, "copy-done"), str_stat(kShape, kDevice)}},
      {3, {int_stat(kBytes, 8192), str_stat(kCategory, "loop fusion")}},
      {4, {int_stat(kBytes, 4096), str_stat(kCategory, "copy-start"), str_stat(kShape, out_tuple)}},
      {5, {int_stat(kBytes, 4096), str_stat(kCategory, "copy-done"), str_stat(kShape, kHost)}}};
  t.lines = {line(1, "XLA Ops", 0,
                  {event(1, 1'000'000, 4'000), event(2, 5'000'000, 4'000'000), event(3, 9'000'000, 3'000'000),
                   event(4, 12'000'000, 4'000), event(5, 15'000'000, 1'000)})};
  return t;
}

// The host: the program's run [0, 20,000) ns, with the steps inside it that PjRt records.
Plane host() {
  Plane h = plane(0, "/host:CPU");
  h.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"},
                   {2, "TfrtTpuLoadedExecutable::ExecutePrepare"},
                   {3, "TfrtTpuLoadedExecutable::ExecuteLaunch"}};
  h.lines = {
      line(4, "main", 0, {event(1, 0, 20'000'000), event(2, 100'000, 500'000), event(3, 600'000, 200'000)})};
  return h;
}

TEST(XplaneTpuCopies, ACopyIsOneTransferFromItsStartToItsDone) {
  Profile p = xplane::read_space(space({tpu(), host()}), "tpu.xplane.pb", {});
  // The fusion and two transfers; no activity for the copy-starts.
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  const GpuActivity& prefetch = p.gpu_activities[0];
  EXPECT_EQ(p.str(prefetch.name), "copy-done");
  EXPECT_EQ(prefetch.kind, GpuActivityKind::Memcpy);
  EXPECT_EQ(prefetch.copy_kind, CopyKind::HostToDevice);
  EXPECT_EQ(prefetch.bytes, 4096u);
  EXPECT_EQ(prefetch.start, 1000);  // its copy-start's
  EXPECT_EQ(prefetch.end, 9000);    // its copy-done's end
  const GpuActivity& fusion = p.gpu_activities[1];
  EXPECT_EQ(fusion.kind, GpuActivityKind::Kernel);
  EXPECT_EQ(p.str(fusion.name), "add_fusion");
  const GpuActivity& offload = p.gpu_activities[2];
  EXPECT_EQ(offload.kind, GpuActivityKind::Memcpy);
  EXPECT_EQ(offload.copy_kind, CopyKind::DeviceToHost);
  EXPECT_EQ(offload.bytes, 4096u);
  EXPECT_EQ(offload.start, 12000);
  EXPECT_EQ(offload.end, 15001);
  // On a transfer line of the TPU's, apart from its ops' line; the two do not overlap: one line.
  EXPECT_NE(prefetch.stream, fusion.stream);
  EXPECT_EQ(prefetch.stream, offload.stream);
}

TEST(XplaneTpuCopies, TheProgramRunIsExecuteNotItsStepsAndItsBytesLeaveTheCopiesOut) {
  Profile p = xplane::read_space(space({tpu(), host()}), "tpu.xplane.pb", {});
  ASSERT_EQ(p.runtime_calls.size(), 1u);
  EXPECT_EQ(p.str(p.runtime_calls[0].name), "TfrtTpuLoadedExecutable::Execute");
  for (const GpuActivity& a : p.gpu_activities) EXPECT_EQ(a.correlation, p.runtime_calls[0].correlation);
  // The run returned after its work (20,000 >= 15,001 ns): a wait on the device.
  ASSERT_EQ(p.gpu_syncs.size(), 1u);
  // The ops' bytes: the fusion's 8,192; the copies' 2 x 4,096 cross the host link, not the device's
  // memory (no bytes), and each copy holds the core for its copy-done's time (issue 91): 4,000 ns
  // for copy-done, 1 ns for copy-done.1, though their transfers last 8,000 and 3,001 ns.
  ASSERT_TRUE(p.xla_hlo);
  ASSERT_EQ(p.xla_hlo->ops.size(), 3u);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[0].bytes, -1.0);
  EXPECT_EQ(p.xla_hlo->ops[0].own_ns, 4000);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[1].bytes, 8192.0);
  EXPECT_EQ(p.xla_hlo->ops[1].own_ns, -1);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[2].bytes, -1.0);
  EXPECT_EQ(p.xla_hlo->ops[2].own_ns, 1);
}

// Copies that overlap each other go on lines of their own, so that no line runs two at once.
TEST(XplaneTpuCopies, ConcurrentTransfersGetLinesOfTheirOwn) {
  Plane t = tpu();
  // copy-start.1 moved before the prefetch's copy-done: [4,000, 15,001) overlaps [1,000, 9,000).
  t.lines = {line(1, "XLA Ops", 0,
                  {event(1, 1'000'000, 4'000), event(4, 4'000'000, 4'000), event(2, 5'000'000, 4'000'000),
                   event(3, 9'000'000, 3'000'000), event(5, 15'000'000, 1'000)})};
  Profile p = xplane::read_space(space({t, host()}), "tpu.xplane.pb", {});
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  const GpuActivity *prefetch = nullptr, *offload = nullptr;
  for (const GpuActivity& a : p.gpu_activities) {
    if (p.str(a.name) == "copy-done") prefetch = &a;
    if (p.str(a.name) == "copy-done.1") offload = &a;
  }
  ASSERT_TRUE(prefetch && offload);
  EXPECT_EQ(prefetch->start, 1000);
  EXPECT_EQ(offload->start, 4000);
  EXPECT_NE(prefetch->stream, offload->stream);
}

// The analysis: the TensorCore ran its fusion 3,000 ns; the transfers are copies, 4,096 bytes each way.
TEST(XplaneTpuCopies, TransfersAreCopiesNotKernelTime) {
  Profile p = xplane::read_space(space({tpu(), host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_EQ(w.metrics.get(Metric::MemcpyH2dBytes), 4096);
  EXPECT_EQ(w.metrics.get(Metric::MemcpyD2hBytes), 4096);
  EXPECT_EQ(w.metrics.get(Metric::MemcpyH2dCount), 1);
  // 4,096 bytes in 8,000 ns: 0.512 GB/s.
  EXPECT_NEAR(*w.metrics.get(Metric::MemcpyH2dGbps), 0.512, 1e-9);
}

}  // namespace
}  // namespace perfgate::testing
