// The critical path (analyse/critical_path/critical_path.h) on hand-built steps, each answer worked out by
// hand from HTA's node and edge rules. Times in the comments are microseconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "analyse/critical_path/critical_path_graph.h"
#include "analyse/critical_path/sort_runs.h"
#include "gate/gate.h"
#include "render/render.h"
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
  // What bounds it, most first: B's 400, A's 390 (around its call), the call's 10.
  using Op = std::pair<std::string, TimeNs>;
  EXPECT_EQ(s.top_ops, (std::vector<Op>{{"B", 400 * kUs}, {"A", 390 * kUs}, {"cudaLaunchKernel", 10 * kUs}}));
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

TEST(CriticalPath, AnEventQueryThatReturnedEarlyWaitedForNothing) {
  // K1 [5,305) on stream 7 (launched at [0,2)), cudaEventRecord [3,4) after it; cudaEventQuery
  // [10,11) on that event returns "not ready" long before K1 ends (CUPTI still writes an Event Sync
  // for it); then op C [20,30). An edge from K1's end (305) back to the query's end (11) would put
  // C after K1: 5 + 300 + 10 = 315. The host waited for nothing: the path is K1's chain, 5 + 300.
  TraceBuilder t;
  t.step(1, 0, 400).runtime("cudaLaunchKernel", 0, 2, 1).kernel("K1", 5, 300, 1, 0, 7);
  t.runtime("cudaEventRecord", 3, 1, 11).runtime("cudaEventQuery", 10, 1, 12);
  t.raw_event(sync_event("Event Sync", 10, 1, 12, -1, 7, 11)).op("C", 20, 10);
  const CriticalPathStep& s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 305 * kUs);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 300 * kUs);
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
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CriticalPathLengthUs), 400.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CriticalPathCpuBoundPct), 100.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CriticalPathGpuComputeBoundPct), 0.0);
  // As shares of the steps' 2000 us: 800 us of host ops on the paths, 1200 us off them.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CriticalPathCpuBoundStepPct), 40.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CriticalPathGpuComputeBoundStepPct), 0.0);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::CriticalPathUncoveredStepPct), 60.0);
  ASSERT_FALSE(w.critical_path.ops.empty());
  EXPECT_EQ(w.critical_path.ops[0].name, "A");
  EXPECT_EQ(w.critical_path.ops[0].time, 800 * kUs);
  EXPECT_EQ(w.critical_path.ops[0].calls, 2u);
  EXPECT_EQ(w.critical_path.ops[0].steps, 2u);
  EXPECT_EQ(w.critical_path.ops[0].time_per_step, 400 * kUs);  // as the mean path: 800 over 2 steps
}

// The path of the timeline's step on the timeline's lanes (CpuBoundStepIsItsTopLevelOps): A's time
// up to its launch call [0,100) and after it [110,400) on thread 1's ops lane, the call [100,110)
// on its runtime lane, B [500,900); the kernel is off the path. The HTML timeline draws each as a
// bar along its lane's foot, named in its tooltip.
TEST(CriticalPath, TheTimelineStepsPathOnItsLanes) {
  TraceBuilder t;
  t.step(1, 0, 1000).op("A", 0, 400).runtime("cudaLaunchKernel", 100, 10, 1).kernel("K<&>", 120, 50, 1);
  t.op("B", 500, 400);
  WorkerAnalysis w = analyse_json(t.json());
  const std::vector<TimelineBox>& boxes = w.critical_path.timeline;
  ASSERT_EQ(boxes.size(), 4u);
  auto expect_box = [&](std::size_t i, std::int32_t device, double start_us, double duration_us,
                        const std::string& name, const std::string& bound) {
    SCOPED_TRACE(i);
    EXPECT_EQ(boxes[i].device, device);
    EXPECT_EQ(boxes[i].stream, 1u);  // the thread id
    EXPECT_EQ(boxes[i].start, static_cast<TimeNs>(start_us * kUs));
    EXPECT_EQ(boxes[i].duration, static_cast<TimeNs>(duration_us * kUs));
    EXPECT_EQ(boxes[i].name, name);
    EXPECT_EQ(boxes[i].kind, bound);
  };
  expect_box(0, kRuntimeDevice, 100, 10, "cudaLaunchKernel", "cpu_bound");
  expect_box(1, kHostOpsDevice, 0, 100, "A", "cpu_bound");
  expect_box(2, kHostOpsDevice, 110, 290, "A", "cpu_bound");
  expect_box(3, kHostOpsDevice, 500, 400, "B", "cpu_bound");

  std::string page = render_html(report_of_json(t.json(), default_book())).page;
  std::size_t bars = 0;
  for (std::size_t at = page.find("class=\"path\""); at != std::string::npos;
       at = page.find("class=\"path\"", at + 1))
    ++bars;
  EXPECT_EQ(bars, 4u);
  EXPECT_NE(page.find("On the critical path: B\ncpu_bound"), std::string::npos);
  EXPECT_NE(page.find("critical path (bar along the lane"), std::string::npos);
}

