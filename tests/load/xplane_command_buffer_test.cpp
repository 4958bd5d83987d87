// Issue 59: XLA's command buffers. A module's kernels replayed by one graph launch all name the
// thunk ("command_buffer_1"), not their instruction; the reader gives each back to its instruction
// by kernel name or by its unique place in the schedule, and leaves the ambiguous ones with the
// command buffer (docs/formats.md, "Command buffers"). Hand-built XSpace messages, the answers
// worked out in the comments.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyse/analysis.h"
#include "analyse/worker_analysis.h"
#include "load/load.h"
#include "support/helpers.h"
#include "support/hlo_builder.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

enum : std::int64_t { kHloProto = 1, kDeviceName, kCorrelation, kHloOp, kHloModule, kProgramId, kMemset };
const std::vector<std::pair<std::int64_t, std::string>> kStatNames = {
    {kHloProto, "Hlo Proto"},   {kDeviceName, "gpu_device_name"}, {kCorrelation, "correlation_id"},
    {kHloOp, "hlo_op"},         {kHloModule, "hlo_module"},       {kProgramId, "program_id"},
    {kMemset, "Memset_details"}};

// Module jit_step (program 7), computation main in schedule order: p0, p1, fusion.1 (position 2),
// custom-call.2 (3), fusion.3 (4), custom-call.4 (5), custom-call.5 (6), fusion.6 (7), fusion.7 (8),
// fusion_7 (9); each fusion multiplies an f32[64,64] by itself (4,096 FLOPs).
std::string module() {
  using namespace hlo;
  std::string m = shape(kF32, {64, 64});
  std::string cublas = bytes_field(28, "__cublas$lt$matmul");
  std::vector<std::string> main = {
      instruction("p0", "parameter", m, 1, {}),
      instruction("p1", "parameter", m, 2, {}),
      instruction("fusion.1", "fusion", m, 3, {1}, int_field(38, 2)),
      instruction("custom-call.2", "custom-call", m, 4, {3, 2}, cublas),
      instruction("fusion.3", "fusion", m, 5, {4}, int_field(38, 2)),
      instruction("custom-call.4", "custom-call", m, 6, {5, 2}, cublas),
      instruction("custom-call.5", "custom-call", m, 7, {6, 2}, cublas),
      instruction("fusion.6", "fusion", m, 8, {7}, int_field(38, 2)),
      // Two instructions whose kernels XLA would both name fusion_7: the name tells neither.
      instruction("fusion.7", "fusion", m, 9, {8}, int_field(38, 2)),
      instruction("fusion_7", "fusion", m, 10, {9}, int_field(38, 2)),
  };
  std::vector<std::string> fused = {
      instruction("param_0", "parameter", m, 1, {}),
      instruction("multiply", "multiply", m, 2, {1, 1}),
  };
  return proto("jit_step", {computation("fused_computation", 2, fused), computation("main", 1, main)});
}

Plane metadata_plane() {
  Plane m = plane(0, "/host:metadata");
  m.stat_names = kStatNames;
  m.event_names = {{7, "jit_step(7)"}};
  m.event_stats = {{7, {int_field(1, kHloProto) + bytes_field(6, module())}}};
  return m;
}

// The work of two graph launches (correlation ids 21 and 22), all named command_buffer_1:
// (metadata, correlation, start ns, length ns, memset).
struct Work {
  std::int64_t metadata, correlation, start, length;
  bool memset = false;
};
// Launch 21: fusion_1; a cuBLAS kernel, whose only candidate between fusion.1 (2) and fusion.3 (4)
// is custom-call.2 (3); fusion_3; a memset and two cuBLAS kernels between fusion.3 (4) and fusion.6
// (7), where custom-call.4 and custom-call.5 both lie: ambiguous; fusion_6.
// Launch 22: a cuBLAS kernel first (no named kernel before it: no bound), then the three fusions, then
// a kernel fusion_7, the name of two instructions' kernels: it stays.
const std::vector<Work> kWork = {
    {1, 21, 1000, 100},  {4, 21, 1200, 300},  {2, 21, 1600, 100},  {5, 21, 1800, 10, true},
    {4, 21, 1900, 200},  {4, 21, 2200, 200},  {3, 21, 2500, 100},  {4, 22, 11000, 300},
    {1, 22, 11400, 100}, {2, 22, 11600, 100}, {3, 22, 11800, 100}, {6, 22, 12000, 100},
};

Plane gpu_plane() {
  Plane gpu = plane(0, "/device:GPU:0");
  gpu.stat_names = kStatNames;
  gpu.stats = {str_stat(kDeviceName, "NVIDIA H100 80GB HBM3")};
  gpu.event_names = {{1, "fusion_1"},       {2, "fusion_3"}, {3, "fusion_6"},
                     {4, "nvjet_sm90_tst"}, {5, "Memset"},   {6, "fusion_7"}};
  std::vector<std::string> events;
  for (const Work& w : kWork) {
    std::vector<std::string> stats = {int_stat(kCorrelation, w.correlation),
                                      str_stat(kHloOp, "command_buffer_1"), str_stat(kHloModule, "jit_step"),
                                      int_stat(kProgramId, 7)};
    if (w.memset) stats.push_back(str_stat(kMemset, "num_bytes:1024 async:1"));
    events.push_back(event(w.metadata, w.start * 1000, w.length * 1000, stats));
  }
  gpu.lines = {line(14, "Stream #14(Memset,Compute)", 0, events)};
  return gpu;
}

