// The analysis tables on hand-built traces whose rows are worked out in the comments.
#include <gtest/gtest.h>

#include "analyse/ops/op_info.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Step [0,1000]. Forward on thread 1: aten::linear [10,110] > aten::t [15,20] and
// aten::addmm [30,100] (runtime [40,45] launching 60 µs of gemm). Backward on the autograd
// thread 2: evaluate_function: AddmmBackward0 [300,400] > AddmmBackward0 [305,395] > aten::mm
// [310,390] (two launches, 20 + 30 µs).
//   linear: host 100, self 100 - 5 - 70 = 25; device total 60, self 0.
//   addmm: host 70, self 70 - 5 (runtime) = 65; device self 60, kernel calls 1.
std::string ops_trace() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::linear", 10, 100, 1, 1,
       R"("Input Dims": [[8, 16], [4, 16], [4]], "Input type": ["float", "float", "float"])");
  t.op("aten::t", 15, 5, 2, 1);
  t.op("aten::addmm", 30, 70, 3, 1,
       R"("Input Dims": [[4], [8, 16], [16, 4]], "Input type": ["float", "float", "float"])");
  t.runtime("cudaLaunchKernel", 40, 5, 100, 3).kernel("ampere_sgemm_64x32_nn", 120, 60, 100);
  t.op("autograd::engine::evaluate_function: AddmmBackward0", 300, 100, 10, 2);
  t.op("AddmmBackward0", 305, 90, 11, 2);
  t.op("aten::mm", 310, 80, 12, 2, R"("Input Dims": [[8, 4], [4, 16]], "Input type": ["float", "float"])");
  t.launch("ampere_sgemm_32x32_tn", 320, 420, 20, 12, 0, 2);
  t.launch("ampere_sgemm_32x32_tn", 330, 450, 30, 12, 0, 2);
  return t.json();
}

TEST(OpsTable, HostAndDeviceTimesSelfAndTotal) {
  WorkerAnalysis w = analyse_json(ops_trace());
  const OpRow* linear = find_op(w.tables.ops, "aten::linear");
  const OpRow* addmm = find_op(w.tables.ops, "aten::addmm");
  ASSERT_TRUE(linear && addmm);
  EXPECT_EQ(linear->calls, 1u);
  EXPECT_EQ(linear->host_total, 100000);
  EXPECT_EQ(linear->host_self, 25000);
  EXPECT_EQ(linear->device_total, 60000);
  EXPECT_EQ(linear->device_self, 0);
  EXPECT_TRUE(linear->tc_eligible);
  EXPECT_FALSE(linear->uses_tc);
  EXPECT_EQ(linear->op_type, "matmul");
  EXPECT_EQ(linear->data_types, "float");
  EXPECT_EQ(addmm->host_self, 65000);
  EXPECT_EQ(addmm->device_self, 60000);
  EXPECT_EQ(addmm->kernel_calls, 1u);
  EXPECT_DOUBLE_EQ(addmm->flops, 2.0 * 8 * 4 * 16 + 8 * 4);  // M x N more for the bias
  EXPECT_EQ(addmm->direction, Direction::Forward);
  const OpRow* mm = find_op(w.tables.ops, "aten::mm");
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->direction, Direction::Backward);
  EXPECT_EQ(mm->device_self, 50000);
  EXPECT_EQ(mm->kernel_calls, 2u);
  EXPECT_EQ(w.tables.ops.front().name, "aten::linear");  // most device time first (ties: host time)
  // By shapes: one row per (name, Input Dims); the by-name row carries the call stack.
  EXPECT_EQ(w.tables.ops_by_shape.size(), w.tables.ops.size());
  EXPECT_EQ(w.tables.top_gpu_ops.front().name, "aten::addmm");  // by self device time
}

// A runtime call whose External id names an outer op while it lies inside one of that op's children
// (a100_alexnet's aten::_to_copy, TPU's Execute calls): the plugin's tree puts it under the innermost
// range in time, so the child's self time loses it and the outer op loses the child only. Taking it
// from the owner as well made the owner's self time negative. aten::_to_copy [10,110] > aten::copy_
// [20,60]; cudaMemcpyAsync [25,55] names the outer op. _to_copy: 100 - 40 = 60; copy_: 40 - 30 = 10.
TEST(OpsTable, ACallInsideAChildIsTheChildsSelfTime) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::_to_copy", 10, 100, 1, 1);
  t.op("aten::copy_", 20, 40, 2, 1);
  t.runtime("cudaMemcpyAsync", 25, 30, 100, 1)
      .memcpy("Memcpy HtoD (Pinned -> Device)", 70, 20, 100, 0, 7, 1 << 20);
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* to_copy = find_op(w.tables.ops, "aten::_to_copy");
  const OpRow* copy = find_op(w.tables.ops, "aten::copy_");
  ASSERT_TRUE(to_copy && copy);
  EXPECT_EQ(to_copy->host_self, 60000);
  EXPECT_EQ(copy->host_self, 10000);
  EXPECT_EQ(to_copy->device_self, 20000);  // the call is still the outer op's, by its External id
  EXPECT_EQ(copy->device_self, 0);
}