// A run whose reports show no timeline (a gate, JUnit or Markdown alone) builds neither the step
// timeline nor the path on it; the path itself, its metrics and its ops are the same.
TEST(CriticalPath, WithoutTheTimelineOnlyItsLayoutIsLeftOut) {
  TraceBuilder t;
  t.step(1, 0, 1000).op("A", 0, 400).runtime("cudaLaunchKernel", 100, 10, 1).kernel("K<&>", 120, 50, 1);
  t.op("B", 500, 400);
  AnalysisOptions without;
  without.step_timeline = false;
  WorkerAnalysis shown = analyse_json(t.json());
  WorkerAnalysis left_out = analyse_json(t.json(), without);
  EXPECT_FALSE(shown.tables.timeline.boxes.empty());
  EXPECT_EQ(shown.critical_path.timeline.size(), 4u);
  EXPECT_TRUE(left_out.tables.timeline.boxes.empty());
  EXPECT_TRUE(left_out.tables.timeline.step.empty());
  EXPECT_TRUE(left_out.critical_path.timeline.empty());
  ASSERT_EQ(left_out.critical_path.steps.size(), 1u);
  EXPECT_EQ(left_out.critical_path.steps[0].length, shown.critical_path.steps[0].length);
  EXPECT_EQ(left_out.critical_path.steps[0].by, shown.critical_path.steps[0].by);
  EXPECT_EQ(left_out.critical_path.ops.size(), shown.critical_path.ops.size());
  EXPECT_TRUE(left_out.metrics == shown.metrics);  // every metric, the path's included
}

// A launch call under 1 us once rounded (2.2 to 3.2 us: 3 to 3) is off HTA's graph, and the kernel
// it launched with it: the path is A's 20 us alone, and the step says one launch was too short.
TEST(CriticalPath, ALaunchTooShortForTheGraphIsCounted) {
  TraceBuilder t;
  t.step(1, 0, 100).op("A", 0, 20).runtime("cudaLaunchKernel", 2.2, 1, 1).kernel("K1", 30, 50, 1);
  CriticalPathStep s = only_step(analyse_json(t.json()));
  EXPECT_EQ(s.length, 20 * kUs);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 0);
  EXPECT_EQ(s.short_launches, 1u);
  std::string page = render_html(report_of_json(t.json(), default_book())).page;
  EXPECT_NE(page.find("1 launch calls of this step last under 1 µs"), std::string::npos);
}

