// Issue 59, item 1: XLA ops' FLOPs and bytes from the HLO an XSpace carries (/host:metadata's "Hlo
// Proto" stats), on hand-built messages whose answers are worked out here: each run of one HLO
// instruction's launches becomes a host op with the instruction's operands, the reader keeps the
// instruction's facts (issue 73: no cost passed as text), the analysis costs them (once per fused
// computation: issue 78), MFU counts the convolutions and dots, and the roofline table has a row per
// instruction (docs/metrics.md, "XLA ops").
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "analyse/analysis.h"
#include "analyse/gpu/xla_cost.h"
#include "analyse/worker_analysis.h"
#include "load/load.h"
#include "model/xla_hlo.h"
#include "support/helpers.h"
#include "support/hlo_builder.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

enum : std::int64_t {
  kHloProto = 1,
  kDeviceName,
  kCorrelation,
  kHloOp,
  kHloModule,
  kProgramId,
  kFlops,
  kBytes
};
const std::vector<std::pair<std::int64_t, std::string>> kStatNames = {
    {kHloProto, "Hlo Proto"}, {kDeviceName, "gpu_device_name"}, {kCorrelation, "correlation_id"},
    {kHloOp, "hlo_op"},       {kHloModule, "hlo_module"},       {kProgramId, "program_id"},
    {kFlops, "flops"},        {kBytes, "bytes_accessed"}};

// Module jit_step (program 7), computation main:
// - cudnn-conv.1: a cuDNN convolution custom call, input bf16[8,32,32,16] (NHWC: feature dimension 3),
//   filter bf16[3,3,16,64] (HWIO: spatial 0, 1), result (bf16[8,16,16,64], u8[1024] scratch):
//   FLOPs 2 x (8*16*16*64 = 131,072) x 16 x 3 x 3 = 37,748,736; bytes (131,072 + 9,216 + 131,072) x 2
//   = 542,720 (the scratch buffer is not data);
// - dot.1: f32[64,128] . f32[128,256] contracting lhs dimension 1: 2 x 64 x 256 x 128 = 4,194,304
//   FLOPs; (8,192 + 32,768 + 16,384) x 4 = 229,376 bytes;
// - fusion.2: multiply then add of a bf16[8,16,16,64] parameter: 2 x 131,072 = 262,144 FLOPs, not
//   matrix work; 262,144 bytes read + 262,144 written = 524,288;
// - transpose.3 of that parameter: no FLOPs by the HLO, but XLA's own stats on its kernel (flops
//   1000, bytes_accessed 777) are taken instead.
std::string module() {
  using namespace hlo;
  std::string conv_result = tuple({shape(kBf16, {8, 16, 16, 64}), shape(kU8, {1024})});
  std::vector<std::string> main = {
      instruction("p0", "parameter", shape(kBf16, {8, 32, 32, 16}), 1, {}),
      instruction("p1", "parameter", shape(kBf16, {3, 3, 16, 64}), 2, {}),
      instruction("cudnn-conv.1", "custom-call", conv_result, 3, {1, 2},
                  conv_dims(0, 3, {1, 2}, 2, 3, {0, 1}) + bytes_field(28, "__cudnn$convForward")),
      instruction("p2", "parameter", shape(kF32, {64, 128}), 4, {}),
      instruction("p3", "parameter", shape(kF32, {128, 256}), 5, {}),
      instruction("dot.1", "dot", shape(kF32, {64, 256}), 6, {4, 5}, dot_dims({1}, {0})),
      instruction("p4", "parameter", shape(kBf16, {8, 16, 16, 64}), 7, {}),
      instruction("fusion.2", "fusion", shape(kBf16, {8, 16, 16, 64}), 8, {7}, int_field(38, 2)),
      instruction("transpose.3", "transpose", shape(kBf16, {64, 8, 16, 16}), 9, {7}),
      // 2^31 x 2^31 matrices: 2 x 2^62 x 2^31 FLOPs and 3 x 2^64 bytes, past any op's (2^62): unknown.
      instruction("pbig", "parameter", shape(kF32, {1LL << 31, 1LL << 31}), 10, {}),
      instruction("dot.big", "dot", shape(kF32, {1LL << 31, 1LL << 31}), 11, {10, 10}, dot_dims({1}, {0})),
  };
  std::vector<std::string> fused = {
      instruction("param_0", "parameter", shape(kBf16, {8, 16, 16, 64}), 1, {}),
      instruction("multiply", "multiply", shape(kBf16, {8, 16, 16, 64}), 2, {1, 1}),
      instruction("add", "add", shape(kBf16, {8, 16, 16, 64}), 3, {2, 1}),
  };
  return proto("jit_step", {computation("fused_computation", 2, fused), computation("main", 1, main)});
}

