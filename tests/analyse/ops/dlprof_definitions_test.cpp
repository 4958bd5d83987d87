// DLProf's definitions where perfgate shows DLProf's columns (issue 53, item 5), on a hand-built
// Nsight Systems export whose numbers are the (DLProf 1.8.0 on a LeNet run): per op, CPU
// overhead = CPU time less its CUDA API calls, GPU idle = first activity's start to last's end less
// busy; PyProf's and emit_nvtx's nested markers of one call are one op; a stepless window starts at
// the capture's start.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyse/analysis.h"
#include "knowledge/classification.h"
#include "load/load.h"
#include "support/helpers.h"
#include "support/nsys_builder.h"
#include "support/nsys_rows.h"

namespace perfgate::testing {
namespace {

const NsysThread kThread;  // pid 10, tid 10
std::string launch(std::int64_t start, std::int64_t end, std::int64_t correlation) {
  return kThread.call(start, end, correlation, 1);
}
std::string kernel(std::int64_t start, std::int64_t end, std::int64_t correlation) {
  return kThread.kernel(start, end, correlation, 2);
}
std::string range(std::int64_t start, std::int64_t end, const std::string& text) {
  return kThread.range(start, end, text);
}

// nsys writes the capture's start and stop as diagnostic events (timestamp 0 for a whole capture).
constexpr const char* kDiagnostics =
    "CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER NOT NULL, timestampType INTEGER NOT NULL, "
    "source INTEGER NOT NULL, severity INTEGER NOT NULL, text TEXT NOT NULL, globalPid INTEGER);"
    "INSERT INTO DIAGNOSTIC_EVENT VALUES (0, 1, 3, 1, 'Profiling has started.', NULL), "
    "(3000000, 1, 3, 1, 'Profiling has stopped.', NULL);";

// RELU_1: one call marked three times (PyProf's torch.nn.functional.relu and torch.relu, then
// emit_nvtx's aten::relu), 226,639 ns, one 8,542-ns launch, one kernel. LINEAR_2: 151,046 ns,
// launches of 7,972 and 4,343 ns, kernels of 3,232 ns at +0 and 7,136 ns at +12,352.
std::string lenet() {
  std::string relu_args =
      "'args': [{'name': 'input', 'type': 'tensor', 'shape': (4, 6), 'dtype': 'float32'}]";
  std::string sql = std::string(kNsysStringIds) + kNsysKernelTable + kNsysRuntimeTable + kNsysNvtxTable +
                    kDiagnostics +
                    "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'kernel');";
  sql += range(1000000, 1226639, "{'mod': 'torch.nn.functional', 'op': 'relu', " + relu_args + "}");
  sql += range(1000100, 1226500, "{'mod': 'torch', 'op': 'relu', " + relu_args + "}");
  sql += range(1000200, 1226400, "aten::relu, seq = 5, op_id = 9, sizes = [[4, 6]]");
  sql += launch(1100000, 1108542, 1) + kernel(1300000, 1302272, 1);
  sql += range(2000000, 2151046,
               "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': 'input', 'type': 'tensor', "
               "'shape': (4, 120), 'dtype': 'float32'}, {'name': 'weight', 'type': 'tensor', 'shape': (84, "
               "120), 'dtype': 'float32'}]}");
  sql += launch(2010000, 2017972, 2) + kernel(2200000, 2203232, 2);
  sql += launch(2050000, 2054343, 3) + kernel(2212352, 2219488, 3);
  return make_sqlite(temp_dir() + "/dlprof_lenet.sqlite", sql);
}

const OpTypeRow* find_type(const WorkerAnalysis& w, std::string_view type) {
  for (const OpTypeRow& r : w.tables.op_types)
    if (r.type == type) return &r;
  return nullptr;
}

TEST(DlprofDefinitions, CpuOverheadAndGpuIdlePerOpType) {
  Profile p = std::move(load_run({lenet()}).workers.at(0));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  const OpTypeRow* relu = find_type(w, "activation");
  const OpTypeRow* linear = find_type(w, "matmul");
  ASSERT_TRUE(relu && linear);
  // RELU_1: 226,639 - 8,542 = 218,097 ns of overhead; one kernel, so no idle between activities.
  EXPECT_EQ(relu->cpu_total, 226639);
  EXPECT_EQ(relu->cpu_overhead, 218097);
  EXPECT_EQ(relu->gpu_idle, 0);
  // LINEAR_2: 151,046 - (7,972 + 4,343) = 138,731; span 12,352 + 7,136 = 19,488 less busy
  // 3,232 + 7,136 = 10,368: 9,120 ns idle.
  EXPECT_EQ(linear->cpu_total, 151046);
  EXPECT_EQ(linear->cpu_overhead, 138731);
  EXPECT_EQ(linear->gpu_idle, 9120);
  EXPECT_NE(relu->cpu_overhead, relu->gpu_idle);
}

TEST(DlprofDefinitions, NestedMarkersOfOneCallAreOneOp) {
  Profile p = std::move(load_run({lenet()}).workers.at(0));
  std::size_t relus = std::count_if(p.host_events.begin(), p.host_events.end(),
                                    [&](const HostEvent& e) { return p.str(e.name) == "aten::relu"; });
  EXPECT_EQ(relus, 1u);  // three markers, one call
  const HostEvent* relu = nullptr;
  for (const HostEvent& e : p.host_events)
    if (p.str(e.name) == "aten::relu") relu = &e;
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->start, 1000000);  // the outermost, with its shapes and the inner one's sequence
  EXPECT_EQ(relu->end, 1226639);
  EXPECT_EQ(p.str(p.details(*relu).input_dims), "[[4,6]]");
  EXPECT_EQ(p.details(*relu).sequence_number, 5);
  EXPECT_TRUE(has_line(p.notes, "2 NVTX op ranges nested directly"));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_NE(find_type(w, "activation"), nullptr);
  EXPECT_EQ(find_type(w, "activation")->calls, 1u);

  // Asked for the levels (rules: attribution.fold_nested_nvtx_ops: false): three ops.
  LoadOptions options;
  options.read.fold_nested_nvtx_ops = false;
  Profile levels = std::move(load_run({lenet()}, options).workers.at(0));
  relus = std::count_if(levels.host_events.begin(), levels.host_events.end(),
                        [&](const HostEvent& e) { return levels.str(e.name) == "aten::relu"; });
  EXPECT_EQ(relus, 3u);
}

TEST(DlprofDefinitions, AStepslessWindowStartsAtTheCaptureStart) {
  Profile p = std::move(load_run({lenet()}).workers.at(0));
  EXPECT_EQ(p.info.profiler_start, 0);
  EXPECT_EQ(p.info.profiler_end, 3000000);
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  // From "Profiling has started." at 0 to the last kernel's end, 2,219,488 ns; the first recorded
  // event is at 1,000,000 ns.
  EXPECT_EQ(w.window.start, 0);
  EXPECT_EQ(w.window.end, 2219488);
  EXPECT_DOUBLE_EQ(w.metrics.get(Metric::WindowWallUs).value_or(-1), 2219.488);
  // The capture span is the capture's: started at 0, stopped at 3,000,000 ns.
  EXPECT_DOUBLE_EQ(w.metrics.get(Metric::WindowCaptureSpanUs).value_or(-1), 3000.0);
}

}  // namespace
}  // namespace perfgate::testing
