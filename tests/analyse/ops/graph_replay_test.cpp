// Graph replays on hand-built traces: kernels a graph launch ran belong to it (by correlation, or by
// stream and time where no correlation links them) and through it to the annotation and module
// that issued it; the worked-out rows and shares are in the comments.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "common/errors.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

double metric(const WorkerAnalysis& w, Metric id) {
  return w.metrics.get(id).value_or(-1);
}

// Thread 1: Python frame "nn.Module: Model_0" [0,1000] > annotation "decode" [10,900], which issues
// hipGraphLaunch [100,150] (correlation 500) and holds aten::mm [600,620] launching gemm (40 us at
// 700). The replay runs k1 [200,210], k2 [215,235], k3 [240,270] on stream 7: 60 us of graph work.
// aten::empty at 0 and 990 set the window (the ops' span, no steps) to [0, 995].
// `linked`: the kernels carry the launch's correlation; else none (correlation 0).
std::string replay_trace(bool linked) {
  TraceBuilder t;
  t.python_function("nn.Module: Model_0", 0, 1000);
  t.op("aten::empty", 0, 5, 3).op("aten::empty", 990, 5, 4);
  t.annotation("decode", 10, 890, 1);
  t.runtime("hipGraphLaunch", 100, 50, 500);
  std::int64_t corr = linked ? 500 : 0;
  t.kernel("k1", 200, 10, corr).kernel("k2", 215, 20, corr).kernel("k3", 240, 30, corr);
  t.op("aten::mm", 600, 20, 2);
  t.launch("gemm", 605, 700, 40, 2);
  return t.json();
}

TEST(GraphReplay, LinkedKernelsBelongToTheLaunchAndItsModuleNotToNoOp) {
  WorkerAnalysis w = analyse_json(replay_trace(true));
  const OpRow* graph = find_op(w.tables.ops, "hipGraphLaunch");
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->op_type, "graph replay");
  EXPECT_EQ(graph->calls, 1u);
  EXPECT_EQ(graph->kernel_calls, 3u);
  EXPECT_EQ(graph->device_total, 60'000);  // 10 + 20 + 30 us
  EXPECT_EQ(graph->host_total, 50'000);    // the launch call
  EXPECT_EQ(graph->module, "Model_0");
  EXPECT_EQ(find_op(w.tables.ops, "(no op)"), nullptr);
  // 60 us of 60 + 40 us of kernel time ran in the replay.
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsGraphReplayPct), 60.0);
  EXPECT_EQ(metric(w, Metric::HostGraphLaunches), 1);
  EXPECT_EQ(metric(w, Metric::KernelsWithoutLaunch), 0);
  // The launch is a call of the "graph replay" type, host [100,150]. DLProf's definitions (issue 53):
  // it is its own CUDA API call, so no CPU overhead; its kernels span [200,270], 70 us, busy 10 + 20
  // + 30 = 60 us: 10 us of GPU idle.
  const OpTypeRow* type = nullptr;
  for (const OpTypeRow& r : w.tables.op_types)
    if (r.type == "graph replay") type = &r;
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(type->calls, 1u);
  EXPECT_EQ(type->ops, 1u);
  EXPECT_EQ(type->gpu, 60'000);
  EXPECT_EQ(type->cpu_total, 50'000);
  EXPECT_EQ(type->cpu_overhead, 0);
  EXPECT_EQ(type->gpu_idle, 10'000);
}

TEST(GraphReplay, UnlinkedKernelsBelongToTheLaunchWhoseSpanHoldsThem) {
  WorkerAnalysis w = analyse_json(replay_trace(false));
  const OpRow* graph = find_op(w.tables.ops, "hipGraphLaunch");
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->kernel_calls, 3u);
  EXPECT_EQ(graph->device_total, 60'000);
  EXPECT_EQ(find_op(w.tables.ops, "(no op)"), nullptr);
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsGraphReplayPct), 60.0);
  EXPECT_EQ(metric(w, Metric::KernelsWithoutLaunch), 0);
}

