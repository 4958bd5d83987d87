// Host-side costs, idle time, communication, memory, step robustness, the timeline and ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "analyse/timeline/timeline.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// A synchronising call (cudaDeviceSynchronize, 50 µs), a synchronous cudaMemcpy (10 µs) and an
// asynchronous one (not counted); a pageable host-to-device copy of 1 MB in 100 µs (10 GB/s).
TEST(HostActivity, SyncCallsAndCopies) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.runtime("cudaDeviceSynchronize", 100, 50, 1);
  t.runtime("cudaMemcpy", 200, 10, 2);
  t.runtime("cudaMemcpyAsync", 300, 5, 3)
      .memcpy("Memcpy HtoD (Pageable -> Device)", 310, 100, 3, 0, 7, 1000000);
  t.launch("k", 500, 510, 5);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(*w.metrics.get(Metric::HostSyncCalls), 2);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::HostSyncUs), 60);
  EXPECT_EQ(*w.metrics.get(Metric::MemcpyH2dCount), 1);
  EXPECT_EQ(*w.metrics.get(Metric::MemcpyH2dBytes), 1e6);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::MemcpyH2dGbps), 10);
  EXPECT_EQ(*w.metrics.get(Metric::MemcpyPageableCount), 1);
  EXPECT_FALSE(w.metrics.get(Metric::MemcpyD2hGbps));  // no such copies
  // Runtime calls: 50 + 10 + 5 + 1 µs of the 1000 µs step.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::HostRuntimePct), 6.6);
  EXPECT_EQ(*w.metrics.get(Metric::KernelsCount), 1);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::KernelsShortPct), 100);
}

// Stream 7: K1 [10,110]; K2 [160,210] whose launch call starts at 130, after K1 ended: a 50 µs
// host-wait gap, but K3's call returned at 141, so from 141 to 160 the GPU had K3 queued: 19 µs are
// not the host's (issue 53), host wait 31, other 19. K3 [220,270], launched at 140 (before K2
// ended): a 10 µs gap, kernel wait. K4 [1010,1110], launched at 160: 740 µs, other. Of the 800 µs:
// host wait 31 (3.875%), kernel wait 10 (1.25%), other 759 (94.875%). The device's gaps: 50, 10,
// 740 -> one of 500 µs+.
// (Times start at 0: a trace's times may not be negative, issue 28.)
std::string idle_trace() {
  TraceBuilder t;
  t.step(1, 0, 1200);
  t.runtime("cudaLaunchKernel", 5, 1, 1).kernel("k1", 10, 100, 1);
  t.runtime("cudaLaunchKernel", 130, 40, 2).kernel("k2", 160, 50, 2);
  t.runtime("cudaLaunchKernel", 140, 1, 3).kernel("k3", 220, 50, 3);
  t.runtime("cudaLaunchKernel", 160, 1, 4).kernel("k4", 1010, 100, 4);
  return t.json();
}

TEST(Idle, HtaIdleBreakdownAndGaps) {
  WorkerAnalysis w = analyse_json(idle_trace());
  EXPECT_EQ(w.idle.host_wait, 31000);
  EXPECT_EQ(w.idle.kernel_wait, 10000);
  EXPECT_EQ(w.idle.other, 759000);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuIdleHostWaitPct), 3.875);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuIdleKernelWaitPct), 1.25);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuIdleOtherPct), 94.875);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuLongestGapUs), 740);
  EXPECT_EQ(*w.metrics.get(Metric::GpuGapsOver500us), 1);
  ASSERT_EQ(w.tables.gpu_gaps.size(), 1u);
  EXPECT_EQ(w.tables.gpu_gaps[0].start, 270000);
  // K2's launch call [130,170] was still running when K1 ended at 110: a launch gap of 50 µs.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::KernelsLaunchGapUs), 50);
}

