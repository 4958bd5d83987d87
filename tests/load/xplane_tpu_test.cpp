// Issue 75: a TPU's XLA ops in the device's terms, on hand-built spaces whose answers are worked out
// here: the ops named by their instruction (the metadata's display name), XLA's own counts from the
// metadata's and the event's stats, the matrix-unit work by hlo_category, the framework op as the
// op's range; the host call that runs the compiled program as the launch of its ops, and as a wait on
// the device where it returns once they are done, which the critical path follows; an op without
// cost stats costed by the HLO module that ran it; a TPU's SparseCore ops as the TPU's work.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyse/gpu/xla_cost.h"
#include "analyse/worker_analysis.h"
#include "load/xplane/xplane_reader.h"
#include "model/xla_hlo.h"
#include "support/helpers.h"
#include "support/hlo_builder.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

enum : std::int64_t { kFlops = 1, kModelFlops, kBytes, kCategory, kTfOp, kDeviceType };
const std::vector<std::pair<std::int64_t, std::string>> kStats = {
    {kFlops, "flops"},          {kModelFlops, "model_flops"},
    {kBytes, "bytes_accessed"}, {kCategory, "hlo_category"},
    {kTfOp, "tf_op"},           {kDeviceType, "device_type_string"}};

// TPU:0 runs a convolution fusion [1,000, 6,000) ns and a loop fusion [6,000, 9,000) ns for the
// first program run, and the loop fusion again [21,500, 25,000) ns for the second. The convolution's
// counts are on its metadata (XProf's place for them), the loop fusion's FLOPs on its events.
Plane tpu() {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  t.stats = {str_stat(kDeviceType, "TPU v6 lite")};
  t.event_names = {{1, "%fusion.1 = bf16[128,256]{1,0} fusion(p0, p1), kind=kOutput"},
                   {2, "%fusion.2 = f32[128,256]{1,0} fusion(fusion.1), kind=kLoop"}};
  t.event_display_names = {{1, "fusion.1"}, {2, "fusion.2"}};
  t.event_stats = {
      {1,
       {uint_stat(kFlops, 4'000'000'000), uint_stat(kModelFlops, 3'000'000'000), int_stat(kBytes, 1'000'000),
        str_stat(kCategory, "convolution fusion"), str_stat(kTfOp, "model/dense/MatMul")}},
      {2, {int_stat(kBytes, 2'000'000), str_stat(kCategory, "loop fusion")}}};
  t.lines = {
      line(1, "XLA Ops", 0,
           {event(1, 1'000'000, 5'000'000), event(2, 6'000'000, 3'000'000, {int_stat(kFlops, 1'000'000)}),
            event(2, 21'500'000, 3'500'000, {int_stat(kFlops, 1'000'000)})}),
      line(2, "XLA Modules", 0, {event(1, 1'000'000, 8'000'000)})};
  return t;
}

// The host: the first run [0, 10,000) ns returns after its ops; the second [20,000, 21,000) ns
// returns before its op starts (an asynchronous dispatch).
Plane host() {
  Plane h = plane(0, "/host:CPU");
  h.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"}};
  h.lines = {line(4, "tf_inference", 0, {event(1, 0, 10'000'000), event(1, 20'000'000, 1'000'000)})};
  return h;
}