// Issue 55, item 4: each op's device time with callees was summed over its subtree on every call,
// O(N^2) for a chain of N nested ops (50,000: 14.8 s on the 2-core CI machine; 100,000: 56 s).
// Op k of the chain starts at 1000 + k us and lasts 2 (N - k) + 10 us, each strictly inside the
// previous; the innermost launches one 100 us kernel (its runtime call 1 us). Every op's device
// total is that kernel: 100 us; the row sums N calls. Host total: sum of 2 (N - k) + 10 over k =
// N (N + 1) + 10 N us; host self: 2 us per op but the innermost, 12 - 1 (runtime) = 11 us.
TEST(OpStatsScale, NestedChainIsLinear) {
  constexpr std::int64_t kOps = 50'000;
  TraceBuilder t;
  t.step(1, 0, 1000 + 2 * kOps + 100);
  for (std::int64_t k = 0; k < kOps; ++k)
    t.op("aten::mm", 1000.0 + static_cast<double>(k), 2.0 * static_cast<double>(kOps - k) + 10, k + 1);
  t.launch("gemm_kernel", 1000.0 + kOps, 1000.0 + 3 * kOps, 100, kOps);
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* mm = find_op(w.tables.ops, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->calls, static_cast<std::uint64_t>(kOps));
  EXPECT_EQ(mm->device_total, kOps * 100'000);
  EXPECT_EQ(mm->device_self, 100'000);
  EXPECT_EQ(mm->host_total, (kOps * (kOps + 1) + 10 * kOps) * 1000);
  EXPECT_EQ(mm->host_self, (2 * (kOps - 1) + 11) * 1000);
  // The cost stays linear in the speed budget (ci/cost-budget.sh: nested-ops-4000), not in a timer.
}

// Op types count top-level ops: aten::linear (matmul, 60 µs of GPU work under it, launched at
// 40 while it ran [10,110]) and the backward wrapper (matmul too: "AddmmBackward" matches).
// linear: GPU [120,180] lies outside its host span: CPU overhead 100, GPU idle during it 100.
// Issue 14, item 3: a custom kernel run straight from the step (no op around its launch) took
// 93% of the GPU time; the top ops read "aten::copy_ 98.1% · aten::fill_ 1.9%". Step [0,1000]:
// aten::copy_ [10,60] launches 60 us, aten::fill_ [70,80] launches 10 us; a runtime call at 100
// outside any op launches my_fused_kernel (930 us, Tensor Cores: no); a memset with no launching
// call at all runs 5 us.
TEST(OpsTable, GpuWorkOutsideAnyOpHasItsOwnRow) {
  TraceBuilder t;
  t.step(1, 0, 2000);
  t.op("aten::copy_", 10, 50, 1);
  t.launch("copy_kernel", 20, 200, 60, 1);
  t.op("aten::fill_", 70, 10, 2);
  t.launch("fill_kernel", 72, 300, 10, 2);
  t.launch("my_fused_kernel", 100, 400, 930);
  t.memset(1500, 5, 999);
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* outside = find_op(w.tables.ops, "(no op)");
  ASSERT_NE(outside, nullptr);
  EXPECT_EQ(outside->device_total, 935'000);
  EXPECT_EQ(outside->device_self, 935'000);
  EXPECT_EQ(outside->calls, 2u);         // its GPU activities
  EXPECT_EQ(outside->kernel_calls, 1u);  // of which kernels
  EXPECT_EQ(outside->host_total, 0);
  EXPECT_EQ(w.tables.ops.front().name, "(no op)");  // most device time first
  ASSERT_GE(w.tables.top_gpu_ops.size(), 3u);
  EXPECT_EQ(w.tables.top_gpu_ops[0].name, "(no op)");
  EXPECT_EQ(w.tables.top_gpu_ops[1].name, "aten::copy_");
  // In the report, shares are of all GPU time: 935 / (935 + 60 + 10).
  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* top = find_table(report.workers.at(0).tables, "top_gpu_ops");
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(std::get<std::string>(*find_cell(*top, 0, "name")), "(no op)");
  EXPECT_NEAR(*cell_number(*find_cell(*top, 0, "device_share_pct")), 100.0 * 935 / 1005, 1e-9);
  EXPECT_NEAR(*cell_number(*find_cell(*top, 1, "device_share_pct")), 100.0 * 60 / 1005, 1e-9);
}

TEST(OpsTable, NoRowForGpuWorkOutsideOpsWhenThereIsNone) {
  WorkerAnalysis w = analyse_json(ops_trace());
  EXPECT_EQ(find_op(w.tables.ops, "(no op)"), nullptr);
}

// The user frame is the innermost frame of the call stack that the default library_frames leave:
// from the trace's "Call stack" (PyTorch 1.x, absolute paths) or from the Python frames around the
// op (PyTorch 2.x, library paths relative to site-packages, nn.Module markers among them).
TEST(OpsTable, TheUserFrameIsTheInnermostFrameOutsideTheLibraries) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op(
      "aten::conv2d", 10, 10, 0, 1,
      R"("Call stack": "/home/u/venv/lib/python3.10/site-packages/torch/nn/modules/conv.py(456): )"
      R"(_conv_forward;/usr/lib/python3.10/contextlib.py(79): inner;train.py(42): step;train.py(90): main")");
  t.python_function("train.py(12): main", 100, 300, 2);
  t.python_function("torch/nn/modules/module.py(1743): _call_impl", 110, 200, 2);
  t.python_function("nn.Module: Linear_0", 120, 150, 2);
  t.op("aten::linear", 130, 10, 0, 2);
  t.op("aten::relu", 500, 10, 0, 1,
       R"("Call stack": "torch/nn/functional.py(1500): relu;<frozen runpy>(88): _run_code")");
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* conv = find_op(w.tables.ops, "aten::conv2d");
  const OpRow* linear = find_op(w.tables.ops, "aten::linear");
  const OpRow* relu = find_op(w.tables.ops, "aten::relu");
  ASSERT_TRUE(conv && linear && relu);
  EXPECT_EQ(conv->user_frame, "train.py(42): step");
  EXPECT_EQ(linear->call_stack,
            "nn.Module: Linear_0;torch/nn/modules/module.py(1743): _call_impl;train.py(12): main");
  EXPECT_EQ(linear->user_frame, "train.py(12): main");
  EXPECT_EQ(relu->user_frame, "") << "every frame is a library's";
}

TEST(OpsTable, OpTypesCountTopLevelOpsOnce) {
  WorkerAnalysis w = analyse_json(ops_trace());
  ASSERT_EQ(w.tables.op_types.size(), 1u);
  const OpTypeRow& matmul = w.tables.op_types[0];
  EXPECT_EQ(matmul.type, "matmul");
  EXPECT_EQ(matmul.calls, 2u);
  EXPECT_EQ(matmul.ops, 2u);
  EXPECT_EQ(matmul.cpu_total, 200000);
  EXPECT_EQ(matmul.cpu_min, 100000);
  EXPECT_EQ(matmul.gpu, 110000);
  // DLProf's CPU overhead: host time less the CUDA API calls made inside. aten::linear [10,110]
  // made one cudaLaunchKernel of 5 µs (through aten::addmm): 95; the backward [300,400] two
  // launches of 1 µs: 98. 95 + 98 = 193 µs.
  EXPECT_EQ(matmul.cpu_overhead, 193000);
  // DLProf's GPU idle: first activity's start to last's end, less busy. Forward: one kernel, 0;
  // backward: [420,440] and [450,480], span 60 less busy 50 = 10 µs.
  EXPECT_EQ(matmul.gpu_idle, 10000);
}

// DDP's all-reduce runs in a gradient hook inside AccumulateGrad's evaluate_function (optimizer
// class): a collective inside another class's op is a communication call of its own, not that op's
// time. AccumulateGrad [300,400) holds aten::add_ [305,315) (a 1 us launch of a 10 us kernel) and
// c10d::allreduce_ [320,380) (its record_param_comms [325,375) launches a 40 us NCCL kernel with a
// 2 us call). Optimizer: 100 - 60 = 40 us of host, 10 us of GPU, 1 us of API; communication: 60 us
// of host, 40 us of GPU, 2 us of API. Before, the optimizer row held all 50 us of GPU time. GPU idle
// still reads the whole call's work: the add_ kernel [420,430) and the all-reduce [440,480), 60 less
// 50 busy = 10 us, as before; the all-reduce's own call has one kernel: 0.
TEST(OpsTable, OpTypesCountACollectiveInsideAnotherOpAsCommunication) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 300, 100, 1, 2);
  t.op("aten::add_", 305, 10, 2, 2);
  t.runtime("cudaLaunchKernel", 306, 1, 100, 2, 2).kernel("vectorized_elementwise_kernel", 420, 10, 100);
  t.op("c10d::allreduce_", 320, 60, 3, 2);
  t.op("record_param_comms", 325, 50, 4, 2);
  t.runtime("cudaLaunchKernel", 330, 2, 101, 4, 2)
      .kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 440, 40, 101);
  WorkerAnalysis w = analyse_json(t.json());
  const OpTypeRow *optimizer = nullptr, *communication = nullptr;
  for (const OpTypeRow& r : w.tables.op_types) {
    if (r.type == "optimizer") optimizer = &r;
    if (r.type == "communication") communication = &r;
  }
  ASSERT_TRUE(optimizer && communication);
  EXPECT_EQ(optimizer->calls, 1u);
  EXPECT_EQ(optimizer->cpu_total, 40000);
  EXPECT_EQ(optimizer->gpu, 10000);
  EXPECT_EQ(optimizer->cpu_overhead, 39000);
  EXPECT_EQ(optimizer->gpu_idle, 10000);
  EXPECT_EQ(communication->calls, 1u);
  EXPECT_EQ(communication->ops, 1u);  // c10d::allreduce_; record_param_comms is inside it
  EXPECT_EQ(communication->cpu_total, 60000);
  EXPECT_EQ(communication->gpu, 40000);
  EXPECT_EQ(communication->cpu_overhead, 58000);
  EXPECT_EQ(communication->gpu_idle, 0);
}

