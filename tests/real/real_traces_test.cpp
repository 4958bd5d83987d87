// Every shared real trace loads and analyses, and the results keep their invariants.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::vector<std::string> kineto_traces() {
  std::vector<std::string> files;
  std::string dir = shared_traces_dir();
  if (dir.empty()) return files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().string().ends_with(".json.gz")) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RealTraces, EveryTraceLoadsAndKeepsItsInvariants) {
  auto files = kineto_traces();
  if (files.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    LoadedRun run = load_run({file});
    const Profile& p = run.workers.front();
    EXPECT_FALSE(p.host_events.empty());
    WorkerAnalysis w = analyse_profile(p, default_classification(), {});
    // Under a clock offset a step's breakdown is of the step on the GPUs' clock (issue 72).
    for (std::size_t k = 0; k < w.window.steps.size(); ++k) {
      const Step& s = w.steps.steps[w.window.steps[k]];
      TimeNs whole = w.gpu_step_times.empty() ? s.duration() : w.gpu_step_times[k];
      EXPECT_EQ(std::accumulate(s.breakdown.begin(), s.breakdown.end(), TimeNs{0}), whole);
    }
    for (const GpuMetrics& g : w.gpus) {
      EXPECT_LE(*g.utilization_pct, *g.busy_pct + 1e-9);
      EXPECT_LE(*g.busy_pct, 100 + 1e-9);
      EXPECT_GE(*g.utilization_pct, 0);
    }
    auto resources = w.resources;
    TimeNs window_steps = 0;
    for (std::size_t i : w.window.steps) window_steps += w.steps.steps[i].duration();
    if (!w.gpu_step_times.empty())
      window_steps = std::accumulate(w.gpu_step_times.begin(), w.gpu_step_times.end(), TimeNs{0});
    if (!w.window.steps.empty()) {
      EXPECT_EQ(std::accumulate(resources.begin(), resources.end(), TimeNs{0}), window_steps);
    }
    const auto& tc = w.tensor_cores;
    EXPECT_LE(tc.tc_kernel_ns, tc.kernel_ns);
    EXPECT_LE(tc.eligible_self_kernel_ns, tc.op_kernel_ns);
    EXPECT_LE(tc.eligible_tc_kernel_ns, tc.eligible_total_kernel_ns);
  }
}

TEST(RealTraces, CpuOnlyTracesHaveNoGpuMetrics) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const char* file : {"cpu_only_gloo_rank34.pt.trace.json.gz", "cpu_only_rank0.json.gz"}) {
    SCOPED_TRACE(file);
    LoadedRun run = load_run({dir + "/" + file});
    WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
    EXPECT_EQ(*w.metrics.get(Metric::GpuCount), 0);
    EXPECT_FALSE(w.metrics.get(Metric::GpuUtilizationPct));
    EXPECT_FALSE(w.metrics.get(Metric::TensorCoreKernelTimePct));
    EXPECT_FALSE(w.metrics.get(Metric::BreakdownKernelPct));
  }
}

TEST(RealTraces, NanosecondTimestampsAreKeptExactly) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/v100_ns_resolution_rank0.pt.trace.json.gz"});
  std::size_t not_quarter_us = 0;
  for (const auto& a : run.workers.front().gpu_activities) not_quarter_us += (a.start % 250) != 0;
  EXPECT_GT(not_quarter_us, 0u);  // a double of epoch microseconds could only hold multiples of 250 ns
}

TEST(RealTraces, TheSampledRunFolderHasTwoRanks) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/distributed_128ranks_sampled"});
  ASSERT_EQ(run.workers.size(), 2u);
  EXPECT_EQ(run.inputs[0].worker, "rank-0");
  EXPECT_EQ(run.inputs[1].worker, "rank-1");
  RunAnalysis r = analyse_run(run, default_classification(), {});
  EXPECT_EQ(*r.metrics.get(Metric::GpuCount), 2);
  EXPECT_EQ(*r.metrics.get(Metric::StepsCount), 2);
  // The run's step takes the slower rank: 607904 and 630639 µs (rank 1 in both).
  EXPECT_NEAR(*r.metrics.get(Metric::StepsMaxUs), 630639, 0.5);
}