TEST(XplaneTpu, OpsCarryXlasCountsAndTheirProgramRunLaunchesThem) {
  Profile p = xplane::read_space(space({tpu(), host()}), "tpu.xplane.pb", {});
  EXPECT_EQ(p.info.family, DeviceFamily::Gpu);
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  EXPECT_EQ(p.str(p.gpu_activities[0].name), "fusion.1");  // the display name, not the long form
  EXPECT_EQ(p.str(p.gpu_activities[1].name), "fusion.2");
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "TPU v6 lite");
  // Each run is a runtime call launching the ops that follow it; only the first waited.
  ASSERT_EQ(p.runtime_calls.size(), 2u);
  EXPECT_EQ(p.str(p.runtime_calls[0].name), "TfrtTpuLoadedExecutable::Execute");
  EXPECT_NE(p.runtime_calls[0].correlation, 0);
  EXPECT_EQ(p.gpu_activities[0].correlation, p.runtime_calls[0].correlation);
  EXPECT_EQ(p.gpu_activities[1].correlation, p.runtime_calls[0].correlation);
  EXPECT_EQ(p.gpu_activities[2].correlation, p.runtime_calls[1].correlation);
  ASSERT_EQ(p.gpu_syncs.size(), 1u);
  EXPECT_EQ(p.gpu_syncs[0].correlation, p.runtime_calls[0].correlation);
  EXPECT_EQ(p.gpu_syncs[0].kind, GpuSyncKind::Context);
  EXPECT_EQ(p.gpu_syncs[0].end, 10000);
  // Each op carries its own counts (issue 91): the convolution fusion FLOPs 4e9, bytes 1e6, its
  // model FLOPs (3e9) as matrix-unit work; each run of the loop fusion FLOPs 1e6, bytes 2e6.
  ASSERT_TRUE(p.xla_hlo);
  ASSERT_EQ(p.xla_hlo->ops.size(), 3u);
  const XlaOp& first = p.xla_hlo->ops[0];
  EXPECT_DOUBLE_EQ(first.flops, 4'000'000'000.0);
  EXPECT_DOUBLE_EQ(first.bytes, 1'000'000.0);
  EXPECT_DOUBLE_EQ(first.matrix_flops, 3'000'000'000.0);
  EXPECT_DOUBLE_EQ(first.model_flops, 3'000'000'000.0);  // model FLOPs where stated, else flops
  for (std::size_t k : {1u, 2u}) {
    EXPECT_DOUBLE_EQ(p.xla_hlo->ops[k].flops, 1'000'000.0);
    EXPECT_DOUBLE_EQ(p.xla_hlo->ops[k].model_flops, 1'000'000.0);
    EXPECT_DOUBLE_EQ(p.xla_hlo->ops[k].bytes, 2'000'000.0);
    EXPECT_DOUBLE_EQ(p.xla_hlo->ops[k].matrix_flops, -1.0);
  }
  // The ranges name the framework op where the profile says, else the instruction.
  ASSERT_EQ(p.gpu_ranges.size(), 3u);
  EXPECT_EQ(p.str(p.gpu_ranges[0].name), "model/dense/MatMul");
  EXPECT_EQ(p.str(p.gpu_ranges[1].name), "fusion.2");
}

// Issue 91: an op lasts the device's own measure of it (device_duration_ps) from where the host's
// clock places it, as XProf's op metrics time it: fusion.1 at 1,000 ns, 5,000 ns long, measured
// 4,000 ns, lasts [1,000, 5,000); fusion.2 at 6,000 ns, 0 long, measured 2,500 ns, [6,000, 8,500).
// An all-reduce op is communication, not compute.
TEST(XplaneTpu, AnOpLastsItsDeviceDurationAndAllReduceIsCommunication) {
  enum : std::int64_t { kDeviceDuration = 20 };
  Plane t = tpu();
  t.stat_names.emplace_back(kDeviceDuration, "device_duration_ps");
  t.event_names.emplace_back(3, "%all-reduce.1 = f32[1024]{0} all-reduce(fusion.2), to_apply=add");
  t.event_display_names.emplace_back(3, "all-reduce.1");
  t.event_stats.push_back({3, {str_stat(kCategory, "all-reduce")}});
  t.lines = {
      line(1, "XLA Ops", 0,
           {event(1, 1'000'000, 5'000'000, {int_stat(kDeviceDuration, 4'000'000)}),
            event(2, 6'000'000, 0, {int_stat(kDeviceDuration, 2'500'000)}), event(3, 8'500'000, 1'000'000)}),
      line(2, "XLA Modules", 0, {event(1, 1'000'000, 8'500'000)})};
  Profile p = xplane::read_space(space({t, host()}), "tpu.xplane.pb", {});
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  EXPECT_EQ(p.gpu_activities[0].start, 1000);
  EXPECT_EQ(p.gpu_activities[0].end, 5000);
  EXPECT_EQ(p.gpu_activities[1].start, 6000);
  EXPECT_EQ(p.gpu_activities[1].end, 8500);
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  // Busy 4,000 + 2,500 + 1,000 ns; of it the all-reduce's 1,000 ns are communication (both shares
  // of the same window).
  EXPECT_NEAR(*w.metrics.get(Metric::CommunicationPct) / *w.metrics.get(Metric::GpuBusyPct), 1000.0 / 7500,
              1e-9);
}

TEST(XplaneTpu, TheCriticalPathWaitsOnTheDeviceThroughTheProgramRun) {
  Profile p = xplane::read_space(space({tpu(), host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.critical_path.steps.size(), 1u);
  const CriticalPathStep& step = w.critical_path.steps[0];
  // The first run's 10,000 ns: the launch to the convolution (1,000 ns), the two ops (5,000 + 3,000
  // ns on the device) and the wait's end (1,000 ns of the call after them) — the device bounds it,
  // not the host call's own time.
  TimeNs device = step.by[static_cast<std::size_t>(PathBound::GpuCompute)];
  EXPECT_GE(device, 8000);
  EXPECT_LT(step.by[static_cast<std::size_t>(PathBound::Cpu)], device);
  // MFU counts every op's model FLOPs, as XProf's FLOPS utilization does (issue 91): the convolution
  // fusion's model FLOPs (3e9, not its 4e9 flops) and the loop fusion's flops (1e6) in each run;
  // each op's count is kept as a float (flops.cpp), and 3e9 and 1e6 are exact in one:
  // 3e9 + 1e6 + 1e6.
  EXPECT_DOUBLE_EQ(w.compute.flops, 3'002'000'000.0);
  // No Tensor Cores on a TPU: their metrics are n/a, not 0%; the kernels are "other kernels".
  EXPECT_FALSE(w.metrics.get(Metric::TensorCoreKernelTimePct));
  EXPECT_FALSE(w.metrics.get(Metric::ResourcesTcKernelsPct));
  EXPECT_TRUE(w.metrics.get(Metric::GpuUtilizationPct));
}

TEST(XplaneTpu, MfuTakesTheChipsBf16PeakAndTheMatrixUnitsHaveTheirShare) {
  Profile p = xplane::read_space(space({tpu(), host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  // No steps: the window is the capture, [0, 25,000) ns (the last op ends at 25,000 ns). The ops
  // record no input types; the TPU v6e entry names bf16 for them (918 TFLOP/s): 3.002e9 model FLOPs
  // take 3.002e9 / 918e12 s = 3.270 us of the 25 us on the one TPU, 13.08%.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 25.0);
  ASSERT_TRUE(w.metrics.get(Metric::ComputeMfuPct));
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMfuPct), 100.0 * (3.002e9 / 918e12) / 25e-6, 1e-9);
  // The matrix units ran the convolution fusion, 5,000 ns of the 11,500 ns of categorised op time
  // (the loop fusion's 3,000 and 3,500 ns are vector work).
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::MatrixUnitOpTimePct), 100.0 * 5000 / 11500);
  // The note says which FLOPs took the assumed peak.
  bool noted = false;
  for (const Note& n : w.warnings)
    if (n.id == NoteId::precision_untyped_ops) {
      noted = true;
      std::string text = note_text(n);
      EXPECT_NE(text.find("3e+09 FLOPs (100.0% of those counted)"), std::string::npos) << text;
      EXPECT_NE(text.find("Google TPU v6e (Trillium)'s bf16 peak"), std::string::npos) << text;
    }
  EXPECT_TRUE(noted);
}

TEST(XplaneTpu, WithoutCategoriesTheMatrixUnitShareIsNa) {
  Plane t = tpu();
  t.event_stats = {{1, {uint_stat(kModelFlops, 3'000'000'000)}}, {2, {}}};
  Profile p = xplane::read_space(space({t, host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_FALSE(w.metrics.get(Metric::MatrixUnitOpTimePct));
}

TEST(XplaneTpu, OpsWithoutAProgramRunAreLaunchedByNone) {
  Plane t = tpu();
  t.stats.clear();  // no device_type_string: named "TPU"
  Profile p = xplane::read_space(space({t}), "tpu.xplane.pb", {});
  EXPECT_TRUE(p.runtime_calls.empty());
  EXPECT_TRUE(p.gpu_syncs.empty());
  for (const GpuActivity& g : p.gpu_activities) EXPECT_EQ(g.correlation, 0);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "TPU");
  // The ops stay named and ranged; their counts have no op to carry them.
  EXPECT_EQ(p.gpu_ranges.size(), 3u);
  EXPECT_FALSE(p.xla_hlo);
}

// Module jit_step (program 7), computation main, worked out by hand:
// - dot.1: f32[64,128] . f32[128,256] contracting lhs dimension 1: 2 x 64 x 256 x 128 = 4,194,304
//   FLOPs, matrix work; (8,192 + 32,768 + 16,384) x 4 = 229,376 bytes;
// - fusion.2: multiply then add of a bf16[8,16,16,64] parameter: 2 x 131,072 = 262,144 FLOPs;
//   262,144 bytes read + 262,144 written = 524,288.
std::string tpu_module() {
  using namespace hlo;
  std::vector<std::string> main = {
      instruction("p2", "parameter", shape(kF32, {64, 128}), 4, {}),
      instruction("p3", "parameter", shape(kF32, {128, 256}), 5, {}),
      instruction("dot.1", "dot", shape(kF32, {64, 256}), 6, {4, 5}, dot_dims({1}, {0})),
      instruction("p4", "parameter", shape(kBf16, {8, 16, 16, 64}), 7, {}),
      instruction("fusion.2", "fusion", shape(kBf16, {8, 16, 16, 64}), 8, {7}, int_field(38, 2)),
  };
  std::vector<std::string> fused = {
      instruction("param_0", "parameter", shape(kBf16, {8, 16, 16, 64}), 1, {}),
      instruction("multiply", "multiply", shape(kBf16, {8, 16, 16, 64}), 2, {1, 1}),
      instruction("add", "add", shape(kBf16, {8, 16, 16, 64}), 3, {2, 1}),
  };
  return proto("jit_step", {computation("fused_computation", 2, fused), computation("main", 1, main)});
}

enum : std::int64_t { kProgramId = kDeviceType + 1, kHloProto };

// TPU:0 in one program run [0, 10,000) ns, its ops without cost stats but for one:
// - dot.1 [1,000, 3,000): its metadata names program 7 (XProf's op key), no category;
// - fusion.2 [3,000, 5,000): no program id, inside the "XLA Modules" run "jit_step(7)", a loop fusion;
// - dot.1 again [5,000, 6,000), its event carrying flops 1,000 and bytes_accessed 2,000: they win;
// - copy.9 [6,000, 7,000): in program 7, but the module holds no copy.9.
std::vector<Plane> tpu_hlo_planes() {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  t.stat_names.emplace_back(kProgramId, "program_id");
  t.stats = {str_stat(kDeviceType, "TPU v6 lite")};
  t.event_names = {{1, "%dot.1 = f32[64,256]{1,0} dot(p2, p3)"},
                   {2, "%fusion.2 = bf16[8,16,16,64]{3,2,1,0} fusion(p4), kind=kLoop"},
                   {3, "%copy.9 = f32[64,256]{0,1} copy(dot.1)"},
                   {4, "jit_step(7)"}};
  t.event_display_names = {{1, "dot.1"}, {2, "fusion.2"}, {3, "copy.9"}};
  t.event_stats = {{1, {int_stat(kProgramId, 7)}},
                   {2, {str_stat(kCategory, "loop fusion")}},
                   {3, {int_stat(kProgramId, 7)}}};
  t.lines = {line(1, "XLA Ops", 0,
                  {event(1, 1'000'000, 2'000'000), event(2, 3'000'000, 2'000'000),
                   event(1, 5'000'000, 1'000'000, {int_stat(kFlops, 1000), int_stat(kBytes, 2000)}),
                   event(3, 6'000'000, 1'000'000)}),
             line(2, "XLA Modules", 0, {event(4, 0, 10'000'000)})};
  Plane h = plane(0, "/host:CPU");
  h.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"}};
  h.lines = {line(4, "tf_inference", 0, {event(1, 0, 10'000'000)})};
  // The metadata plane last: the ops are matched once every plane is read.
  Plane m = plane(0, "/host:metadata");
  m.stat_names = {{kHloProto, "Hlo Proto"}};
  m.event_names = {{7, "jit_step(7)"}};
  m.event_stats = {{7, {int_field(1, kHloProto) + bytes_field(6, tpu_module())}}};  // bytes_value 6
  return {t, h, m};
}

// The host event of the op named `name` whose details are the `k`-th of that name's (kNone: none).
std::size_t op_event(const Profile& p, std::string_view name, int k = 0) {
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < p.host_events.size(); ++i)
    if (p.str(p.host_events[i].name) == name) found.push_back(i);
  std::sort(found.begin(), found.end(), [&](std::size_t a, std::size_t b) {
    return p.host_events[a].details < p.host_events[b].details;
  });
  return k < static_cast<int>(found.size()) ? found[static_cast<std::size_t>(k)] : kNone;
}

TEST(XplaneTpu, OpsWithoutCostStatsTakeThemFromTheModuleThatRanThem) {
  Profile p = xplane::read_space(space(tpu_hlo_planes()), "tpu.xplane.pb", {});
  ASSERT_TRUE(p.xla_hlo);
  // An XLA op each (issue 91): dot.1 costed by the module (matched by its program id), fusion.2 (by
  // the module run around it), dot.1 with its stated counts, copy.9 with neither (the module holds
  // no copy.9).
  ASSERT_EQ(p.xla_hlo->ops.size(), 4u);
  const XlaOp& dot = p.xla_hlo->ops[0];
  ASSERT_EQ(dot.program_ops.count, 1u);
  EXPECT_EQ(p.xla_hlo->program_ops[dot.program_ops.first].matrix, -1);  // dot.1: no category
  const XlaOp& fusion = p.xla_hlo->ops[1];
  ASSERT_EQ(fusion.program_ops.count, 1u);
  EXPECT_EQ(p.xla_hlo->program_ops[fusion.program_ops.first].matrix, 0);  // fusion.2: loop fusion
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[2].flops, 1000.0);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[2].bytes, 2000.0);
  EXPECT_EQ(p.xla_hlo->ops[3].program_ops.count, 0u);
  EXPECT_TRUE(has_line(p.notes,
                       "3 TPU ops carry no flops or bytes_accessed stats: 2 took their FLOPs and "
                       "bytes from the HLO module that ran them, 1 had neither"));
  // Each op's cost: dot.1 4,194,304 FLOPs and 229,376 bytes from the module, fusion.2 262,144 and
  // 524,288, the stated dot.1 1,000 and 2,000; MFU counts all of their FLOPs (no model_flops stated:
  // the flops), as XProf's FLOPS utilization: 1,000 + 4,194,304 + 262,144 = 4,457,448.
  XlaCosts costs(p);
  std::size_t module_dot = op_event(p, "dot.1", 0), stated_dot = op_event(p, "dot.1", 1);
  std::size_t loop = op_event(p, "fusion.2");
  ASSERT_NE(module_dot, kNone);
  ASSERT_NE(stated_dot, kNone);
  ASSERT_NE(loop, kNone);
  std::optional<OpCost> cost = costs.roofline_cost(module_dot);
  ASSERT_TRUE(cost && cost->bytes);
  EXPECT_DOUBLE_EQ(cost->flop, 4'194'304.0);
  EXPECT_DOUBLE_EQ(*cost->bytes, 229'376.0);
  EXPECT_TRUE(cost->matrix);
  cost = costs.roofline_cost(loop);
  ASSERT_TRUE(cost && cost->bytes);
  EXPECT_DOUBLE_EQ(cost->flop, 262'144.0);
  EXPECT_DOUBLE_EQ(*cost->bytes, 524'288.0);
  EXPECT_DOUBLE_EQ(costs.mfu_flops(module_dot), 4'194'304.0);
  EXPECT_DOUBLE_EQ(costs.mfu_flops(loop), 262'144.0);
  EXPECT_DOUBLE_EQ(costs.mfu_flops(stated_dot), 1000.0);
  EXPECT_FALSE(costs.costed(op_event(p, "copy.9")));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_DOUBLE_EQ(w.compute.flops, 4'457'448.0);
}

TEST(XplaneTpu, WithoutTheModuleTheOpsHaveNeither) {
  std::vector<Plane> planes = tpu_hlo_planes();
  planes.pop_back();  // no /host:metadata: no module
  Profile p = xplane::read_space(space(planes), "tpu.xplane.pb", {});
  ASSERT_TRUE(p.xla_hlo);
  ASSERT_EQ(p.xla_hlo->ops.size(), 4u);
  for (const XlaOp& op : p.xla_hlo->ops) EXPECT_EQ(op.program_ops.count, 0u);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[2].flops, 1000.0);
  EXPECT_TRUE(has_line(p.notes,
                       "3 TPU ops carry no flops or bytes_accessed stats: 0 took their FLOPs and "
                       "bytes from the HLO module that ran them, 3 had neither"));
}

// TPU:0's TensorCore runs a convolution fusion [1,000, 3,000) and a loop fusion [3,000, 4,000) ns;
// its SparseCore 0 a gather [5,000, 7,000) (with the "Sparse Core Modules" run around it, which is
// derived), its SparseCore 1 a scatter [2,000, 3,000). TPU:1 has SparseCore ops alone [0, 500) ns.
std::vector<Plane> sparse_core_planes() {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  t.stats = {str_stat(kDeviceType, "TPU v5p")};
  t.event_names = {{1, "convolution fusion op"}, {2, "loop fusion op"}};
  t.event_display_names = {{1, "fusion.1"}, {2, "fusion.2"}};
  t.event_stats = {{1, {str_stat(kCategory, "convolution fusion")}},
                   {2, {str_stat(kCategory, "loop fusion")}}};
  t.lines = {line(1, "XLA Ops", 0, {event(1, 1'000'000, 2'000'000), event(2, 3'000'000, 1'000'000)})};
  auto sparse = [](std::int64_t id, std::string name, std::int64_t start_ps, std::int64_t length_ps) {
    Plane s = plane(id, std::move(name));
    s.stat_names = kStats;
    s.event_names = {{1, "sc_gather"}, {2, "jit_embed(3)"}};
    s.event_stats = {{1, {str_stat(kCategory, "convolution fusion")}}};  // ignored: no TensorCore op
    s.lines = {line(7, "Sparse Core Ops", 0, {event(1, start_ps, length_ps)}),
               line(8, "Sparse Core Modules", 0, {event(2, start_ps, length_ps)})};
    return s;
  };
  return {t, sparse(4, "/device:TPU:0 SparseCore 0", 5'000'000, 2'000'000),
          sparse(5, "/device:TPU:0 SparseCore 1", 2'000'000, 1'000'000),
          sparse(6, "/device:TPU:1 SparseCore 0", 0, 500'000)};
}

TEST(XplaneTpu, SparseCoreOpsAreTheirTpusWork) {
  Profile p = xplane::read_space(space(sparse_core_planes()), "tpu.xplane.pb", {});
  ASSERT_EQ(p.gpu_activities.size(), 5u);
  std::size_t on_tpu0_sparse = 0;
  for (const GpuActivity& g : p.gpu_activities)
    if (p.str(g.name) == "sc_gather") {
      EXPECT_GE(g.stream, 1u << 30);  // a stream of its own, apart from the TensorCore's line 1
      EXPECT_EQ(g.units, ComputeUnits::Unstated);
      on_tpu0_sparse += g.device == 0;
    }
  EXPECT_EQ(on_tpu0_sparse, 2u);
  // TPU:0 described by its TensorCore plane; TPU:1, which has SparseCore ops alone, by its SparseCore's.
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[0].name, "TPU v5p");
  EXPECT_EQ(p.devices[1].id, 1);
  EXPECT_TRUE(
      has_line(p.notes, "3 SparseCore ops on 3 SparseCore planes were read as their TPU's device work"));
  EXPECT_TRUE(has_line(p.notes, "3 device lines that are not streams ('Sparse Core Modules'"));
}

TEST(XplaneTpu, SparseCoreOpsCountInBusyTimeButNotInTheMatrixUnitShare) {
  std::vector<Plane> planes = sparse_core_planes();
  planes.pop_back();  // TPU:0 alone
  Profile p = xplane::read_space(space(planes), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  // Busy: [1,000, 4,000) on the TensorCore and SparseCore 1, [5,000, 7,000) on SparseCore 0: 5,000
  // of the 6,000 ns from the first op to the last.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 6.0);
  EXPECT_NEAR(*w.metrics.get(Metric::GpuUtilizationPct), 100.0 * 5000 / 6000, 1e-9);
  // The matrix units: the convolution fusion's 2,000 of the TensorCore's 3,000 categorised ns.
  EXPECT_NEAR(*w.metrics.get(Metric::MatrixUnitOpTimePct), 100.0 * 2000 / 3000, 1e-9);
}

// Issue 92, item 1: a TPU plane of 5,000 "XLA Ops" lines, one op each at the same instant, ran for
// ever once the report's step timeline merged them (4,200 lines took 0.08 s: a cliff). It finishes,
// each op a lane's box, the timeline capped at kMaxTimelineBoxes boxes.
TEST(XplaneTpu, FiveThousandOpLinesAtOneInstantFinish) {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  t.stats = {str_stat(kDeviceType, "TPU v6 lite")};
  t.event_names = {{1, "%fusion.1 = f32[8]{0} fusion(p0), kind=kLoop"}};
  t.event_display_names = {{1, "fusion.1"}};
  for (int k = 0; k < 5000; ++k)
    t.lines.push_back(line(10 + k, "XLA Ops", 0, {event(1, 1'000'000, 2'000'000)}));
  Plane h = plane(0, "/host:CPU");
  h.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"}};
  h.lines = {line(4, "tf_inference", 0, {event(1, 0, 10'000'000)})};
  ReportModel report = report_of_bytes(
      {{"tpu.xplane.pb", std::make_shared<const std::string>(space({t, h}))}}, default_book());
  ASSERT_EQ(report.workers.size(), 1u);
  EXPECT_EQ(report.metric(Metric::KernelsCount), 5000);
  EXPECT_EQ(report.workers[0].timeline.activities, 5000u);
}

}  // namespace
}  // namespace perfgate::testing
