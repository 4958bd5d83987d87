// Issue 59 on a held-out JAX model recorded for this project on an H100 (tests/data, see its README):
// a Transformer block trained for 6 steps, each under jax.profiler.TraceAnnotation("train_step"), with
// XLA's command buffers on (JAX 0.11's default) and, as the reference, the same run without them.
// Expected values: tests/real/xplane_command_buffer_expected.py and xplane_expected.py, independent
// walks of the protobuf in Python (no perfgate code).
#include <gtest/gtest.h>

#include "analyse/analysis.h"
#include "analyse/worker_analysis.h"
#include "load/load.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string data(const std::string& name) {
  return std::string(PERFGATE_SOURCE_DIR) + "/tests/data/" + name;
}

const RooflineRow* row(const WorkerAnalysis& w, std::string_view name) {
  for (const RooflineRow& r : w.tables.roofline)
    if (r.name == name) return &r;
  return nullptr;
}

// Read gzipped as committed. The independent walk: 324 kernels of 2,419,529 ns in all on GPU:0 (its
// busy time: XplaneReal.H100JaxBlockMatchesAnIndependentWalk).
TEST(XplaneCommandBufferReal, KernelsGoBackToTheInstructionsTheRunWithoutCommandBuffersNames) {
  Profile p = std::move(load_run({data("h100_jax_block.xplane.pb.gz")}).workers.at(0));
  std::size_t kernels = 0;
  TimeNs kernel_ns = 0;
  for (const GpuActivity& a : p.gpu_activities)
    if (a.kind == GpuActivityKind::Kernel) {
      ++kernels;
      kernel_ns += a.end - a.start;
    }
  EXPECT_EQ(kernels, 324u);
  EXPECT_EQ(kernel_ns, 2'419'529);
  // xplane_command_buffer_expected.py: 6 launches, 330 activities; 288 by name, 24 by place (every one
  // to the instruction the capture without command buffers names after the same kernel), 18 stay
  // (7.6% of the time).
  EXPECT_TRUE(
      has_line(p.notes,
               "6 launches of XLA command buffers (CUDA/HIP graphs) ran 330 kernels and memsets, named by "
               "the command buffer: 288 were given back to their HLO instruction by kernel name and 24 by "
               "their place between those; 18 (7.6% of their time) stay with the command buffer"))
      << ::testing::PrintToString(note_texts(p.notes));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  // Per instruction (the script's): the cuBLAS GEMMs given back by place, and the kernels that stay.
  const RooflineRow* cc3 = row(w, "custom-call.3");
  ASSERT_NE(cc3, nullptr);
  EXPECT_EQ(cc3->calls, 6u);
  EXPECT_EQ(cc3->kernel_ns, 116'290);
  EXPECT_EQ(cc3->family, "xla");
  EXPECT_GT(cc3->flop, 0u);
  const RooflineRow* cc1 = row(w, "custom-call.1");
  ASSERT_NE(cc1, nullptr);
  EXPECT_EQ(cc1->kernel_ns, 86'978);
  const RooflineRow* rest = row(w, "command_buffer_1");
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(rest->kernel_ns, 184'675);  // its 12 kernels (180,163 ns) and 6 memsets
  // FLOPs are counted again (MFU was n/a with every kernel under the command buffer).
  ASSERT_TRUE(w.metrics.get(Metric::ComputeFlops));
  EXPECT_GT(*w.metrics.get(Metric::ComputeFlops), 0.0);
}

// The six TraceAnnotation("train_step") ranges are the steps, numbered in time order.
TEST(XplaneCommandBufferReal, AStepNamedWithoutANumberIsAStep) {
  Profile p = std::move(load_run({data("h100_jax_block.xplane.pb.gz")}).workers.at(0));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.steps.steps.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(w.steps.steps[i].name, "train_step");
    EXPECT_EQ(w.steps.steps[i].number.value_or(-1), static_cast<std::int64_t>(i));
  }
  EXPECT_EQ(w.steps.source, StepSource::ProfilerStep);
}

// Without command buffers every kernel names its instruction: nothing to give back, and no note.
TEST(XplaneCommandBufferReal, WithoutCommandBuffersNothingIsGivenBack) {
  Profile p = std::move(load_run({data("h100_jax_block_nocmdbuf.xplane.pb.gz")}).workers.at(0));

  for (const std::string& note : note_texts(p.notes))
    EXPECT_EQ(note.find("command buffers"), std::string::npos) << note;
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_EQ(w.steps.steps.size(), 6u);
  EXPECT_EQ(row(w, "command_buffer_1"), nullptr);
}

}  // namespace
}  // namespace perfgate::testing