TEST(RealTraces, RocmDeviceIdsComeFromTheKernels) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/mi250_rocm_minitoy.json.gz"});
  WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].device, 2);
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// The tables add up: each is a different grouping of the same GPU activity.
TEST(RealTraces, TablesAddUp) {
  auto files = kineto_traces();
  if (files.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    LoadedRun run = load_run({file});
    const Profile& p = run.workers.front();
    WorkerAnalysis w = analyse_profile(p, default_classification(), {});
    const WorkerTables& t = w.tables;
    // Kernel table total = sum of the durations of the kernels that started in the window.
    TimeNs kernels = 0, by_table = 0, by_op_table = 0;
    for (const GpuActivity& a : p.gpu_activities)
      if (a.kind == GpuActivityKind::Kernel && a.start >= w.window.start && a.start < w.window.end)
        kernels += a.end - a.start;
    for (const KernelRow& k : t.kernels) by_table += k.total;
    for (const KernelRow& k : t.kernels_by_op) by_op_table += k.total;
    EXPECT_EQ(by_table, kernels);
    EXPECT_EQ(by_op_table, kernels);
    EXPECT_NEAR(w.metrics.get(Metric::KernelsTotalUs).value_or(0) * 1000, static_cast<double>(kernels), 1e-3);
    // Ops' device self time = the GPU time attributed to them: no activity counted twice.
    TimeNs self = 0, total_attributed = 0;
    for (const OpRow& r : t.ops)
      if (r.name != kNoOpName) self += r.device_self;  // the by-shape table has no (no op) row
    for (const OpRow& r : t.ops_by_shape) total_attributed += r.device_self;
    EXPECT_EQ(self, total_attributed);
    TimeNs all_device = 0;
    for (const GpuActivity& a : p.gpu_activities) all_device += a.end - a.start;
    EXPECT_LE(self, all_device);
    // The top ops are the largest self times, in order.
    for (std::size_t i = 1; i < t.top_gpu_ops.size(); ++i)
      EXPECT_GE(t.top_gpu_ops[i - 1].device_self, t.top_gpu_ops[i].device_self);
    // A region's GPU time is part of all GPU time; iterations' GPU time is within their step.
    for (const RegionRow& r : t.regions) EXPECT_LE(r.gpu, all_device) << r.name;
    for (const IterationRow& r : t.iterations) {
      EXPECT_LE(r.gpu, r.duration) << r.name;
      EXPECT_LE(r.tc_gpu, r.gpu) << r.name;
    }
    // Op types: each top-level op once, so their GPU time is at most all GPU time.
    TimeNs type_gpu = 0;
    for (const OpTypeRow& r : t.op_types) type_gpu += r.gpu;
    EXPECT_LE(type_gpu, all_device);
    EXPECT_LE(t.timeline.boxes.size(), 5000u);
  }
}

TEST(RealTraces, TheSampledRunFolderIsTwoRanks) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  RunAnalysis r =
      analyse_run(load_run({dir + "/distributed_128ranks_sampled"}), default_classification(), {});
  EXPECT_EQ(*r.metrics.get(Metric::RanksCount), 2);
  EXPECT_EQ(*r.metrics.get(Metric::RanksSlowest), 1);  // rank 1's mean step is the longer (619.3 vs 615.1 ms)
  EXPECT_TRUE(r.metrics.get(Metric::RanksStepSpreadPct));
}

// Issue 29, item 8: `analyze ../shared/traces` stopped at reference.json (the plugin's values, not
// a trace). It is skipped by name; the other traces load, and the run says they are not one capture.
TEST(RealTraces, TheSharedFolderSkipsItsReferenceValues) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  // Not one capture: analysed together as --one-run asks, so that the run says what differs.
  RunRequest request;
  request.paths = {dir};
  request.one_run = true;
  ReportModel report = analyse_profiles(request, default_book(), {});
  ASSERT_FALSE(report.run_warnings.empty());
  EXPECT_EQ(note_text(report.run_warnings[0]),
            "skipped " + dir + "/reference.json: not a Chrome/Kineto trace: no 'traceEvents' array");
  EXPECT_EQ(report.inputs.size(), 14u);  // the folder's 15 .json.gz/.json files less reference.json
  EXPECT_TRUE(std::any_of(report.run_warnings.begin(), report.run_warnings.end(),
                          [](const Note& w) { return w.id == NoteId::run_gpu_models_differ; }));
}

