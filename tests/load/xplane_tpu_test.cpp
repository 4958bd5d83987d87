// Issue 75: a TPU's XLA ops in the device's terms, on hand-built spaces whose answers are worked out
// here: the ops named by their instruction (the metadata's display name), XLA's own counts from the
// metadata's and the event's stats, the matrix-unit work by hlo_category, the framework op as the
// op's range; the host call that runs the compiled program as the launch of its ops, and as a wait on
// the device where it returns once they are done, which the critical path follows.
#include <gtest/gtest.h>

#include <string>

#include "analyse/worker_analysis.h"
#include "load/xplane/xplane_reader.h"
#include "model/xla_hlo.h"
#include "support/helpers.h"
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
  // The run's op carries its ops' counts: FLOPs 4e9 + 1e6, bytes 1e6 + 2e6, and the convolution
  // fusion's model FLOPs (3e9) as matrix-unit work.
  ASSERT_TRUE(p.xla_hlo);
  ASSERT_EQ(p.xla_hlo->ops.size(), 2u);
  const XlaOp& first = p.xla_hlo->ops[0];
  EXPECT_DOUBLE_EQ(first.flops, 4'001'000'000.0);
  EXPECT_DOUBLE_EQ(first.bytes, 3'000'000.0);
  EXPECT_DOUBLE_EQ(first.matrix_flops, 3'000'000'000.0);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[1].flops, 1'000'000.0);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[1].bytes, 2'000'000.0);
  EXPECT_DOUBLE_EQ(p.xla_hlo->ops[1].matrix_flops, -1.0);
  // The ranges name the framework op where the profile says, else the instruction.
  ASSERT_EQ(p.gpu_ranges.size(), 3u);
  EXPECT_EQ(p.str(p.gpu_ranges[0].name), "model/dense/MatMul");
  EXPECT_EQ(p.str(p.gpu_ranges[1].name), "fusion.2");
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
  // The matrix-unit FLOPs are counted for MFU: the convolution fusion's model FLOPs.
  EXPECT_DOUBLE_EQ(w.compute.flops, 3'000'000'000.0);
  // No Tensor Cores on a TPU: their metrics are n/a, not 0%; the kernels are "other kernels".
  EXPECT_FALSE(w.metrics.get(Metric::TensorCoreKernelTimePct));
  EXPECT_FALSE(w.metrics.get(Metric::ResourcesTcKernelsPct));
  EXPECT_TRUE(w.metrics.get(Metric::GpuUtilizationPct));
}

TEST(XplaneTpu, MfuTakesTheChipsBf16PeakAndTheMatrixUnitsHaveTheirShare) {
  Profile p = xplane::read_space(space({tpu(), host()}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  // No steps: the window is the capture, [0, 25,000) ns (the last op ends at 25,000 ns). The ops
  // record no input types; the TPU v6e entry names bf16 for them (918 TFLOP/s): 3e9 matrix-unit
  // FLOPs take 3e9 / 918e12 s = 3.268 us of the 25 us on the one TPU, 13.07%.
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 25.0);
  ASSERT_TRUE(w.metrics.get(Metric::ComputeMfuPct));
  EXPECT_NEAR(*w.metrics.get(Metric::ComputeMfuPct), 100.0 * (3e9 / 918e12) / 25e-6, 1e-9);
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

}  // namespace
}  // namespace perfgate::testing