// An NCCL kernel [100,300] overlapped by compute kernels for [150,250] on another stream; the
// record_param_comms op says 1024 BFloat16 elements: 2048 bytes.
TEST(Communication, TimeOverlapAndCollectiveBytes) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("c10d::allreduce_", 10, 30, 1)
      .op("record_param_comms", 12, 20, 2, 1,
          R"("Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 1024)");
  t.launch("ncclKernel_AllReduce_RING_LL_Sum_bfloat16", 15, 100, 200, 2, 0, 1, 20);
  t.launch("compute", 50, 150, 100, 0, 0, 1, 7);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CommunicationPct), 20);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CommunicationOverlapPct), 50);
  EXPECT_EQ(*w.metrics.get(Metric::CommunicationCollectives), 1);  // the outermost communication op
  EXPECT_EQ(*w.metrics.get(Metric::CommunicationBytes), 2048);
}

// The collectives table: two c10d::allreduce_ calls, one sized (record_param_comms: 1024 Float =
// 4096 bytes, its kernel 200 us) and one not (its kernel 100 us); one nccl:broadcast (no kernel).
//   allreduce: 2 calls, host 30 + 40 us, device 300 us, bytes 4096 of the sized call, bandwidth
//   4096 bytes / 200,000 ns = 0.02048 GB/s.
TEST(Communication, CollectivesTableByOp) {
  TraceBuilder t;
  t.step(1, 0, 2000);
  t.op("c10d::allreduce_", 10, 30, 1)
      .op("record_param_comms", 12, 20, 2, 1,
          R"("Collective name": "allreduce", "dtype": "Float", "In msg nelems": 1024)");
  t.launch("ncclKernel_AllReduce_RING_LL_Sum_float", 15, 100, 200, 2, 0, 1, 20);
  t.op("c10d::allreduce_", 500, 40, 3);
  t.launch("ncclKernel_AllReduce_RING_LL_Sum_float", 510, 600, 100, 3, 0, 1, 20);
  t.op("nccl:broadcast", 900, 10, 4);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.tables.collectives.size(), 2u);
  const CollectiveRow& all_reduce = w.tables.collectives[0];  // most device time first
  EXPECT_EQ(all_reduce.op, "c10d::allreduce_");
  EXPECT_EQ(all_reduce.collective, "allreduce");
  EXPECT_EQ(all_reduce.calls, 2u);
  EXPECT_EQ(all_reduce.sized_calls, 1u);
  EXPECT_EQ(all_reduce.bytes, 4096u);
  EXPECT_EQ(all_reduce.host, 70'000);
  EXPECT_EQ(all_reduce.device, 300'000);
  EXPECT_EQ(all_reduce.sized_device, 200'000);
  EXPECT_EQ(w.tables.collectives[1].op, "nccl:broadcast");
  EXPECT_EQ(w.tables.collectives[1].device, 0);
  ReportWorker report;
  std::vector<ReportTable> tables = worker_tables(w, report);
  const ReportTable* table = find_table(tables, "collectives");
  ASSERT_TRUE(table);
  EXPECT_NEAR(*cell_number(*find_cell(*table, 0, "bandwidth")), 4096.0 / 200'000, 1e-12);
  EXPECT_NEAR(*cell_number(*find_cell(*table, 0, "mean_device_us")), 150, 1e-9);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*find_cell(*table, 1, "bandwidth")));
}

// GPU 0 reaches 3 GiB of its 4 GiB: 75%.
TEST(Memory, PeakAllocatedAndShareOfTheDevice) {
  TraceBuilder t;
  t.device(0, "GPU", 8, 0, 4LL << 30, 108).step(1, 0, 100).launch("k", 1, 10, 5);
  t.memory(20, 1LL << 30, 1LL << 30, 1, 0)
      .memory(30, 2LL << 30, 3LL << 30, 1, 0)
      .memory(40, -(1LL << 30), 2LL << 30, 1, 0);
  t.memory(50, 100LL << 30, 100LL << 30, 0, -1);  // host memory: not a GPU peak
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(*w.metrics.get(Metric::MemoryPeakAllocatedBytes), static_cast<double>(3LL << 30));
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::MemoryPeakPct), 75);
}

