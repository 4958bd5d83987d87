// The critical path (analyse/critical_path.h) on hand-built steps, each answer worked out by hand
// from HTA's node and edge rules. Times in the comments are microseconds.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "analyse/critical_path_graph.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr double kUs = 1000.0;

TimeNs by(const CriticalPathStep& s, PathBound b) {
  return s.by[static_cast<std::size_t>(b)];
}

// A copy: the analysis it comes from is a temporary of the caller's expression.
CriticalPathStep only_step(const WorkerAnalysis& w) {
  EXPECT_EQ(w.critical_path.steps.size(), 1u);
  return w.critical_path.steps.front();
}

// A cuda_sync event as Kineto writes it (PyTorch 2.2+).
std::string sync_event(const std::string& kind, double ts, double dur, std::int64_t correlation, int stream,
                       int wait_on_stream = -1, std::int64_t record = -1) {
  return fmt::format(
      R"({{"ph":"X","cat":"cuda_sync","name":"{}","pid":0,"tid":{},"ts":{},"dur":{},"args":{{"cuda_sync_kind":"{}",)"
      R"("stream":{},"correlation":{},"device":0,"wait_on_stream":{},"wait_on_cuda_event_record_corr_id":{}}}}})",
      kind, stream < 0 ? 0 : stream, ts, dur, kind, stream, correlation, wait_on_stream, record);
}

TEST(CriticalPath, CpuBoundStepIsItsTopLevelOps) {
  // Op A [0,400) launches K [120,170) from a call at [100,110); op B [500,900). The host chain is
  // A (400) + B (400) = 800, the idle host between them off the path (a dependency edge); through
  // the GPU: 100 (A) + 20 (launch) + 50 (K) = 170.
  TraceBuilder t;
  t.step(1, 0, 1000).op("A", 0, 400).runtime("cudaLaunchKernel", 100, 10, 1).kernel("K", 120, 50, 1);
  t.op("B", 500, 400);
  const CriticalPathStep& s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 800 * kUs);
  EXPECT_EQ(by(s, PathBound::Cpu), 800 * kUs);
  EXPECT_EQ(s.span, 1000 * kUs);
}

TEST(CriticalPath, LaunchBoundStepWaitsOnLaunches) {
  // A [0,20) launches K1 [30,35) at [2,7); B [40,60) launches K2 [70,75) at [42,47). Each kernel
  // starts on an idle stream after its launch: launch delays of 28. Longest: A (20) + B up to its
  // call (2) + launch (28) + K2 (5) = 55.
  TraceBuilder t;
  t.step(1, 0, 100).op("A", 0, 20).runtime("cudaLaunchKernel", 2, 5, 1).kernel("K1", 30, 5, 1);
  t.op("B", 40, 20).runtime("cudaLaunchKernel", 42, 5, 2).kernel("K2", 70, 5, 2);
  const CriticalPathStep& s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 55 * kUs);
  EXPECT_EQ(by(s, PathBound::Cpu), 22 * kUs);
  EXPECT_EQ(by(s, PathBound::LaunchOverhead), 28 * kUs);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 5 * kUs);
}

TEST(CriticalPath, GpuBoundStepRunsThroughQueuedKernelsAndTheSync) {
  // A [0,10) launches K1 [5,505) at [1,3); B [10,20) launches K2 [505,1005) at [11,13), queued
  // behind K1 (a kernel-gap edge of 0); cudaDeviceSynchronize [20,1010) waits for both (Context
  // Sync: an edge from K2's end). Path: 1 (A) + 4 (launch) + 500 + 0 + 500 = 1005; the host
  // alone: 10 + 10 + 0 (the sync call blocks: its own time is off the path) = 20.
  TraceBuilder t;
  t.step(1, 0, 1100).op("A", 0, 10).runtime("cudaLaunchKernel", 1, 2, 1).kernel("K1", 5, 500, 1);
  t.op("B", 10, 10).runtime("cudaLaunchKernel", 11, 2, 2).kernel("K2", 505, 500, 2);
  t.runtime("cudaDeviceSynchronize", 20, 990, 3).raw_event(sync_event("Context Sync", 1005, 4, 3, -1));
  const CriticalPathStep& s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 1005 * kUs);
  EXPECT_EQ(by(s, PathBound::Cpu), 1 * kUs);
  EXPECT_EQ(by(s, PathBound::LaunchOverhead), 4 * kUs);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 1000 * kUs);
  EXPECT_EQ(by(s, PathBound::KernelGap), 0);
}