// An unlinked kernel outside every launch's span stays unexplained: "late" [800,805] runs on
// stream 7 after gemm, which aten::mm launched at 605, after the graph launch at 100: the stream had
// left the graph. Graph 60 us of 60 + 40 + 5.
TEST(GraphReplay, KernelsOutsideTheLaunchSpanStayWithoutLaunch) {
  TraceBuilder t;
  t.python_function("nn.Module: Model_0", 0, 1000);
  t.op("aten::empty", 0, 5, 3).op("aten::empty", 990, 5, 4);
  t.annotation("decode", 10, 890, 1);
  t.runtime("hipGraphLaunch", 100, 50, 500);
  t.kernel("k1", 200, 10, 0).kernel("k2", 215, 20, 0).kernel("k3", 240, 30, 0);
  t.op("aten::mm", 600, 20, 2);
  t.launch("gemm", 605, 700, 40, 2);
  t.kernel("late", 800, 5, 0);
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* graph = find_op(w.tables.ops, "hipGraphLaunch");
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->device_total, 60'000);
  const OpRow* none = find_op(w.tables.ops, "(no op)");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->kernel_calls, 1u);
  EXPECT_EQ(none->device_total, 5'000);
  EXPECT_EQ(metric(w, Metric::KernelsWithoutLaunch), 1);
  EXPECT_NEAR(metric(w, Metric::KernelsGraphReplayPct), 100.0 * 60 / 105, 1e-9);
}

// ---- With a graph-capture trace ----

// A launch recorded while the graph was captured, naming its kernel (ROCm's args.kernel).
void captured_launch(TraceBuilder& t, double ts, std::int64_t correlation, std::int64_t ext_id,
                     const std::string& kernel) {
  t.raw_event(fmt::format(
      R"({{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 100, "tid": 1, "ts": {}, "dur": 5, )"
      R"("args": {{"correlation": {}, "External id": {}, "kernel": "{}"}}}})",
      ts, correlation, ext_id, kernel));
}

constexpr const char* kMmShapes1 = R"("Input Dims": [[32, 64], [64, 128]], "Input type": ["float", "float"])";
constexpr const char* kMmShapes2 =
    R"("Input Dims": [[32, 128], [128, 64]], "Input type": ["float", "float"])";

// One graph captured in [10, 300] (Begin ends at 10, End starts at 300), under the module frame
// "nn.Module: Attn_0" [20,200]: aten::mm (32x64 by 64x128) launching gemm_a, aten::add launching
// add_k, aten::mm (32x128 by 128x64) launching gemm_b, aten::relu launching relu_k.
std::string capture_trace() {
  TraceBuilder t;
  t.runtime("hipStreamBeginCapture", 0, 10, 1);
  t.python_function("nn.Module: Attn_0", 20, 180);
  t.op("aten::mm", 30, 30, 11, 1, kMmShapes1);
  captured_launch(t, 35, 101, 11, "gemm_a");
  t.op("aten::add", 70, 20, 12);
  captured_launch(t, 75, 102, 12, "add_k");
  t.op("aten::mm", 100, 30, 13, 1, kMmShapes2);
  captured_launch(t, 105, 103, 13, "gemm_b");
  t.op("aten::relu", 140, 20, 14);
  captured_launch(t, 145, 104, 14, "relu_k");
  t.runtime("hipStreamEndCapture", 300, 10, 2);
  return t.json();
}