// Regions: "## forward ##" [5,200] encloses the forward ops (60 µs of GPU work launched inside);
// a GPU-side range of the same name adds 50 µs of GPU range time. Step markers are not regions.
TEST(Regions, HostTimeAndTheGpuWorkLaunchedInside) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.annotation("## forward ##", 5, 195, 20, 1);
  t.op("aten::addmm", 30, 70, 3, 1);
  t.launch("gemm", 40, 120, 60, 3);
  t.raw_event(
      R"({"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 120, "dur": 50})");
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.tables.regions.size(), 1u);
  const RegionRow& r = w.tables.regions[0];
  EXPECT_EQ(r.name, "## forward ##");
  EXPECT_EQ(r.calls, 1u);
  EXPECT_EQ(r.cpu_total, 195000);
  EXPECT_EQ(r.gpu, 60000);
  EXPECT_EQ(r.gpu_range, 50000);
}

// Issue 28, item 8: a row sums its calls' totals, and a kernel under ops (or ranges) nested in ops
// of the same name counts once per call. 3600 nested "aten::mm" calls and "r" ranges (call i at
// i us, lasting 10000 - 2i us) over one kernel of 30 days (2.592e15 ns): 3600 x 2.592e15 =
// 9.33e18 ns, past the largest int64 (9.22e18), where the sum wrapped to a negative time. It
// saturates there now.
TEST(OpsTable, SumsOverNestedCallsOfOneNameSaturate) {
  TraceBuilder t;
  for (int i = 0; i < 3600; ++i) {
    t.annotation("r", i, 10000 - 2 * i);
    t.op("aten::mm", i + 0.5, 10000 - 2 * i - 1);
  }
  t.launch("k", 4000, 5000, 2592000000000.0);
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* mm = find_op(w.tables.ops, "aten::mm");
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->calls, 3600u);
  EXPECT_EQ(mm->device_self, 2592000000000000);
  EXPECT_EQ(mm->device_total, std::numeric_limits<TimeNs>::max());
  ASSERT_EQ(w.tables.regions.size(), 1u);
  EXPECT_EQ(w.tables.regions[0].gpu, std::numeric_limits<TimeNs>::max());
}