// The GPU [memory] events of a trace read with a JSON DOM, apart from perfgate's reader: their
// count, the highest recorded total (and the total before the first event), and the running sum of
// the changes in time order with its lowest and highest values (0 included: the capture's start).
struct GpuMemoryEvents {
  std::vector<std::pair<std::int64_t, std::int64_t>> changes;  // (ts in ns, bytes)
  std::size_t count = 0;
  std::int64_t max_total = -1, max_reserved = -1, entering = -1;
  std::int64_t lowest = 0, highest = 0;
  // Allocations and frees (bytes != 0) within the window.
  std::uint64_t in(const Window& w) const {
    return static_cast<std::uint64_t>(std::count_if(changes.begin(), changes.end(), [&](const auto& c) {
      return c.second != 0 && c.first >= w.start && c.first <= w.end;
    }));
  }
};

GpuMemoryEvents gpu_memory_events(const std::string& path) {
  boost::json::value doc = boost::json::parse(read_gzip(path));
  const boost::json::array& events = doc.is_object() ? doc.at("traceEvents").as_array() : doc.as_array();
  GpuMemoryEvents m;
  auto& changes = m.changes;
  for (const auto& v : events) {
    const auto& e = v.as_object();
    if (!e.contains("name") || e.at("name") != "[memory]") continue;
    const auto& args = e.at("args").as_object();
    if (args.at("Device Type").to_number<std::int64_t>() != 1) continue;
    ++m.count;
    // Integer microseconds exactly; fractional ones (the H100 trace) to the nearest nanosecond.
    const boost::json::value& ts = e.at("ts");
    std::int64_t ns = ts.is_int64() ? ts.as_int64() * 1000 : std::llround(ts.to_number<double>() * 1000);
    changes.emplace_back(ns, args.at("Bytes").to_number<std::int64_t>());
    if (args.contains("Total Allocated")) {
      std::int64_t total = args.at("Total Allocated").to_number<std::int64_t>();
      if (m.entering < 0) m.entering = total - changes.back().second;
      m.max_total = std::max(m.max_total, total);
      m.max_reserved = std::max(m.max_reserved, args.at("Total Reserved").to_number<std::int64_t>());
    }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::int64_t sum = 0;
  for (const auto& c : changes) {
    sum += c.second;
    m.lowest = std::min(m.lowest, sum);
    m.highest = std::max(m.highest, sum);
  }
  return m;
}

std::uint64_t memory_ops_events(const WorkerAnalysis& w) {
  std::uint64_t n = 0;
  for (const MemoryOpRow& r : w.tables.memory_ops) n += r.allocations + r.frees;
  return n;
}

// Issue 15, item 6: the ResNet-50 trace's 8,220 GPU allocations and frees carry no totals (PyTorch
// 1.8): its peak is the highest running sum above its lowest; the H100 trace records totals.
TEST(RealTraces, TheMemoryViewComesFromTheMemoryEvents) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  std::string resnet = dir + "/resnet50_v100_workers0.pt.trace.json.gz";
  GpuMemoryEvents events = gpu_memory_events(resnet);
  EXPECT_EQ(events.count, 8220u);
  EXPECT_EQ(events.max_total, -1);
  WorkerAnalysis w = analyse_profile(load_run({resnet}).workers.front(), default_classification(), {});
  ASSERT_TRUE(w.memory.peak_allocated);
  EXPECT_EQ(*w.memory.peak_allocated, events.highest - events.lowest);
  EXPECT_EQ(*w.metrics.get(Metric::MemoryTotalsRecorded), 0);
  EXPECT_FALSE(w.memory.peak_op.empty());
  EXPECT_EQ(memory_ops_events(w), events.in(w.window)) << "the window's allocations and frees";
  EXPECT_FALSE(w.tables.memory_curve.empty());

  std::string h100 = dir + "/h100_llm_inference_slice.json.gz";
  GpuMemoryEvents recorded = gpu_memory_events(h100);
  ASSERT_GT(recorded.max_total, 0);
  WorkerAnalysis r = analyse_profile(load_run({h100}).workers.front(), default_classification(), {});
  ASSERT_TRUE(r.memory.peak_allocated);
  EXPECT_EQ(*r.memory.peak_allocated, std::max(recorded.max_total, recorded.entering));
  EXPECT_EQ(*r.metrics.get(Metric::MemoryPeakReservedBytes), static_cast<double>(recorded.max_reserved));
  EXPECT_EQ(*r.metrics.get(Metric::MemoryTotalsRecorded), 1);
}