// The replay of replay_trace's frame, annotation and window, with hipGraphLaunch [100,150]
// (correlation 500) running gemm_a [200,210], gemm_b [215,235], add_k [240,245] (the graph ran
// add_k and gemm_b in the other order), and mystery [250,255], which the capture does not record
// (the profiler dropped its launch); relu_k, captured, is not replayed.
std::string reordered_replay() {
  TraceBuilder t;
  t.python_function("nn.Module: Model_0", 0, 1000);
  t.op("aten::empty", 0, 5, 3).op("aten::empty", 990, 5, 4);
  t.annotation("decode", 10, 890, 1);
  t.runtime("hipGraphLaunch", 100, 50, 500);
  t.kernel("gemm_a", 200, 10, 500).kernel("gemm_b", 215, 20, 500).kernel("add_k", 240, 5, 500);
  t.kernel("mystery", 250, 5, 500);
  return t.json();
}

WorkerAnalysis analyse_merged(const std::string& replay, const std::string& capture) {
  Profile p = load_json(replay);
  std::vector<Profile> captures;
  captures.push_back(load_json(capture, "capture.json"));
  merge_graph_captures(p, captures, default_classification());
  return analyse_profile(p, default_classification(), {});
}

TEST(GraphCapture, ReorderedAndDroppedLaunchesArePlacedOrCounted) {
  WorkerAnalysis w = analyse_merged(reordered_replay(), capture_trace());
  // gemm_a -> the first mm, gemm_b -> the second (found ahead), add_k -> aten::add (skipped
  // behind), mystery unplaced: 3 of 4 activities, 35 of 40 us.
  const OpRow* mm = find_op(w.tables.ops, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->calls, 2u);
  EXPECT_EQ(mm->kernel_calls, 2u);
  EXPECT_EQ(mm->device_total, 30'000);  // 10 + 20 us
  EXPECT_EQ(mm->module, "Model_0.Attn_0");
  // 2*32*64*128 + 2*32*128*64 = 524,288 + 524,288 FLOPs.
  EXPECT_DOUBLE_EQ(mm->flops, 1'048'576);
  const OpRow* add = find_op(w.tables.ops, "aten::add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->device_total, 5'000);
  EXPECT_EQ(find_op(w.tables.ops, "aten::relu"), nullptr);  // captured, not replayed
  const OpRow* graph = find_op(w.tables.ops, "hipGraphLaunch");
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->kernel_calls, 1u);  // mystery, kept on its launch
  EXPECT_EQ(graph->device_total, 5'000);
  EXPECT_EQ(find_op(w.tables.ops, "(no op)"), nullptr);
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsGraphCaptureCoveragePct), 87.5);  // 35 / 40
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsGraphReplayPct), 100.0);
  // The shapes reach the by-shape table.
  std::size_t mm_shapes = 0;
  for (const OpRow& r : w.tables.ops_by_shape) mm_shapes += r.name == "aten::mm";
  EXPECT_EQ(mm_shapes, 2u);
}

TEST(GraphCapture, WithoutACaptureCoverageIsNotApplicable) {
  WorkerAnalysis w = analyse_json(reordered_replay());
  EXPECT_FALSE(w.metrics.get(Metric::KernelsGraphCaptureCoveragePct).has_value());
}