// A region's share of the window is the time a range of its name was open, on any thread: the union
// of its ranges, cut to the window, over the window's wall time (never over 100%). As in the shared
// CPU-only gloo trace, two threads run "gloo:all_reduce" at once: [100,700] and a nested [150,250]
// on thread 2, [200,800] on thread 3, and [900,1300] on thread 2 runs past the window [0,1000].
// Union in the window: [100,800] and [900,1000], 700 + 100 = 800 us of 1000: 80%. The host time
// sums every range: 600 + 100 + 600 + 400 = 1700 us (it was the share's numerator: 170%).
TEST(Regions, WindowShareIsTheUnionOfTheRangesOverTheWindow) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.annotation("gloo:all_reduce", 100, 600, 0, 2);
  t.annotation("gloo:all_reduce", 150, 100, 0, 2);
  t.annotation("gloo:all_reduce", 200, 600, 0, 3);
  t.annotation("gloo:all_reduce", 900, 400, 0, 2);
  ReportModel report = report_of_json(t.json(), default_book());
  const ReportTable* regions = find_table(report.workers.front().tables, "regions");
  ASSERT_TRUE(regions);
  ASSERT_EQ(regions->rows.size(), 1u);
  EXPECT_EQ(cell_number(*find_cell(*regions, 0, "cpu_total_us")), 1700);
  EXPECT_EQ(cell_number(*find_cell(*regions, 0, "calls")), 4);
  EXPECT_DOUBLE_EQ(*cell_number(*find_cell(*regions, 0, "window_share_pct")), 80);
}