Plane metadata_plane(const std::string& hlo_proto) {
  Plane m = plane(0, "/host:metadata");
  m.stat_names = kStatNames;
  m.event_names = {{7, "jit_step(7)"}};
  m.event_stats = {{7, {int_field(1, kHloProto) + bytes_field(6, hlo_proto)}}};  // bytes_value 6
  return m;
}

// Kernels on one stream of an H200: (name, XLA op, correlation, start ns, length ns).
struct Kernel {
  std::int64_t metadata;
  const char* op;
  std::int64_t correlation, start, length;
  std::vector<std::string> extra = {};
};
const std::vector<Kernel> kKernels = {
    {1, "cudnn-conv.1", 11, 1000, 100},  // Im2Col, then the GEMM of the same convolution
    {2, "cudnn-conv.1", 12, 1200, 300},
    {2, "cudnn-conv.1", 13, 2000, 300},  // the GEMM again: the convolution's second run
    {3, "dot.1", 14, 3000, 50},
    {4, "fusion.2", 15, 4000, 200},
    {5, "transpose.3", 16, 5000, 400, {int_stat(kFlops, 1000), int_stat(kBytes, 777)}},
    {6, "custom-call.9", 17, 6000, 10},  // not in the module: an op without a cost
    {3, "dot.big", 18, 6500, 10},
};

Plane gpu_plane(const std::vector<Kernel>& kernels) {
  Plane gpu = plane(0, "/device:GPU:0");
  gpu.stat_names = kStatNames;
  gpu.stats = {str_stat(kDeviceName, "NVIDIA H200")};
  gpu.event_names = {{1, "Im2Col"},      {2, "Cijk_gemm"},        {3, "gemm_f32"},
                     {4, "loop_fusion"}, {5, "transpose_kernel"}, {6, "custom_kernel"}};
  std::vector<std::string> events;
  for (const Kernel& k : kernels) {
    std::vector<std::string> stats = {int_stat(kCorrelation, k.correlation), str_stat(kHloOp, k.op),
                                      str_stat(kHloModule, "jit_step"), int_stat(kProgramId, 7)};
    stats.insert(stats.end(), k.extra.begin(), k.extra.end());
    events.push_back(event(k.metadata, k.start * 1000, k.length * 1000, stats));
  }
  gpu.lines = {line(1, "Stream #1(Kernel)", 0, events)};
  return gpu;
}