// Two graphs captured one after the other: A (aten::add -> add_k, aten::relu -> relu_k) in
// [10,100] and B (aten::mm -> gemm_a) in [120,200]. The replay launches A, B, A: corr 501 runs
// add_k relu_k, 502 gemm_a, 503 add_k relu_k (each kernel 10 us).
TEST(GraphCapture, TwoGraphsReplayedAlternatelyEachFindTheirCapture) {
  TraceBuilder c;
  c.runtime("hipStreamBeginCapture", 0, 10, 1);
  c.op("aten::add", 20, 20, 11);
  captured_launch(c, 25, 101, 11, "add_k");
  c.op("aten::relu", 50, 20, 12);
  captured_launch(c, 55, 102, 12, "relu_k");
  c.runtime("hipStreamEndCapture", 100, 5, 2);
  c.runtime("hipStreamBeginCapture", 110, 10, 3);
  c.op("aten::mm", 130, 30, 13, 1, kMmShapes1);
  captured_launch(c, 135, 103, 13, "gemm_a");
  c.runtime("hipStreamEndCapture", 200, 5, 4);
  TraceBuilder r;
  r.op("aten::empty", 0, 5, 3).op("aten::empty", 990, 5, 4);
  r.annotation("decode", 10, 890, 1);
  r.runtime("hipGraphLaunch", 100, 20, 501).runtime("hipGraphLaunch", 130, 20, 502);
  r.runtime("hipGraphLaunch", 160, 20, 503);
  r.kernel("add_k", 200, 10, 501).kernel("relu_k", 210, 10, 501).kernel("gemm_a", 220, 10, 502);
  r.kernel("add_k", 230, 10, 503).kernel("relu_k", 240, 10, 503);
  WorkerAnalysis w = analyse_merged(r.json(), c.json());
  const OpRow* add = find_op(w.tables.ops, "aten::add");
  const OpRow* mm = find_op(w.tables.ops, "aten::mm");
  ASSERT_NE(add, nullptr);
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(add->calls, 2u);
  EXPECT_EQ(add->device_total, 20'000);
  EXPECT_EQ(mm->calls, 1u);
  EXPECT_EQ(mm->device_total, 10'000);
  EXPECT_EQ(find_op(w.tables.ops, "hipGraphLaunch"), nullptr);  // every kernel placed
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsGraphCaptureCoveragePct), 100.0);
}

// Issue 55, item 4: each captured graph's window scanned every runtime call of the capture trace,
// O(graphs x calls): 20,000 windows took 6.8 s, 40,000 51 s. 30,000 graphs, each one aten::add
// launching add_k; the replay launches the graph 10 times (one add_k each): every launch aligned.
TEST(GraphCapture, ManyWindowsAreMatchedInLinearTime) {
  constexpr int kGraphs = 30'000;
  TraceBuilder c;
  for (int g = 0; g < kGraphs; ++g) {
    double at = 100.0 * g;
    c.runtime("hipStreamBeginCapture", at, 10, 4 * g + 1);
    c.op("aten::add", at + 20, 20, g + 1);
    captured_launch(c, at + 25, 4 * g + 2, g + 1, "add_k");
    c.runtime("hipStreamEndCapture", at + 60, 5, 4 * g + 3);
  }
  TraceBuilder r;
  r.annotation("decode", 0, 2000, 1);
  for (int l = 0; l < 10; ++l) {
    r.runtime("hipGraphLaunch", 100.0 + 100 * l, 20, 500 + l);
    r.kernel("add_k", 150.0 + 100 * l, 10, 500 + l);
  }
  std::string replay = r.json(), capture = c.json();
  Profile p = load_json(replay);
  std::vector<Profile> captures;
  captures.push_back(load_json(capture, "capture.json"));
  GraphCaptureCoverage coverage = merge_graph_captures(p, captures, default_classification());
  EXPECT_EQ(coverage.captured_graphs, static_cast<std::size_t>(kGraphs));
  EXPECT_EQ(coverage.launches, 10u);
  EXPECT_EQ(coverage.launches_aligned, 10u);
  EXPECT_EQ(coverage.placed, 10u);
  // The cost stays linear in the speed budget (ci/cost-budget.sh: graph-captures-4000), not in a timer.
}

// ---- Serving iterations as steps (rules: serving_step_ranges) ----

// SGLang's forward batches step[DECODE bs=32] [0,100] and [200,300], each launching one 10 us
// kernel: two steps, where the trace has no ProfilerStep#N.
std::string serving_trace(bool with_profiler_step) {
  TraceBuilder t;
  if (with_profiler_step) t.step(7, 0, 400);
  t.annotation("step[DECODE bs=32]", 0, 100, 1).annotation("step[DECODE bs=32]", 200, 100, 2);
  t.op("aten::mm", 10, 20, 3).op("aten::mm", 210, 20, 4);
  t.launch("gemm", 15, 40, 10, 3);
  t.launch("gemm", 215, 240, 10, 4);
  return t.json();
}

