// A run folded worker by worker: which workers keep their tables, and the run's sums by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <thread>

#include "analyse/analysis.h"

namespace perfgate {
namespace {

// A worker of `steps` window steps of `step_ms` each, with one op, kernel and region row each
// named after `index` and one shared by every worker.
WorkerAnalysis worker(std::size_t index, double step_ms, std::size_t steps = 2) {
  WorkerAnalysis w;
  w.worker = "rank-" + std::to_string(index);
  TimeNs start = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    Step step;
    step.name = "ProfilerStep#" + std::to_string(s);
    step.start = start;
    step.end = start + static_cast<TimeNs>(step_ms * 1e6);
    start = step.end;
    step.in_window = true;
    w.steps.steps.push_back(step);
    w.window.steps.push_back(s);
  }
  w.window.end = start;
  w.metrics.set(Metric::StepsMeanUs, step_ms * 1000);
  auto idx = static_cast<TimeNs>(index);
  OpRow shared, own;
  shared.name = "aten::mm";
  shared.calls = 2;
  shared.host_self = 10 + idx;
  shared.device_self = 1000 + idx;
  own.name = "own::" + std::to_string(index);
  own.calls = 1;
  own.host_self = 5;
  own.device_self = 7;
  w.tables.ops = {shared, own};
  KernelRow gemm;
  gemm.name = "gemm";
  gemm.calls = 3;
  gemm.total = 300 + idx;
  w.tables.kernels = {gemm};
  RegionRow forward;
  forward.name = "forward";
  forward.calls = 1;
  forward.cpu_total = 50;
  forward.gpu = 40 + idx;
  w.tables.regions = {forward};
  w.tables.iterations.resize(1);
  CollectiveRow all_reduce;
  all_reduce.op = "nccl:all_reduce";
  w.tables.collectives = {all_reduce};
  w.tables.gpu_gaps = {GapRow{}};
  w.tables.timeline.step = "ProfilerStep#1";
  w.tables.timeline.activities = 4;
  w.tables.timeline.boxes = {TimelineBox{}, TimelineBox{}};
  CriticalPathStep path_step;
  path_step.step = "ProfilerStep#1";
  path_step.length = 900;
  w.critical_path.steps = {path_step};
  w.critical_path.ops = {CriticalPathOpRow{"aten::mm", PathBound::GpuCompute, 800, 2, 1}};
  w.critical_path.timeline = {TimelineBox{}, TimelineBox{}, TimelineBox{}};
  return w;
}

// Mean step times of ten workers (ms): the slowest is 1, then 6, 3, 4 (a tie: the earlier first).
const std::vector<double> kStepMs = {5, 9, 1, 7, 7, 3, 8, 2, 6, 4};

RunAnalysis combine(const std::vector<std::size_t>& order, std::size_t detailed) {
  RunCombiner run(detailed);
  for (std::size_t i : order) run.add({i, 0}, worker(i, kStepMs[i]));
  return run.finish();
}

std::vector<std::string> detailed_of(const RunAnalysis& r) {
  std::vector<std::string> out;
  for (const WorkerAnalysis& w : r.workers)
    if (w.detailed) out.push_back(w.worker + ": " + w.detailed_as);
  return out;
}

std::vector<std::size_t> in_order(std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

TEST(RunCombiner, KeepsTheFirstTheSlowestAndTheFastestWhateverTheOrderTheyCome) {
  const std::vector<std::string> expected = {"rank-0: first", "rank-1: slowest", "rank-2: fastest",
                                             "rank-3: 3rd slowest", "rank-6: 2nd slowest"};
  std::vector<std::size_t> order = in_order(kStepMs.size());
  std::mt19937 random(7);
  for (int round = 0; round < 50; ++round) {
    RunAnalysis r = combine(order, 5);
    ASSERT_EQ(r.workers.size(), 10u);
    for (std::size_t i = 0; i < r.workers.size(); ++i)
      EXPECT_EQ(r.workers[i].worker, "rank-" + std::to_string(i));
    EXPECT_EQ(detailed_of(r), expected) << "round " << round;
    std::shuffle(order.begin(), order.end(), random);
  }
}

TEST(RunCombiner, AWorkerThatIsNotDetailedKeepsItsSummaryOnly) {
  RunAnalysis r = combine(in_order(kStepMs.size()), 3);  // first, slowest, fastest
  const WorkerAnalysis& kept = r.workers[1];
  const WorkerAnalysis& summary = r.workers[9];
  EXPECT_TRUE(kept.detailed);
  EXPECT_EQ(kept.tables.ops.size(), 2u);
  EXPECT_EQ(kept.tables.gpu_gaps.size(), 1u);
  EXPECT_EQ(kept.tables.timeline.boxes.size(), 2u);
  EXPECT_FALSE(summary.detailed);
  EXPECT_TRUE(summary.detailed_as.empty());
  EXPECT_TRUE(summary.tables.ops.empty());
  EXPECT_TRUE(summary.tables.kernels.empty());
  EXPECT_TRUE(summary.tables.regions.empty());
  EXPECT_TRUE(summary.tables.gpu_gaps.empty());
  EXPECT_TRUE(summary.tables.timeline.boxes.empty());
  EXPECT_EQ(summary.tables.timeline.step, "ProfilerStep#1");
  EXPECT_EQ(summary.tables.timeline.activities, 4u);
  EXPECT_EQ(summary.tables.iterations.size(), 1u);
  EXPECT_EQ(summary.tables.collectives.size(), 1u);
  EXPECT_EQ(summary.steps.steps.size(), 2u);
}

// Issue 78: a run folder of 1,024 copies of a rank held every rank's step-timeline and
// critical-path boxes until the report (96 kB a rank against the merge's 47 kB): emptied with
// `= {}`, a vector keeps its buffer. A worker that is not detailed keeps only what a report of it
// shows: its critical path's steps (the critical_path table and the job path's rows), not its
// ops on the path nor the path's boxes (tables only the detailed workers have).
TEST(RunCombiner, AWorkerThatIsNotDetailedLetsItsBoxesMemoryGo) {
  RunAnalysis r = combine(in_order(kStepMs.size()), 3);
  const WorkerAnalysis& kept = r.workers[1];
  const WorkerAnalysis& summary = r.workers[9];
  EXPECT_EQ(kept.critical_path.ops.size(), 1u);
  EXPECT_EQ(kept.critical_path.timeline.size(), 3u);
  EXPECT_EQ(summary.tables.timeline.boxes.capacity(), 0u);
  EXPECT_TRUE(summary.critical_path.ops.empty());
  EXPECT_EQ(summary.critical_path.ops.capacity(), 0u);
  EXPECT_EQ(summary.critical_path.timeline.capacity(), 0u);
  ASSERT_EQ(summary.critical_path.steps.size(), 1u);
  EXPECT_EQ(summary.critical_path.steps[0].length, 900);
}

TEST(RunCombiner, SmallLimitsKeepTheFirstThenTheSlowest) {
  EXPECT_EQ(detailed_of(combine(in_order(10), 1)), (std::vector<std::string>{"rank-0: first"}));
  EXPECT_EQ(detailed_of(combine(in_order(10), 2)),
            (std::vector<std::string>{"rank-0: first", "rank-1: slowest"}));
}

TEST(RunCombiner, EveryWorkerIsDetailedUpToTheLimitOrWithoutOne) {
  for (std::size_t detailed : {std::size_t{0}, std::size_t{10}, std::size_t{11}}) {
    RunAnalysis r = combine(in_order(10), detailed);
    for (const WorkerAnalysis& w : r.workers) {
      EXPECT_TRUE(w.detailed) << w.worker << " with a limit of " << detailed;
      EXPECT_TRUE(w.detailed_as.empty()) << "no reason is given when every worker is kept";
      EXPECT_EQ(w.tables.ops.size(), 2u);
    }
  }
}

// The first worker's place among all is said too, and counts in the others' places.
TEST(RunCombiner, TheFirstWorkerMayAlsoBeTheSlowestOrTheFastest) {
  RunCombiner slow(4);
  for (std::size_t i = 0; i < 6; ++i) slow.add({i, 0}, worker(i, i == 0 ? 20 : 10 - static_cast<double>(i)));
  EXPECT_EQ(detailed_of(slow.finish()),
            (std::vector<std::string>{"rank-0: first and slowest", "rank-1: 2nd slowest",
                                      "rank-2: 3rd slowest", "rank-5: fastest"}));
  RunCombiner fast(4);
  for (std::size_t i = 0; i < 6; ++i) fast.add({i, 0}, worker(i, i == 0 ? 1 : 10 - static_cast<double>(i)));
  EXPECT_EQ(detailed_of(fast.finish()),
            (std::vector<std::string>{"rank-0: first and fastest", "rank-1: slowest", "rank-2: 2nd slowest",
                                      "rank-5: 2nd fastest"}));
}

// Workers without steps go by the length of their window.
TEST(RunCombiner, WorkersWithoutStepsGoByTheirWindow) {
  RunCombiner run(3);
  const double window_ms[] = {5, 9, 1, 7};
  for (std::size_t i = 0; i < 4; ++i) {
    WorkerAnalysis w = worker(i, window_ms[i], 0);
    w.window.end = static_cast<TimeNs>(window_ms[i] * 1e6);
    w.metrics = MetricValues{};  // no steps, no mean step
    run.add({i, 0}, std::move(w));
  }
  EXPECT_EQ(detailed_of(run.finish()),
            (std::vector<std::string>{"rank-0: first", "rank-1: slowest", "rank-2: fastest"}));
}

// Equal workers: the earlier is the slower, so the fastest is the last.
TEST(RunCombiner, TiesGoByPosition) {
  RunCombiner run(4);
  for (std::size_t i : {5u, 2u, 0u, 4u, 1u, 3u}) run.add({i, 0}, worker(i, 10));
  EXPECT_EQ(detailed_of(run.finish()),
            (std::vector<std::string>{"rank-0: first and slowest", "rank-1: 2nd slowest",
                                      "rank-2: 3rd slowest", "rank-5: fastest"}));
}

// The first worker of the run is that of the first input; the processes of one input follow it.
TEST(RunCombiner, WorkersComeOutByInputThenByOrderWithinTheInput) {
  RunCombiner run(0);
  run.add({1, 0}, worker(2, 1));
  run.add({0, 1}, worker(1, 1));
  run.add({0, 0}, worker(0, 1));
  RunAnalysis r = run.finish();
  ASSERT_EQ(r.workers.size(), 3u);
  EXPECT_EQ(r.workers[0].worker, "rank-0");
  EXPECT_EQ(r.workers[1].worker, "rank-1");
  EXPECT_EQ(r.workers[2].worker, "rank-2");
}

// Every worker's rows count, detailed or not: sums computed by hand from worker().
TEST(RunCombiner, TheRunSumsEveryWorkersOpsKernelsAndRegions) {
  RunAnalysis r = combine(in_order(10), 2);
  // aten::mm: device self 1000 + i and host self 10 + i, summed over i = 0..9 (45).
  ASSERT_FALSE(r.tables.ops.empty());
  const RunRow& mm = r.tables.ops.front();
  EXPECT_EQ(mm.name, "aten::mm");
  EXPECT_EQ(mm.workers, 10u);
  EXPECT_EQ(mm.calls, 20u);
  EXPECT_EQ(mm.gpu, 10045);
  EXPECT_EQ(mm.cpu, 145);
  ASSERT_EQ(r.tables.ops.size(), 11u);
  // The own ops tie on time and go by name.
  EXPECT_EQ(r.tables.ops[1].name, "own::0");
  EXPECT_EQ(r.tables.ops[10].name, "own::9");
  EXPECT_EQ(r.tables.ops[1].workers, 1u);
  ASSERT_EQ(r.tables.kernels.size(), 1u);
  EXPECT_EQ(r.tables.kernels[0].calls, 30u);
  EXPECT_EQ(r.tables.kernels[0].gpu, 3045);
  EXPECT_EQ(r.tables.kernels[0].cpu, 0);
  ASSERT_EQ(r.tables.regions.size(), 1u);
  EXPECT_EQ(r.tables.regions[0].gpu, 445);
  EXPECT_EQ(r.tables.regions[0].cpu, 500);
}

TEST(RunCombiner, ALoneWorkerHasNoRunTables) {
  RunAnalysis r = combine({0}, 8);
  ASSERT_EQ(r.workers.size(), 1u);
  EXPECT_TRUE(r.workers[0].detailed);
  EXPECT_TRUE(r.tables.ops.empty());
  EXPECT_TRUE(r.tables.kernels.empty());
}

// Workers added from several threads at once give the run one thread gives.
TEST(RunCombiner, WorkersMayComeFromSeveralThreads) {
  RunCombiner run(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t)
    threads.emplace_back([&run, t] {
      for (std::size_t i = t; i < kStepMs.size(); i += 4) run.add({i, 0}, worker(i, kStepMs[i]));
    });
  for (auto& t : threads) t.join();
  RunAnalysis together = run.finish();
  RunAnalysis alone = combine(in_order(kStepMs.size()), 4);
  EXPECT_EQ(detailed_of(together), detailed_of(alone));
  ASSERT_EQ(together.tables.ops.size(), alone.tables.ops.size());
  for (std::size_t i = 0; i < alone.tables.ops.size(); ++i) {
    EXPECT_EQ(together.tables.ops[i].name, alone.tables.ops[i].name);
    EXPECT_EQ(together.tables.ops[i].gpu, alone.tables.ops[i].gpu);
  }
}

// The worker as its analysis makes it when its run will not detail it (WorkerDetail::None or
// Later): the tables the run would let go are not made; the run's sums' rows are.
WorkerAnalysis without_tables(std::size_t index, double step_ms) {
  WorkerAnalysis w = worker(index, step_ms);
  w.tables.gpu_gaps.clear();
  w.tables.timeline.boxes.clear();
  w.critical_path.ops.clear();
  w.critical_path.timeline.clear();
  return w;
}

// Adds worker i as the analysers do: asks the run first, then adds it whole or without its tables.
// `remade`: counts the workers analysed again whole.
void add_as_analysed(RunCombiner& run, std::size_t i, std::size_t& remade) {
  double step_ms = kStepMs[i % kStepMs.size()];
  switch (run.detail_of({i, 0}, step_ms * 1000)) {
    case WorkerDetail::Whole:
      return run.add({i, 0}, worker(i, step_ms));
    case WorkerDetail::Later:
      return run.add({i, 0}, without_tables(i, step_ms), [i, step_ms, &remade] {
        ++remade;
        return worker(i, step_ms);
      });
    case WorkerDetail::None:
      return run.add({i, 0}, without_tables(i, step_ms));
  }
}

// Every detailed worker has its whole tables.
void expect_whole_tables(const RunAnalysis& r) {
  for (const WorkerAnalysis& w : r.workers) {
    if (!w.detailed) continue;
    EXPECT_EQ(w.tables.gpu_gaps.size(), 1u) << w.worker;
    EXPECT_EQ(w.tables.timeline.boxes.size(), 2u) << w.worker;
    EXPECT_EQ(w.critical_path.ops.size(), 1u) << w.worker;
    EXPECT_EQ(w.critical_path.timeline.size(), 3u) << w.worker;
  }
}

// Issue 78: a worker the run can no longer detail is analysed without the tables the run would let
// go, and one that is only the fastest so far is analysed again whole if it still is at the end.
// The answer never changes which workers are detailed, whatever the order (a late worker the
// slowest or the fastest, ties by position) and the limit.
TEST(RunCombiner, AskingBeforeTheTablesAreMadeDetailsTheSameWorkers) {
  std::vector<std::size_t> order = in_order(kStepMs.size());
  std::mt19937 random(11);
  for (std::size_t detailed : {0u, 1u, 2u, 3u, 5u}) {
    for (int round = 0; round < 30; ++round) {
      RunCombiner run(detailed);
      std::size_t remade = 0;
      for (std::size_t i : order) add_as_analysed(run, i, remade);
      RunAnalysis asked = run.finish();
      EXPECT_EQ(detailed_of(asked), detailed_of(combine(order, detailed)))
          << "limit " << detailed << ", round " << round;
      expect_whole_tables(asked);
      EXPECT_LE(remade, 1u);  // the fastest alone
      std::shuffle(order.begin(), order.end(), random);
    }
  }
}

// In position order with equal paces each worker is the fastest so far (ties go by position): all
// of them are analysed without their tables, and the last alone again whole.
TEST(RunCombiner, EqualWorkersInOrderAreEachTheFastestUntilTheNext) {
  RunCombiner run(3);
  std::size_t later = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    WorkerDetail detail = run.detail_of({i, 0}, 10000);
    EXPECT_EQ(detail, i <= 1 ? WorkerDetail::Whole : WorkerDetail::Later) << i;  // first, slowest
    later += detail == WorkerDetail::Later;
    if (detail == WorkerDetail::Later)
      run.add({i, 0}, without_tables(i, 10), [i] { return worker(i, 10); });
    else
      run.add({i, 0}, worker(i, 10));
  }
  EXPECT_EQ(later, 4u);
  RunAnalysis r = run.finish();
  EXPECT_EQ(detailed_of(r), (std::vector<std::string>{"rank-0: first and slowest", "rank-1: 2nd slowest",
                                                      "rank-5: fastest"}));
  expect_whole_tables(r);
}

// Parts asked of their own combiners, merged: the run's detailed workers, each with its tables.
TEST(RunCombiner, PartsAskedOfTheirOwnCombinersMergeToTheSameWorkers) {
  for (std::size_t detailed : {1u, 2u, 3u, 5u}) {
    RunCombiner a(detailed), b(detailed), run(detailed);
    std::size_t remade = 0;
    // Positions are the run's: part a holds the first five, part b the rest, each in reverse.
    for (std::size_t i : {4u, 3u, 2u, 1u, 0u}) add_as_analysed(a, i, remade);
    for (std::size_t i : {9u, 8u, 7u, 6u, 5u}) add_as_analysed(b, i, remade);
    run.add(b.finish_partial());
    run.add(a.finish_partial());
    RunAnalysis merged = run.finish();
    EXPECT_EQ(detailed_of(merged), detailed_of(combine(in_order(kStepMs.size()), detailed))) << detailed;
    expect_whole_tables(merged);
  }
}

// Workers asked about and added from several threads at once give the run one thread gives.
TEST(RunCombiner, AskingFromSeveralThreadsDetailsTheSameWorkers) {
  for (int round = 0; round < 20; ++round) {
    RunCombiner run(4);
    std::vector<std::size_t> remade(4, 0);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t)
      threads.emplace_back([&run, &remade, t] {
        for (std::size_t i = t; i < 4 * kStepMs.size(); i += 4) add_as_analysed(run, i, remade[t]);
      });
    for (auto& t : threads) t.join();
    RunAnalysis together = run.finish();
    RunCombiner alone(4);
    for (std::size_t i = 0; i < 4 * kStepMs.size(); ++i)
      alone.add({i, 0}, worker(i, kStepMs[i % kStepMs.size()]));
    EXPECT_EQ(detailed_of(together), detailed_of(alone.finish())) << "round " << round;
    expect_whole_tables(together);
  }
}

}  // namespace
}  // namespace perfgate