// The A100 NCCL trace's collectives table against its NCCL kernels read with a JSON DOM: the 15
// AllReduce kernels are the c10d::allreduce_ calls' GPU time, the 6 Broadcast kernels the
// c10d::broadcast_ calls' (every kernel of the trace is in the window's three steps).
TEST(RealTraces, TheCollectivesTableHasTheNcclKernelsOfEachOp) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  std::string path = dir + "/a100_nccl_rank0.json.gz";
  boost::json::value doc = boost::json::parse(read_gzip(path));
  std::map<std::string, std::pair<std::uint64_t, double>> kernels;  // calls, microseconds
  for (const auto& v : doc.at("traceEvents").as_array()) {
    const auto& e = v.as_object();
    if (!e.contains("cat") || e.at("cat") != "kernel") continue;
    std::string name(e.at("name").as_string());
    for (const char* kind : {"AllReduce", "Broadcast"})
      if (name.find(kind) != std::string::npos) {
        ++kernels[kind].first;
        kernels[kind].second += e.at("dur").to_number<double>();
      }
  }
  WorkerAnalysis w = analyse_profile(load_run({path}).workers.front(), default_classification(), {});
  std::map<std::string, const CollectiveRow*> rows;
  for (const CollectiveRow& r : w.tables.collectives) rows[r.op] = &r;
  for (auto [op, kind] :
       {std::pair{"c10d::allreduce_", "AllReduce"}, std::pair{"c10d::broadcast_", "Broadcast"}}) {
    SCOPED_TRACE(op);
    ASSERT_TRUE(rows.count(op));
    EXPECT_EQ(rows[op]->calls, kernels[kind].first);
    EXPECT_NEAR(static_cast<double>(rows[op]->device) / 1000, kernels[kind].second, 0.01);
  }
  EXPECT_EQ(kernels["AllReduce"].first, 15u);
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// The roofline table on the shared traces that record shapes with their scalar arguments
// (Concrete Inputs: strides and padding): it covers the GEMM, convolution and attention kernel time
// (at least 80%), and its FLOPs are MFU's, call by call. The ResNet-50 V100 traces (PyTorch 1.8)
// record no scalar arguments: their convolutions stay unmodelled.
TEST(RealTraces, TheRooflineCoversTheMatrixOpsAndCountsMfusFlops) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const char* name : {"a100_80g_5steps_rank0.json.gz", "h100_cudnn_driver_api_conv.json.gz",
                           "h100_llm_inference_slice.json.gz", "mi250_rocm_minitoy.json.gz",
                           "mi300x_resnet_actckpt_gpu_steps.json.gz"}) {
    SCOPED_TRACE(name);
    LoadedRun run = load_run({dir + "/" + name});
    WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
    EXPECT_GE(*w.metrics.get(Metric::RooflineMatrixCoveragePct), 80);
    double counted = 0;
    for (const RooflineRow& r : w.tables.roofline)
      if (r.counted_in_mfu) counted += static_cast<double>(r.flop);
    ASSERT_GT(counted, 0);
    // MFU sums the same per-call counts as doubles; the table rounds each call to an integer.
    EXPECT_NEAR(counted, *w.metrics.get(Metric::ComputeFlops), 1e-9 * counted);
  }
}

// On the H100 inference slice (H100 SXM: BF16 989.4 TFLOP/s, 3,350 GB/s), the [8944, 1024] x
// [1024, 2816] GEMM: 2 x 8944 x 2816 x 1024 = 51,581,550,592 FLOPs and (8944 x 1024 + 1024 x 2816 +
// 8944 x 2816) x 2 = 74,457,088 bytes a call; compute-bound at 52.13 us a call.
TEST(RealTraces, TheH100SliceGemmIsComputeBound) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  LoadedRun run = load_run({dir + "/h100_llm_inference_slice.json.gz"});
  WorkerAnalysis w = analyse_profile(run.workers.front(), default_classification(), {});
  const RooflineRow* gemm = nullptr;
  for (const RooflineRow& r : w.tables.roofline)
    if (r.name == "aten::mm" && r.input_dims == "[[8944,1024],[1024,2816]]") gemm = &r;
  ASSERT_TRUE(gemm);
  ASSERT_GT(gemm->calls, 0u);
  EXPECT_EQ(gemm->flop / gemm->calls, 51581550592u);
  EXPECT_EQ(gemm->bytes / gemm->calls, 74457088u);
  EXPECT_GT(gemm->compute_ps, gemm->memory_ps);
  EXPECT_NEAR(static_cast<double>(gemm->roofline_ps) / 1e6 / static_cast<double>(gemm->calls),
              51581550592.0 / 989.4e12 * 1e6, 1e-4);
}

}  // namespace
}  // namespace perfgate::testing