// Steps of 200 (warm-up), 100, 101, 99, 100, 150 µs: median 100.5, MAD 1 ->
// outliers beyond 3 x 1.4826: 200 and 150; the first step is 1.99x the median.
TEST(StepRobustness, OutliersWarmUpAndTrend) {
  TraceBuilder t;
  double at = 0;
  int n = 0;
  for (double d : {200.0, 100.0, 101.0, 99.0, 100.0, 150.0}) {
    t.step(n++, at, d);
    at += d;
  }
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(*w.metrics.get(Metric::StepsOutliers), 2);
  EXPECT_NEAR(*w.metrics.get(Metric::StepsFirstOverMedian), 200 / 100.5, 1e-9);
  // Least-squares slope over indices 0..5 (mean 2.5; mean duration 125): covariance -126,
  // variance 17.5 -> -7.2 per step, as a share of the 100.5 median.
  EXPECT_NEAR(*w.metrics.get(Metric::StepsTrendPct), 100 * -7.2 / 100.5, 1e-9);
}

// The median of three steps (100, 300, 200 µs) is the 200 µs one, and a pixel is 0.2 µs of it:
// its 40 kernels of 1 µs stay separate boxes; 2,000 back-to-back kernels of 0.05 µs merge.
TEST(Timeline, TheMedianStepWithShortActivitiesMerged) {
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 300).step(3, 400, 200);
  t.launch("k", 1, 10, 50);
  t.launch("k", 101, 110, 50);
  for (int i = 0; i < 40; ++i) t.launch("wide", 401 + i * 0.1, 420 + i, 1);
  for (int i = 0; i < 2000; ++i) t.launch("tiny", 401 + i * 0.01, 500 + i * 0.05, 0.05, 0, 0, 1, 8);
  WorkerAnalysis w = analyse_json(t.json());
  const Timeline& tl = w.tables.timeline;
  EXPECT_EQ(tl.step, "ProfilerStep#3");
  EXPECT_EQ(tl.activities, 2040u);
  std::size_t wide = 0, merged = 0;
  for (const TimelineBox& b : tl.boxes) {
    if (b.name == "wide") ++wide;
    if (b.kind == "merged") ++merged;
  }
  EXPECT_EQ(wide, 40u);
  EXPECT_GE(merged, 1u);
  EXPECT_LT(
      std::count_if(tl.boxes.begin(), tl.boxes.end(), [](const TimelineBox& b) { return b.device >= 0; }),
      100);
  auto gpu =
      std::find_if(tl.boxes.begin(), tl.boxes.end(), [](const TimelineBox& b) { return b.device >= 0; });
  ASSERT_NE(gpu, tl.boxes.end());
  EXPECT_EQ(gpu->start, 20000);  // relative to the step's start at 400
}

// Without steps (a capture), the timeline spans the whole window: here the ops' span [10, 510] µs.
TEST(Timeline, TheWholeCaptureWithoutSteps) {
  TraceBuilder t;
  t.op("aten::linear", 10, 500, 1);
  t.launch("gemm", 20, 30, 400, 1);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_TRUE(w.steps.steps.empty());
  const Timeline& tl = w.tables.timeline;
  EXPECT_EQ(tl.step, "the whole capture");
  EXPECT_EQ(tl.step_start, w.window.start);
  EXPECT_EQ(tl.step_duration, w.window.length());
  EXPECT_EQ(tl.activities, 1u);
  EXPECT_FALSE(tl.boxes.empty());
}

// Above the GPU lanes, what the launching thread did in the step [0, 1000] µs: the DataLoader
// [0, 300], the outermost op aten::linear [310, 400] (not aten::addmm inside it), its launch call
// [320, 321] and a synchronising call [420, 500]; a thread that launches nothing gets no lane.
TEST(Timeline, HostLanesOfTheLaunchingThreads) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 300);
  t.op("aten::linear", 310, 90, 7).op("aten::addmm", 315, 80, 8);
  t.launch("gemm", 320, 330, 50, 8);
  t.runtime("cudaDeviceSynchronize", 420, 80, 99);
  t.op("aten::copy_", 10, 50, 0, 2);  // another thread, no GPU work
  WorkerAnalysis w = analyse_json(t.json());
  std::vector<std::tuple<std::int32_t, std::uint32_t, TimeNs, TimeNs, std::string, std::string>> host;
  for (const TimelineBox& b : w.tables.timeline.boxes)
    if (b.device < 0) host.emplace_back(b.device, b.stream, b.start, b.duration, b.name, b.kind);
  using Box = decltype(host)::value_type;
  const std::string loader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  EXPECT_EQ(host, (std::vector<Box>{
                      {kRuntimeDevice, 1u, 320'000, 1'000, "cudaLaunchKernel", "runtime"},
                      {kRuntimeDevice, 1u, 420'000, 80'000, "cudaDeviceSynchronize", "sync"},
                      {kHostOpsDevice, 1u, 0, 300'000, loader, "dataloader"},
                      {kHostOpsDevice, 1u, 310'000, 90'000, "aten::linear", "cpu_op"},
                  }));
}

