// Issue 53, item 8: the smaller items. Work before the first step noted with its size; Kineto's
// 2026 rows: Stream Sync on a virtual row (a synchronisation, never GPU busy time) and PM-sampling
// counters (named where they are not read).
#include <gtest/gtest.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// One step [1000, 2000] us with a 200 us kernel; before it, two kernels with no launch call in the
// trace (launched before the profiler began), [0, 300] and [300, 500]: 500 of the trace's 700 us of
// GPU time, 71.4%, left out of the window.
TEST(WorkBeforeTheWindow, IsNotedWithItsSize) {
  TraceBuilder t;
  t.kernel("queued_before_capture", 0, 300, 1).kernel("queued_before_capture", 300, 200, 2);
  t.step(1, 1000, 1000);
  t.launch("k", 1010, 1100, 200);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_TRUE(has_line(w.warnings,
                       "2 GPU activities (0.500 ms of GPU time, 71.4% of the trace's) started "
                       "before the window's first step"))
      << (w.warnings.empty() ? "" : note_text(w.warnings.front()));
}

// Under 5% of the GPU time: no note. [0, 10] before a 200 us kernel in the step: 4.8%.
TEST(WorkBeforeTheWindow, ASliverIsNotNoted) {
  TraceBuilder t;
  t.kernel("queued_before_capture", 0, 10, 1);
  t.step(1, 1000, 1000);
  t.launch("k", 1010, 1100, 200);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_FALSE(has_line(w.warnings, "before the window's first step"));
}

// Kineto 2026 (research/53/hand/mk_sync.py, from kineto's output_json.cpp): a cudaStreamSynchronize
// [110, 305] us and its Stream Sync record on the virtual row tid 1,000,007 ("stream 7 (sync)",
// kineto #1356); PM-sampling counters under pid "GPU 0 Counters" (kineto #1530, the value under the
// key ""). The sync is read as a synchronisation of stream 7 and adds no GPU busy time: busy is the
// kernel's 200 us of the 400 us step (50%). Already so before issue 53 (a pinning test); the
// counters were "8 events of phase 'C'", now named.
TEST(Kineto2026, StreamSyncRowsAreSyncsAndCountersAreNamed) {
  TraceBuilder t;
  t.step(1, 0, 400);
  t.op("aten::mm", 50, 40, 1);
  t.runtime("cudaLaunchKernel", 60, 10, 5, 1).kernel("gemm_kernel", 100, 200, 5, 0, 7, {}, 1);
  t.runtime("cudaStreamSynchronize", 110, 195, 6);
  t.raw_event(
      R"j({"name":"thread_name","ph":"M","ts":110,"pid":0,"tid":1000007,"args":{"name":"stream 7 (sync)"}})j");
  t.raw_event(
      R"j({"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":1000007,"ts":110,"dur":195,)j"
      R"j("args":{"cuda_sync_kind":"Stream Sync","stream":7,"correlation":6,"device":0,"context":1}})j");
  for (int i = 0; i < 4; ++i) {
    std::string ts = std::to_string(100 * i);
    t.raw_event(
        R"j({"ph":"C","cat":"hardware_counters","name":"sm__cycles_active.avg","pid":"GPU 0 Counters",)j"
        R"j("tid":0,"ts":)j" +
        ts + R"j(,"args":{"":1500}})j");
    t.raw_event(
        R"j({"ph":"C","cat":"hardware_counters","name":"sm__cycles_elapsed.avg","pid":"GPU 0 Counters",)j"
        R"j("tid":0,"ts":)j" +
        ts + R"j(,"args":{"":1500}})j");
  }
  Profile p = load_json(t.json());
  ASSERT_EQ(p.gpu_syncs.size(), 1u);
  EXPECT_EQ(p.gpu_syncs[0].stream, 7);
  EXPECT_EQ(p.gpu_syncs[0].correlation, 6);
  EXPECT_TRUE(has_line(p.notes, "4 samples of the counter 'sm__cycles_active.avg' (phase 'C') are not used"));
  EXPECT_TRUE(
      has_line(p.notes, "4 samples of the counter 'sm__cycles_elapsed.avg' (phase 'C') are not used"));
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuBusyPct), 100.0 * 200 / 400);
}

}  // namespace
}  // namespace perfgate::testing