// One thread launches every kernel, 10 ns each, 500 ns before it runs.
Plane host_plane(const std::vector<Kernel>& kernels) {
  Plane host = plane(0, "/host:CPU");
  host.stat_names = kStatNames;
  host.event_names = {{1, "hipModuleLaunchKernel"}, {2, "jit_step:XLA GPU module"}, {3, "dot.1"}};
  // The module's run [0, 7,000) ns, and XLA's own event for dot.1 around its launch (newer XLA
  // writes one per thunk): [2,400, 2,600) ns.
  std::vector<std::string> events = {event(2, 0, 7'000'000), event(3, 2'400'000, 200'000)};
  for (const Kernel& k : kernels)
    events.push_back(event(1, (k.start - 500) * 1000, 10'000, {int_stat(kCorrelation, k.correlation)}));
  host.lines = {line(5, "py_xla_execute", 0, events)};
  return host;
}

std::vector<const HostEvent*> ops_named(const Profile& p, std::string_view name) {
  std::vector<const HostEvent*> out;
  for (const HostEvent& e : p.host_events)
    if (p.str(e.name) == name) out.push_back(&e);
  return out;
}

Profile load_space(const std::string& hlo_proto = module(), const std::vector<Kernel>& kernels = kKernels) {
  std::string path = write_text(temp_dir() + "/hlo.xplane.pb",
                                space({metadata_plane(hlo_proto), gpu_plane(kernels), host_plane(kernels)}));
  return std::move(load_run({path}).workers.at(0));
}

// The XLA op of host event `e`, which the reader keeps with its instruction and XLA's own counts.
const XlaOp& xla_op(const Profile& p, const HostEvent* e) {
  const XlaOp* op = p.xla_hlo->op(e->details);
  EXPECT_NE(op, nullptr);
  return *op;
}
std::string_view str(const Profile& p, StringId id) {
  return p.str(id);
}
std::vector<std::int64_t> list(const XlaHlo& m, HloRange r) {
  auto dims = m.dims_of(r);
  return {dims.begin(), dims.end()};
}

TEST(XplaneHlo, EachRunOfAnInstructionIsAnOpWithItsShapesAndCost) {
  Profile p = load_space();
  // The convolution ran twice: Im2Col + GEMM, then the GEMM alone (a kernel met twice starts a run).
  std::vector<const HostEvent*> conv = ops_named(p, "cudnn-conv.1");
  ASSERT_EQ(conv.size(), 2u);
  EXPECT_EQ(conv[0]->kind, HostKind::Op);
  EXPECT_EQ(conv[0]->start, 500);  // its first launch's start to its last launch's end
  EXPECT_EQ(conv[0]->end, 710);
  EXPECT_EQ(conv[1]->start, 1500);
  EXPECT_EQ(conv[1]->end, 1510);
  // Inside the module's run, which no longer owns the launches.
  ASSERT_NE(conv[0]->parent, kNone);
  EXPECT_EQ(p.str(p.host_events[conv[0]->parent].name), "jit_step:XLA GPU module");
  // Its operands as a Kineto op's, and no cost in its details: the analysis works that out.
  const OpDetails& c = p.details(*conv[0]);
  EXPECT_EQ(p.str(c.input_dims), "[[8,32,32,16],[3,3,16,64]]");
  EXPECT_EQ(p.str(c.input_types), "[\"bf16\",\"bf16\"]");
  EXPECT_LT(c.flops, 0.0f);
  EXPECT_EQ(c.concrete_inputs, kNoString);
  // The facts the reader keeps of its instruction: the custom call's target, convolution dimension
  // numbers (input feature 3, kernel spatial 0 and 1), the result tuple with its scratch buffer.
  ASSERT_NE(p.xla_hlo, nullptr);
  const XlaHlo& m = *p.xla_hlo;
  const XlaOp& conv_op = xla_op(p, conv[0]);
  ASSERT_NE(conv_op.instruction, kNone);
  const HloInstruction& ci = m.instructions[conv_op.instruction];
  EXPECT_EQ(str(p, ci.opcode), "custom-call");
  EXPECT_EQ(str(p, ci.target), "__cudnn$convForward");
  EXPECT_TRUE(ci.convolution);
  EXPECT_EQ(ci.input_feature, 3);
  EXPECT_EQ(list(m, ci.kernel_spatial), (std::vector<std::int64_t>{0, 1}));
  const HloShape& result = m.shapes[ci.shape];
  EXPECT_EQ(result.element_type, kHloTuple);
  ASSERT_EQ(result.tuple.count, 2u);
  EXPECT_EQ(list(m, m.shapes[result.tuple.first].dims), (std::vector<std::int64_t>{8, 16, 16, 64}));
  EXPECT_EQ(m.shapes[result.tuple.first + 1].element_type, hlo::kU8);
  ASSERT_EQ(ci.operands.count, 2u);
  EXPECT_EQ(m.shapes[m.instructions[m.operands[ci.operands.first]].shape].element_type, hlo::kBf16);
  EXPECT_LT(conv_op.flops, 0);  // no counts of XLA's own on its kernels
  EXPECT_EQ(xla_op(p, conv[1]).instruction, conv_op.instruction);
  // dot.1's launch lies in XLA's own event for it: that event is the op, none is added.
  std::vector<const HostEvent*> dot = ops_named(p, "dot.1");
  ASSERT_EQ(dot.size(), 1u);
  EXPECT_EQ(dot[0]->start, 2400);
  EXPECT_EQ(dot[0]->end, 2600);
  const HloInstruction& di = m.instructions[xla_op(p, dot[0]).instruction];
  EXPECT_TRUE(di.dot);
  EXPECT_TRUE(di.contracting_known);
  EXPECT_EQ(list(m, di.contracting), std::vector<std::int64_t>{1});
  EXPECT_TRUE(has_line(p.notes, "7 runs of XLA ops are host ops (1 of them XLA's own host events, 6 with"));
  // The fusion's body is the module's fused computation: a multiply and an add.
  const HloInstruction& fi = m.instructions[xla_op(p, ops_named(p, "fusion.2").at(0)).instruction];
  EXPECT_EQ(str(p, fi.opcode), "fusion");
  ASSERT_NE(fi.called, kNone);
  HloRange body = m.computations[fi.called].instructions;
  ASSERT_EQ(body.count, 3u);
  EXPECT_EQ(str(p, m.instructions[body.first + 1].opcode), "multiply");
  // XLA's own stats on transpose.3's kernel are kept with the op.
  const XlaOp& transpose = xla_op(p, ops_named(p, "transpose.3").at(0));
  EXPECT_EQ(transpose.flops, 1000);
  EXPECT_EQ(transpose.bytes, 777);
  // An instruction the module does not hold: an op without shapes or an instruction.
  const HostEvent* unknown = ops_named(p, "custom-call.9").at(0);
  EXPECT_EQ(p.details(*unknown).input_dims, kNoString);
  EXPECT_EQ(xla_op(p, unknown).instruction, kNone);
}

// The cost model of analyse/gpu/xla_cost.h on the module above (its comment works each out).
TEST(XplaneHlo, CostsOfADotAConvolutionAndAFusionFromTheFacts) {
  Profile p = load_space();
  XlaCosts costs(p);
  auto index = [&](std::string_view name) {
    return static_cast<std::size_t>(ops_named(p, name).at(0) - p.host_events.data());
  };
  // cudnn-conv.1: 2 x 131,072 outputs x 16 input features x 3 x 3 taps; (131,072 + 9,216 + 131,072)
  // elements x 2 bytes, the scratch buffer left out.
  std::optional<OpCost> conv = costs.roofline_cost(index("cudnn-conv.1"));
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->flop, 2.0 * 131072 * 16 * 3 * 3);
  EXPECT_EQ(conv->bytes, (131072.0 + 9216 + 131072) * 2);
  EXPECT_TRUE(conv->matrix);
  EXPECT_EQ(costs.mfu_flops(index("cudnn-conv.1")), 37748736.0);
  // dot.1: 2 x (64 x 256 outputs) x 128 contracted; (8,192 + 32,768 + 16,384) x 4 bytes.
  std::optional<OpCost> dot = costs.roofline_cost(index("dot.1"));
  ASSERT_TRUE(dot);
  EXPECT_EQ(dot->flop, 2.0 * 64 * 256 * 128);
  EXPECT_EQ(dot->bytes, (8192.0 + 32768 + 16384) * 4);
  EXPECT_EQ(costs.mfu_flops(index("dot.1")), 4194304.0);
  // fusion.2: a multiply and an add of 131,072 elements each inside; its operand read and its
  // result written once at 2 bytes: not matrix work, so no count for MFU.
  std::optional<OpCost> fusion = costs.roofline_cost(index("fusion.2"));
  ASSERT_TRUE(fusion);
  EXPECT_EQ(fusion->flop, 2.0 * 131072);
  EXPECT_EQ(fusion->bytes, 2.0 * 131072 * 2);
  EXPECT_FALSE(fusion->matrix);
  EXPECT_LT(costs.mfu_flops(index("fusion.2")), 0);
  // XLA's own counts before the HLO's (0 FLOPs, 524,288 bytes by the HLO).
  std::optional<OpCost> transpose = costs.roofline_cost(index("transpose.3"));
  ASSERT_TRUE(transpose);
  EXPECT_EQ(transpose->flop, 1000);
  EXPECT_EQ(transpose->bytes, 777);
  // Counts past 2^62 are unknown: a matrix op without FLOPs has no cost, nor an MFU count.
  EXPECT_TRUE(costs.costed(index("dot.big")));
  EXPECT_FALSE(costs.roofline_cost(index("dot.big")));
  EXPECT_LT(costs.mfu_flops(index("dot.big")), 0);
  EXPECT_FALSE(costs.costed(index("custom-call.9")));
}

// Issue 78, item 2: fusions that share their fused computations. main holds kWide fusions of L1,
// L1 kWide fusions of L2, L2 of L3, L3 of L4, and L4 a multiply of f32[4]: walked without memory
// of what a computation costs, the first fusion would visit kWide^3 = 10^9 copies of L4. Each
// computation is walked once: L1, L2 and L3 hold kWide + 1 instructions, L4 two.
//   FLOPs: L4 4; L3 kWide x 4; L2 kWide^2 x 4; L1 kWide^3 x 4 = 4 x 10^9, the fusion's.
//   bytes: its operand f32[4] read and its result f32[4] written: 32.
TEST(XplaneHlo, AFusionTreeIsCostedOnceAComputation) {
  using namespace hlo;
  constexpr std::int64_t kWide = 1000;
  std::string f32x4 = shape(kF32, {4});
  auto level = [&](std::string_view name, std::int64_t id, std::int64_t calls) {
    std::vector<std::string> list = {instruction("p", "parameter", f32x4, 1, {})};
    for (std::int64_t k = 0; k < kWide; ++k)
      list.push_back(
          instruction(fmt::format("fusion.{}", k), "fusion", f32x4, k + 2, {1}, int_field(38, calls)));
    return computation(name, id, list);
  };
  std::string tree =
      proto("jit_step", {level("main", 1, 2), level("L1", 2, 3), level("L2", 3, 4), level("L3", 4, 5),
                         computation("L4", 5,
                                     {instruction("p", "parameter", f32x4, 1, {}),
                                      instruction("multiply", "multiply", f32x4, 2, {1, 1})})});
  Profile p = load_space(tree, {{4, "fusion.0", 11, 1000, 100}});
  std::vector<const HostEvent*> op = ops_named(p, "fusion.0");
  ASSERT_EQ(op.size(), 1u);
  XlaCosts costs(p);
  std::optional<OpCost> cost = costs.roofline_cost(static_cast<std::size_t>(op[0] - p.host_events.data()));
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->flop, 4.0 * kWide * kWide * kWide);
  EXPECT_EQ(cost->bytes, 32.0);
  EXPECT_FALSE(cost->matrix);
  EXPECT_EQ(costs.instructions_walked(), 3 * static_cast<std::uint64_t>(kWide + 1) + 2);
}

TEST(XplaneHlo, TheRooflineAndMfuReadTheXlaOps) {
  Profile p = load_space();
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  auto row = [&](std::string_view name) {
    auto it = std::find_if(w.tables.roofline.begin(), w.tables.roofline.end(),
                           [&](const RooflineRow& r) { return r.name == name; });
    return it == w.tables.roofline.end() ? nullptr : &*it;
  };
  // H200 (gpu_peaks): BF16 989.4 TFLOP/s, FP32 67 TFLOP/s, 4,800 GB/s.
  const RooflineRow* conv = row("cudnn-conv.1");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->family, "xla");
  EXPECT_EQ(conv->calls, 2u);
  EXPECT_EQ(conv->kernel_ns, 700);  // 100 + 300 + 300
  EXPECT_EQ(conv->flop, 2u * 37748736u);
  EXPECT_EQ(conv->bytes, 2u * 542720u);
  EXPECT_EQ(conv->precision, "bf16");
  ASSERT_TRUE(conv->has_roofline);
  // Per run: compute 37,748,736 / 989.4e12 = 38.15 ns, memory 542,720 / 4,800e9 = 113.07 ns: memory-bound.
  EXPECT_NEAR(static_cast<double>(conv->roofline_ps), 2 * 542720.0 / 4800e9 * 1e12, 2);
  const RooflineRow* dot = row("dot.1");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->flop, 4194304u);
  EXPECT_EQ(dot->bytes, 229376u);
  const RooflineRow* fusion = row("fusion.2");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->flop, 262144u);
  EXPECT_EQ(fusion->bytes, 524288u);
  EXPECT_FALSE(fusion->counted_in_mfu);
  // The instruction without a cost is an unmodelled row with its kernel time.
  const RooflineRow* unknown = row("custom-call.9");
  ASSERT_NE(unknown, nullptr);
  EXPECT_TRUE(unknown->family.empty());
  EXPECT_EQ(unknown->kernel_ns, 10);
  // MFU counts the matrix work only: 2 x 37,748,736 + 4,194,304 = 79,691,776 FLOPs.
  ASSERT_TRUE(w.metrics.get(Metric::ComputeFlops));
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::ComputeFlops), 79691776.0);
}

}  // namespace
}  // namespace perfgate::testing