// Two processes whose launching threads have one id share a lane; its boxes are in start order,
// not thread by thread (the lanes' merge as boxes come needs each lane's boxes in start order).
TEST(Timeline, ThreadsOfOneIdShareALaneInStartOrder) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::a", 10, 100, 1).op("aten::c", 300, 100, 3);
  t.launch("k1", 20, 30, 20, 1);
  t.launch("k3", 310, 320, 20, 3);
  t.raw_event(
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::b", "pid": 200, "tid": 1, "ts": 150, "dur": 100})");
  t.raw_event(R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 200, "tid": 1,
                  "ts": 160, "dur": 1, "args": {"correlation": 5000}})");
  t.kernel("k2", 170, 20, 5000);
  WorkerAnalysis w = analyse_json(t.json());
  std::vector<std::pair<TimeNs, std::string>> ops;
  for (const TimelineBox& b : w.tables.timeline.boxes)
    if (b.device == kHostOpsDevice) ops.emplace_back(b.start, b.name);
  EXPECT_EQ(ops, (std::vector<std::pair<TimeNs, std::string>>{
                     {10'000, "aten::a"}, {150'000, "aten::b"}, {300'000, "aten::c"}}));
}

// Issue 92, item 1: 6,000 kernels on 6,000 streams at one instant (more lanes than the timeline's
// 5,000 boxes, each lane one box however wide a pixel) took forever, the pixel doubling without end.
// Now the passes stop once a pixel spans the step, and the 5,000 longest boxes are kept: the ten
// 20 µs kernels among them, the others 10 µs.
TEST(Timeline, MoreLanesThanBoxesKeepTheLongest) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  for (int i = 0; i < 6000; ++i) t.kernel("k", 100, i % 600 == 0 ? 20 : 10, i + 1, 0, 100 + i);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(w.tables.timeline.activities, 6000u);
  ASSERT_EQ(w.tables.timeline.boxes.size(), kMaxTimelineBoxes);
  std::size_t long_boxes = 0;
  for (const TimelineBox& b : w.tables.timeline.boxes) long_boxes += b.duration == 20'000;
  EXPECT_EQ(long_boxes, 10u);
}

// Two ranks (distributedInfo ranks 3 and 5): mean steps 100 and 120 µs -> spread 20 / 110.
TEST(Ranks, SpreadAndSlowestRank) {
  std::string dir = temp_dir();
  for (int rank : {3, 5}) {
    TraceBuilder t;
    t.top_level("distributedInfo", fmt::format(R"({{"rank": {}, "world_size": 8}})", rank));
    double d = rank == 3 ? 100 : 120;
    t.step(1, 0, d).step(2, d, d);
    t.launch("k", 1, 10, 5);
    t.launch("k", d + 1, d + 10, 5);
    t.write(fmt::format("{}/rank-{}.json", dir, rank));
  }
  RunAnalysis r = analyse_run(load_run({dir}), default_classification(), {});
  EXPECT_EQ(*r.metrics.get(Metric::RanksCount), 2);
  EXPECT_NEAR(*r.metrics.get(Metric::RanksStepSpreadPct), 100.0 * 20 / 110, 1e-9);
  EXPECT_EQ(*r.metrics.get(Metric::RanksSlowest), 5);
}

}  // namespace
}  // namespace perfgate::testing