TEST(CriticalPath, EventSyncWaitsForTheKernelBeforeTheRecord) {
  // K1 [5,305) on stream 7 (launched at [0,2)), cudaEventRecord [3,4) after it, K2 [10,20) on stream
  // 8, cudaEventSynchronize [8,310) on that event, then op C [320,330). The Event Sync edge from
  // K1's end to the sync call's end puts C after K1: 5 (launch) + 300 + 10 = 315. Without it the
  // path would be K1's 305.
  TraceBuilder t;
  t.step(1, 0, 400).runtime("cudaLaunchKernel", 0, 2, 1).kernel("K1", 5, 300, 1, 0, 7);
  t.runtime("cudaEventRecord", 3, 1, 11).runtime("cudaLaunchKernel", 5, 2, 2).kernel("K2", 10, 10, 2, 0, 8);
  t.runtime("cudaEventSynchronize", 8, 302, 12).raw_event(sync_event("Event Sync", 305, 4, 12, -1, 7, 11));
  t.op("C", 320, 10);
  const CriticalPathStep& s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 315 * kUs);
  EXPECT_EQ(by(s, PathBound::LaunchOverhead), 5 * kUs);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 300 * kUs);
  EXPECT_EQ(by(s, PathBound::Cpu), 10 * kUs);
}

TEST(CriticalPath, StreamWaitEventChainsKernelsAcrossStreams) {
  // K1 [5,305) on stream 7; cudaEventRecord [3,4) records after it; cudaStreamWaitEvent [4,5) makes
  // stream 8 wait; the next launch onto stream 8 ([6,8)) runs K2 [306,406). K2 starts after K1
  // (a sync edge), not after its launch: 5 (launch of K1) + 300 + 100 = 405, all GPU but the
  // launch. Without the wait the path would end with a 300 us launch delay.
  TraceBuilder t;
  t.step(1, 0, 500).runtime("cudaLaunchKernel", 0, 2, 1).kernel("K1", 5, 300, 1, 0, 7);
  t.runtime("cudaEventRecord", 3, 1, 21).runtime("cudaStreamWaitEvent", 4, 1, 22);
  t.raw_event(sync_event("Stream Wait Event", 4, 1, 22, 8, 7, 21));
  t.runtime("cudaLaunchKernel", 6, 2, 3).kernel("K2", 306, 100, 3, 0, 8);
  const CriticalPathStep& s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 405 * kUs);
  EXPECT_EQ(by(s, PathBound::LaunchOverhead), 5 * kUs);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 400 * kUs);
}

TEST(CriticalPath, DataLoadingStallIsItsOwnClass) {
  // The DataLoader's next [0,800), then A [800,900) launching K [820,870) at [810,815): host 800
  // (data loading) + 100 (A) = 900; through the GPU 800 + 10 + 10 + 50 = 870.
  TraceBuilder t;
  t.step(1, 0, 1000).op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 800);
  t.op("A", 800, 100).runtime("cudaLaunchKernel", 810, 5, 1).kernel("K", 820, 50, 1);
  const CriticalPathStep& s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 900 * kUs);
  EXPECT_EQ(by(s, PathBound::DataLoading), 800 * kUs);
  EXPECT_EQ(by(s, PathBound::Cpu), 100 * kUs);
}

TEST(CriticalPath, MetricsAndOpsSumTheSteps) {
  // Two CPU-bound steps: A 300 in the first, A 500 in the second: mean 400, 100% cpu_bound; the
  // ops table sums A over both steps (800 in 2 calls). Step 2's A starts after step 1's range:
  // a range holds what starts in it, its end included (HTA).
  TraceBuilder t;
  t.step(1, 0, 1000).op("A", 0, 300).step(2, 1000, 1000).op("A", 1010, 500);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.critical_path.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(*w.metrics.get("critical_path.length_us"), 400.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get("critical_path.cpu_bound_pct"), 100.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get("critical_path.gpu_compute_bound_pct"), 0.0);
  ASSERT_FALSE(w.critical_path.ops.empty());
  EXPECT_EQ(w.critical_path.ops[0].name, "A");
  EXPECT_EQ(w.critical_path.ops[0].time, 800 * kUs);
  EXPECT_EQ(w.critical_path.ops[0].calls, 2u);
  EXPECT_EQ(w.critical_path.ops[0].steps, 2u);
}

TEST(CriticalPath, NoHostWorkIsNotApplicable) {
  TraceBuilder t;
  t.kernel("K", 0, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_FALSE(w.metrics.get("critical_path.length_us").has_value());
}

TEST(CriticalPathGraph, LongestPathBreaksCycles) {
  // 0 -> 1 (5), 1 -> 2 (5), 2 -> 1 (a cycle): the cycle is broken at its earliest node.
  PathGraph g;
  for (TimeNs t : {0, 5, 10}) g.add_node(t * 1000);
  g.add_edge(0, 1, PathEdgeType::Operator, 0);
  g.add_edge(1, 2, PathEdgeType::Operator, 1);
  g.add_edge(2, 1, PathEdgeType::Sync, kNone);
  PathGraph::Path p = g.longest_path();
  EXPECT_TRUE(p.had_cycle);
  EXPECT_EQ(p.length, 10000);
}

}  // namespace
}  // namespace perfgate::testing