// One thread: the module's run, XLA's thunk event around each launch, the launches themselves, and
// after each the host callback XLA enqueues at a module's end (cuLaunchHostFunc, nothing on the GPU).
Plane host_plane() {
  Plane host = plane(0, "/host:CPU");
  host.stat_names = kStatNames;
  host.event_names = {{1, "cuGraphLaunch (CudaGraph:5)"},
                      {2, "jit_step:XLA GPU module"},
                      {3, "command_buffer_1"},
                      {4, "cuLaunchHostFunc"}};
  host.lines = {line(5, "py_xla_execute", 0,
                     {event(2, 0, 20'000'000), event(3, 400'000, 400'000),
                      event(1, 500'000, 200'000, {int_stat(kCorrelation, 21)}),
                      event(4, 900'000, 10'000, {int_stat(kCorrelation, 31)}), event(3, 10'400'000, 400'000),
                      event(1, 10'500'000, 200'000, {int_stat(kCorrelation, 22)}),
                      event(4, 10'900'000, 10'000, {int_stat(kCorrelation, 32)})})};
  return host;
}

Profile load_space() {
  std::string path =
      write_text(temp_dir() + "/cmdbuf.xplane.pb", space({metadata_plane(), gpu_plane(), host_plane()}));
  return std::move(load_run({path}).workers.at(0));
}

std::vector<const HostEvent*> ops_named(const Profile& p, std::string_view name) {
  std::vector<const HostEvent*> out;
  for (const HostEvent& e : p.host_events)
    if (p.str(e.name) == name) out.push_back(&e);
  return out;
}

TEST(XplaneCommandBuffer, KernelsGoBackToTheirInstructionsByNameOrUniquePlace) {
  Profile p = load_space();
  // Launch 21 ran four instructions, in the order of their first kernels: fusion.1, custom-call.2,
  // fusion.3, fusion.6, each a quarter of the launch's span [500, 700) ns inset by 1 ns:
  // 501 + k x 198 / 4 → [501, 550), [550, 600), [600, 649), [649, 699).
  std::vector<const HostEvent*> gemm = ops_named(p, "custom-call.2");
  ASSERT_EQ(gemm.size(), 1u);
  EXPECT_EQ(gemm[0]->start, 550);
  EXPECT_EQ(gemm[0]->end, 600);
  EXPECT_EQ(gemm[0]->kind, HostKind::Op);
  EXPECT_EQ(p.str(p.details(*gemm[0]).input_dims), "[[64,64],[64,64]]");
  std::vector<const HostEvent*> f1 = ops_named(p, "fusion.1");
  ASSERT_EQ(f1.size(), 2u);  // one per launch
  EXPECT_EQ(f1[0]->start, 501);
  EXPECT_EQ(f1[0]->end, 550);
  EXPECT_EQ(ops_named(p, "fusion.6").at(0)->end, 699);
  // Launch 22: three instructions, thirds of [10,501, 10,699): 10,501 + k x 198 / 3.
  EXPECT_EQ(f1[1]->start, 10'501);
  EXPECT_EQ(f1[1]->end, 10'567);
  // Ambiguous and unbounded kernels name no instruction: no op for custom-call.4 or .5.
  EXPECT_TRUE(ops_named(p, "custom-call.4").empty());
  EXPECT_TRUE(ops_named(p, "custom-call.5").empty());
  EXPECT_TRUE(ops_named(p, "fusion.7").empty());
  EXPECT_TRUE(ops_named(p, "fusion_7").empty());
  // 2 launches, 12 activities: 6 by name (3 fusions each), 1 by place, 5 stay; their time 1,710 ns,
  // of which 810 stay (the memset 10, the two GEMMs 400, launch 22's first GEMM 300, fusion_7 100):
  // 47.4%. XLA's
  // thunk event around each launch is the command buffer's op.
  EXPECT_TRUE(has_line(
      p.notes,
      "2 launches of XLA command buffers (CUDA/HIP graphs) ran 12 kernels and memsets, named by "
      "the command buffer: 6 were given back to their HLO instruction by kernel name and 1 by their place "
      "between those; 5 (47.4% of their time) stay with the command buffer"))
      << ::testing::PrintToString(note_texts(p.notes));
  EXPECT_TRUE(has_line(p.notes, "2 runs of XLA ops are host ops (2 of them XLA's own host events"))
      << ::testing::PrintToString(note_texts(p.notes));
  for (const std::string& note : note_texts(p.notes))
    EXPECT_EQ(note.find("overlap"), std::string::npos) << note;
}

TEST(XplaneCommandBuffer, TheOpsTablesAndRooflineSeeTheInstructions) {
  Profile p = load_space();
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  auto row = [&](std::string_view name) -> const RooflineRow* {
    for (const RooflineRow& r : w.tables.roofline)
      if (r.name == name) return &r;
    return nullptr;
  };
  const RooflineRow* f1 = row("fusion.1");
  ASSERT_NE(f1, nullptr);
  EXPECT_EQ(f1->calls, 2u);
  EXPECT_EQ(f1->kernel_ns, 200);
  EXPECT_EQ(f1->flop, 2u * 4096u);  // the fused multiply, once per run
  EXPECT_EQ(f1->family, "xla");
  const RooflineRow* gemm = row("custom-call.2");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kernel_ns, 300);
  // What stays with the command buffer is the command buffer's: 10 + 200 + 200 + 300 + 100 = 810 ns.
  const RooflineRow* rest = row("command_buffer_1");
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(rest->kernel_ns, 810);
}

}  // namespace
}  // namespace perfgate::testing