TEST(CriticalPath, NoHostWorkIsNotApplicable) {
  TraceBuilder t;
  t.kernel("K", 0, 10, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_FALSE(w.metrics.get(Metric::CriticalPathLengthUs).has_value());
}

// Issue 52: blocking calls of every runtime, as data (rules: critical_path_blocking_calls).
// The MI300X torch.compile shape of issue 52, without sync events (ROCm traces have none): op A
// [0,680) launches K1..K5 from calls at [1,3), [3,5), ..., [9,11); the kernels run back to back,
// 2,510 each, [10,12560); the host then waits in `sync` [690,12560) and runs B [12570,12670).
// Through the GPU: 5 x 2,510 = 12,550 of kernels, K2..K5 queued behind K1 (kernel-gap edges of 0).
// K1 has no launch-delay edge (its stream's queue held the 4 later launches when it started, as
// HTA's rule asks it to be empty), and nothing joins K5 to the host. The host chain: A (680) + B
// (100) = 780, the blocking call's own 11,870 off the path. Were the call not blocking, the host
// chain would be 680 + 11,870 + 100 = 12,650, all CPU, and win.
CriticalPathStep waits_for_the_gpu(const std::string& launch, const std::string& sync) {
  TraceBuilder t;
  t.step(1, 0, 12700).op("A", 0, 680);
  for (int k = 0; k < 5; ++k) {
    t.runtime(launch, 1 + 2 * k, 2, k + 1);
    t.kernel("K" + std::to_string(k + 1), 10 + 2510 * k, 2510, k + 1);
  }
  t.runtime(sync, 690, 11870, 99).op("B", 12570, 100);
  return only_step(analyse_json(t.json()));
}

TEST(CriticalPath, EveryRuntimesBlockingCallLeavesTheWaitOffThePath) {
  for (const auto& [launch, sync] : std::initializer_list<std::pair<std::string, std::string>>{
           {"cudaLaunchKernel", "cudaDeviceSynchronize"},
           {"hipLaunchKernel", "hipDeviceSynchronize"},
           {"hipLaunchKernel", "hipStreamSynchronize"},
           {"hipLaunchKernel", "hipEventSynchronize"},
           {"hipLaunchKernel", "hipMemcpy"},
           {"hipExtModuleLaunchKernel", "hipMemcpyDtoH"},
           {"cuLaunchKernel", "cuCtxSynchronize"},
           {"cuLaunchKernelEx", "cuStreamSynchronize"},
           {"cudaLaunchKernel", "cudaMemcpy2D"}}) {
    SCOPED_TRACE(sync);
    CriticalPathStep s = waits_for_the_gpu(launch, sync);
    EXPECT_EQ(s.length, 12550 * kUs);
    EXPECT_EQ(by(s, PathBound::GpuCompute), 12550 * kUs);
    EXPECT_EQ(by(s, PathBound::Cpu), 0);
  }
}

// Issue 91: MTIA's runFunction returns once the kernel it launched is done (rules:
// critical_path_synchronous_launches). A [0,100), runFunction [100,500) whose kernel K runs
// [370,480), B [500,600): the path is A (100, host), the call's start to K's (270, launch delay), K
// (110, device) and B (100, host): 580 us; the call's own 400 us are not host time. A launch call
// not in the list keeps HTA's reading: the host chain of 600 us, all host.
TEST(CriticalPath, ASynchronousLaunchWaitsOnItsWork) {
  for (const char* call : {"runFunction - job_prep_and_submit_for_execution", "cudaLaunchKernel"}) {
    SCOPED_TRACE(call);
    TraceBuilder t;
    t.step(1, 0, 600).op("A", 0, 100).op("B", 500, 100);
    t.runtime(call, 100, 400, 1);
    t.kernel("K", 370, 110, 1);
    CriticalPathStep s = only_step(analyse_json(t.json()));
    bool synchronous = std::string_view(call).starts_with("runFunction");
    EXPECT_EQ(s.length, (synchronous ? 580 : 600) * kUs);
    EXPECT_EQ(by(s, PathBound::Cpu), (synchronous ? 200 : 600) * kUs);
    EXPECT_EQ(by(s, PathBound::LaunchOverhead), (synchronous ? 270 : 0) * kUs);
    EXPECT_EQ(by(s, PathBound::GpuCompute), (synchronous ? 110 : 0) * kUs);
  }
}

TEST(CriticalPath, AStreamWaitOrAnAsyncCopyDoesNotBlockTheHost) {
  // hipStreamWaitEvent makes a stream wait, not the host; hipMemcpyAsync returns at once (as
  // cudaMemcpyAsync, which HTA @f4d0062 keeps on the path): the host chain of 12,650 stands.
  for (const char* call : {"hipStreamWaitEvent", "hipMemcpyAsync"}) {
    SCOPED_TRACE(call);
    CriticalPathStep s = waits_for_the_gpu("hipLaunchKernel", call);
    EXPECT_EQ(s.length, 12650 * kUs);
    EXPECT_EQ(by(s, PathBound::Cpu), 12650 * kUs);
  }
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

// A walk's arrays reused from a larger graph (as a thread's next range reuses them) give the
// path a fresh walk gives.
TEST(CriticalPathGraph, ReusedWorkGivesTheSamePath) {
  PathGraph big;
  for (TimeNs t = 0; t < 40; ++t) big.add_node(t * 1000);
  for (std::uint32_t v = 0; v + 1 < 40; ++v) big.add_edge(v, v + 1, PathEdgeType::Operator, v);
  PathGraph small;
  for (TimeNs t : {0, 3, 4, 9}) small.add_node(t * 1000);
  small.add_edge(0, 1, PathEdgeType::Operator, 0);
  small.add_edge(0, 2, PathEdgeType::Operator, 1);
  small.add_edge(2, 3, PathEdgeType::KernelGap, 2);
  small.add_edge(1, 3, PathEdgeType::Dependency, kNone);
  PathGraph::Work work;
  EXPECT_EQ(big.longest_path(work).length, 39000);
  PathGraph::Path reused = small.longest_path(work);
  PathGraph::Path fresh = small.longest_path();
  EXPECT_EQ(reused.length, 9000);
  EXPECT_EQ(reused.length, fresh.length);
  ASSERT_EQ(reused.edges.size(), fresh.edges.size());
  for (std::size_t i = 0; i < fresh.edges.size(); ++i) {
    EXPECT_EQ(reused.edges[i].from, fresh.edges[i].from);
    EXPECT_EQ(reused.edges[i].to, fresh.edges[i].to);
  }
}

// sort_runs is a stable sort whatever the list's size: insertion-sorted at most
// kInsertionSortedItems, merged by runs above; equal keys keep their order.
TEST(SortRuns, SameOrderAsAStableSort) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, kInsertionSortedItems,
                        kInsertionSortedItems + 1, std::size_t{200}}) {
    std::vector<std::pair<int, std::size_t>> items;  // (key, original place)
    for (std::size_t i = 0; i < n; ++i) items.emplace_back(static_cast<int>((i * 7919) % 13), i);
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::vector<std::pair<int, std::size_t>> expected = items;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    sort_runs(items, by_key);
    EXPECT_EQ(items, expected) << n << " items";
  }
}

}  // namespace
}  // namespace perfgate::testing