// Issue 29, item 3: the GPU runs behind the host (MI300X trace: record_param_comms 24.6 ms in the
// ops table, 47.2 ms in "kernels by op"). Work queued before the capture runs [0,490] (no launch
// call), so step 1 (host [10,600]) starts at 490. Step 1's record_param_comms [20,30] launches an
// NCCL kernel [500,800]; step 2 (host [600,1200]) launches one [800,1000] from [610,620].
// Steps: [490,800] and [800,1200]. The ops are those of the window's steps (host spans), whatever
// the GPU's lag: 2 calls, 500 us, as the kernels that started in the window.
std::string lagging_gpu_trace() {
  TraceBuilder t;
  t.step(1, 10, 590).step(2, 600, 600);
  t.kernel("ncclDevKernel_Generic", 0, 490, 1);  // launched before the capture
  t.op("record_param_comms", 20, 10, 1).launch("ncclDevKernel_Generic", 25, 500, 300, 1);
  t.op("record_param_comms", 610, 10, 2).launch("ncclDevKernel_Generic", 615, 800, 200, 2);
  return t.json();
}

TEST(OpsTable, OpsOfTheWindowsStepsWhenTheGpuRunsBehindTheHost) {
  WorkerAnalysis w = analyse_json(lagging_gpu_trace());
  EXPECT_EQ(w.window.start, 490'000);
  const OpRow* comms = find_op(w.tables.ops, "record_param_comms");
  ASSERT_NE(comms, nullptr);
  EXPECT_EQ(comms->calls, 2u);
  EXPECT_EQ(comms->kernel_calls, 2u);
  EXPECT_EQ(comms->device_self, 500'000);
  ASSERT_EQ(w.tables.kernels_by_op.size(), 1u);
  EXPECT_EQ(w.tables.kernels_by_op[0].op, "record_param_comms");
  EXPECT_EQ(w.tables.kernels_by_op[0].total, 500'000);
  ASSERT_FALSE(w.tables.top_gpu_ops.empty());
  EXPECT_EQ(w.tables.top_gpu_ops[0].device_self, 500'000);
}

// Without steps the window is the CPU ops' span [20,620], moved to 490 by the queued work: its ops
// are all the trace's ops.
TEST(OpsTable, OpsOfTheWholeTraceWindowWhenTheGpuRunsBehindTheHost) {
  TraceBuilder t;
  t.kernel("ncclDevKernel_Generic", 0, 490, 1);
  t.op("record_param_comms", 20, 10, 1).launch("ncclDevKernel_Generic", 25, 500, 300, 1);
  t.op("record_param_comms", 610, 10, 2).launch("ncclDevKernel_Generic", 615, 800, 200, 2);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(w.window.start, 490'000);
  const OpRow* comms = find_op(w.tables.ops, "record_param_comms");
  ASSERT_NE(comms, nullptr);
  EXPECT_EQ(comms->calls, 2u);
  EXPECT_EQ(comms->device_self, 500'000);
}

// With --iter-stop 1 the window is step 1, [490,800]: step 2's call [610,620] lies in it on the
// clock but belongs to step 2 (its kernel runs after the window): 1 call, 300 us.
TEST(OpsTable, OpsOfTheNextStepAreNotInTheWindow) {
  AnalysisOptions options;
  options.window.iter_stop = 1;
  WorkerAnalysis w = analyse_json(lagging_gpu_trace(), options);
  EXPECT_EQ(w.window.end, 800'000);
  const OpRow* comms = find_op(w.tables.ops, "record_param_comms");
  ASSERT_NE(comms, nullptr);
  EXPECT_EQ(comms->calls, 1u);
  EXPECT_EQ(comms->device_self, 300'000);
  ASSERT_EQ(w.tables.kernels_by_op.size(), 1u);
  EXPECT_EQ(w.tables.kernels_by_op[0].total, 300'000);
}

// Three calls of one kernel (10, 30, 20 µs; occupancy 50, 25, unknown) and one of another; the
// second call has a different grid.
TEST(KernelsTable, CallsDurationsLaunchConfigAndOccupancy) {
  TraceBuilder t;
  t.step(1, 0, 1000).op("aten::mul", 1, 500, 1);
  KernelArgs a{.occupancy_pct = 50,
               .grid = {4, 1, 1},
               .block = {128, 1, 1},
               .registers_per_thread = 32,
               .shared_memory = 0};
  KernelArgs b = a;
  b.grid[0] = 8;
  b.occupancy_pct = 25;
  KernelArgs c = a;
  c.occupancy_pct = -1;
  t.launch("void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >(int, float*)",
           2, 10, 10, 1, 0, 1, 7, a);
  t.launch("void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >(int, float*)",
           3, 30, 30, 1, 0, 1, 7, b);
  t.launch("void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >(int, float*)",
           4, 70, 20, 1, 0, 1, 7, c);
  t.launch("other_kernel", 5, 100, 5, 0, 0, 2);  // thread 2 runs no op
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.tables.kernels.size(), 2u);
  const KernelRow& k = w.tables.kernels[0];
  EXPECT_EQ(k.short_name, "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(k.calls, 3u);
  EXPECT_EQ(k.total, 60000);
  EXPECT_EQ(k.min, 10000);
  EXPECT_EQ(k.max, 30000);
  EXPECT_TRUE(k.launch_config_varies);
  EXPECT_EQ(k.grid[0], 8);  // of the longest call
  EXPECT_NEAR(*k.occupancy_pct, (50.0 * 10 + 25.0 * 30) / 40, 1e-9);
  ASSERT_EQ(w.tables.kernels_by_op.size(), 2u);
  EXPECT_EQ(w.tables.kernels_by_op[0].op, "aten::mul");
  EXPECT_EQ(w.tables.kernels_by_op[1].op, "(no op)");  // launched with no op around it
  ASSERT_EQ(w.tables.kernels_by_iteration.size(), 2u);
  EXPECT_EQ(w.tables.kernels_by_iteration[0].group, "ProfilerStep#1");
  EXPECT_EQ(w.tables.kernels_by_iteration[0].total, 60000);
}

TEST(KernelNames, ShortNames) {
  EXPECT_EQ(short_kernel_name("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned "
                              "int, 4, 64, 64>(float*, int)"),
            "at::native::(anonymous namespace)::CatArrayBatchedCopy");
  EXPECT_EQ(short_kernel_name("void "
                              "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_"
                              "80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)"),
            "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>");
  EXPECT_EQ(short_kernel_name("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(short_kernel_name("_ZN2at6native18elementwise_kernelILi128ELi2EEEvi"),
            "at::native::elementwise_kernel");
}

// Two steps: kernels [10,40] (TC) and [30,50] in step 1 (union 40 µs, TC 30), one kernel in step 2.
TEST(IterationsTable, KernelsAndGpuTimePerStep) {
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 100);
  t.launch("ampere_fp16_s16816gemm", 1, 10, 30, 0, 0, 1, 7);
  t.launch("elementwise", 2, 30, 20, 0, 0, 1, 8);
  t.launch("elementwise", 101, 120, 10, 0);
  t.launch("elementwise", 102, 140, 10, 0);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.tables.iterations.size(), 2u);
  const IterationRow& s1 = w.tables.iterations[0];
  EXPECT_EQ(s1.kernels, 2u);
  EXPECT_EQ(s1.tc_kernels, 1u);
  EXPECT_EQ(s1.gpu, 40000);
  EXPECT_EQ(s1.tc_gpu, 30000);
  EXPECT_EQ(s1.duration, 100000);
  EXPECT_EQ(w.tables.iterations[1].kernels, 2u);
}

}  // namespace
}  // namespace perfgate::testing