TEST(ServingSteps, ForwardBatchesAreStepsWithoutProfilerSteps) {
  WorkerAnalysis w = analyse_json(serving_trace(false));
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_EQ(w.steps.source, StepSource::StepPattern);
  EXPECT_EQ(w.steps.steps[0].name, "step[DECODE bs=32]");
  EXPECT_EQ(metric(w, Metric::WindowStepsTotal), 2);
}

TEST(ServingSteps, ProfilerStepsWinOverServingRanges) {
  WorkerAnalysis w = analyse_json(serving_trace(true));
  ASSERT_EQ(w.steps.steps.size(), 1u);
  EXPECT_EQ(w.steps.source, StepSource::ProfilerStep);
}

// ---- Compiled code ----

// A torch.compile step: "Torch-Compiled Region: 0/0" [10,200] holds Inductor's range
// triton_red_fused_add_mean_mul_pow_rsqrt_0 [50,100] (an RMSNorm), which launches its kernel through
// cuLaunchKernel [60,70] (12 us at 120). The op is of the "compiled (Triton)" class, and the region
// holds its GPU time.
TEST(CompiledCode, InductorTritonOpsAreTheirOwnClassUnderTheCompiledRegion) {
  TraceBuilder t;
  t.step(1, 0, 300);
  t.op("Torch-Compiled Region: 0/0", 10, 190, 2);
  t.op("triton_red_fused_add_mean_mul_pow_rsqrt_0", 50, 50, 3);
  t.runtime("cuLaunchKernel", 60, 10, 35, 3);
  t.kernel("triton_red_fused_add_mean_mul_pow_rsqrt_0", 120, 12, 35);
  WorkerAnalysis w = analyse_json(t.json());
  const OpRow* triton = find_op(w.tables.ops, "triton_red_fused_add_mean_mul_pow_rsqrt_0");
  ASSERT_NE(triton, nullptr);
  EXPECT_EQ(triton->op_type, "compiled (Triton)");
  EXPECT_EQ(triton->device_self, 12'000);
  const OpRow* region = find_op(w.tables.ops, "Torch-Compiled Region: 0/0");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->device_total, 12'000);
}

// The SGLang/vLLM layout: capture_traces/ with execution_details.json beside the trace is found
// without an option; --graph-capture names a capture file instead.
TEST(GraphCapture, CapturesBesideTheTraceOrNamedAreMerged) {
  std::string dir = temp_dir();
  write_text(dir + "/decode.json", reordered_replay());
  std::filesystem::create_directories(dir + "/capture_traces");
  write_text(dir + "/capture_traces/bs_32_rank0.json", capture_trace());
  write_text(dir + "/capture_traces/execution_details.json",
             R"([{"file": "bs_32_rank0.json", "batch_size": 32, "mode": "FULL"}])");
  const std::string note = "3 of 4 replayed GPU activities placed on a captured launch, 1 not placed";
  CommandResult beside = run_perfgate("analyze --verbose --no-color " + dir + "/decode.json");
  EXPECT_NE(beside.out.find(note), std::string::npos) << beside.out;
  std::string alone = temp_dir();
  write_text(alone + "/decode.json", reordered_replay());
  CommandResult named =
      run_perfgate("analyze --verbose --no-color " + alone + "/decode.json --graph-capture " + dir +
                   "/capture_traces/bs_32_rank0.json");
  EXPECT_NE(named.out.find(note), std::string::npos) << named.out;
  CommandResult none = run_perfgate("analyze --verbose --no-color " + alone + "/decode.json");
  EXPECT_EQ(none.out.find("graph capture:"), std::string::npos) << none.out;
}

// Issue 55, item 6: capture folders are bounded, confined and protected like every input. Entries
// naming "../outside/x.json" or an absolute path were merged (3 captured graphs instead of 1); a
// 50 MB execution_details.json was read whole past --max-input-memory; and --json over a capture
// file, a run folder's trace or a rule file wrote over it (exit 0).
TEST(GraphCaptureFolder, BoundedConfinedAndProtected) {
  std::string dir = temp_dir(), captures = dir + "/capture_traces";
  std::filesystem::create_directories(captures);
  std::filesystem::create_directories(dir + "/outside");
  write_text(dir + "/decode.json", reordered_replay());
  std::string capture = write_text(captures + "/bs_32_rank0.json", capture_trace());
  std::string outside = write_text(dir + "/outside/x.json", capture_trace());
  std::string details = captures + "/execution_details.json";
  write_text(details, fmt::format(R"([{{"file": "bs_32_rank0.json"}}, {{"file": "../outside/x.json"}}, )"
                                  R"({{"file": "{}"}}])",
                                  outside));
  CommandResult confined = run_perfgate("analyze --verbose --no-color " + dir + "/decode.json");
  EXPECT_EQ(confined.exit_code, 0) << confined.out;
  EXPECT_NE(confined.out.find("1 of 1 graph launches aligned with 1 captured graphs"), std::string::npos)
      << confined.out;
  EXPECT_NE(confined.out.find(details + ": 2 entries name files outside " + captures + ": left out"),
            std::string::npos)
      << confined.out;

  // Bounded: at most 4 MiB, and at most --max-input-memory.
  std::string padded = R"([{"file": "bs_32_rank0.json"})" + std::string(5 << 20, ' ') + "]";
  write_text(details, padded);
  CommandResult large = run_perfgate("analyze --verbose -q " + dir + "/decode.json");
  EXPECT_EQ(large.exit_code, 3) << large.out;
  EXPECT_NE(
      large.out.find(fmt::format("{}: {} bytes, more than a list of capture files holds (at most 4194304)",
                                 details, padded.size())),
      std::string::npos)
      << large.out;
  // Below 4 MiB the input limit bounds it (a whole run needs more than the list: asked directly).
  padded = R"([{"file": "bs_32_rank0.json"})" + std::string(2 << 20, ' ') + "]";
  write_text(details, padded);
  try {
    graph_capture_files(captures, 1 << 20, 0);
    ADD_FAILURE() << "a 2 MiB list read at a limit of 1 MiB";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find(fmt::format("{}: {} bytes, more than a list of capture files holds (at "
                                               "most 1048576)",
                                               details, padded.size())),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(graph_capture_files(captures, 4 << 20, 0).files, std::vector<std::string>{capture});
  write_text(details, R"([{"file": "bs_32_rank0.json"}])");

  // Protected: no output over a capture (named or found beside the trace), its list, a run
  // folder's trace or a rule file; each refused before anything is written.
  std::string run = dir + "/run";
  std::filesystem::create_directories(run);
  write_text(run + "/rank-0.json", reordered_replay());
  std::string rules = write_text(dir + "/r.yaml", "rules: []\n");
  for (const std::string& args :
       {"analyze --verbose " + dir + "/decode.json --graph-capture " + outside + " --json " + outside,
        "analyze --verbose " + dir + "/decode.json --json " + capture,
        "analyze --verbose " + dir + "/decode.json --md " + details,
        "analyze --verbose " + run + " --json " + run + "/rank-0.json",
        "analyze --verbose " + dir + "/decode.json --rules " + rules + " --json " + rules}) {
    std::string before = read_text(args.substr(args.rfind(' ') + 1));
    CommandResult r = run_perfgate(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("perfgate never writes over its inputs"), std::string::npos)
        << args << ": " << r.out;
    EXPECT_EQ(read_text(args.substr(args.rfind(' ') + 1)), before) << args;
  }
}

}  // namespace
}  // namespace perfgate::testing
