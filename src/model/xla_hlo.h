// XLA's HLO as an XSpace profile carries it (/host:metadata's "Hlo Proto" stats) and the XLA ops its
// reader made of the kernels' launches (Profile::xla_hlo): the facts of each instruction that the
// cost model of XLA ops (analyse/gpu/xla_cost.h) reads, as the file states them, nothing computed.
// Flat arrays indexed by position, opcodes interned in the profile's string pool: a module runs to
// tens of thousands of instructions, and no instruction holds memory of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "model/profile.h"

namespace perfgate {

// A slice of one of XlaHlo's arrays.
struct HloRange {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

// xla_data.proto's PrimitiveType values that are no array element type.
inline constexpr std::int64_t kHloTuple = 13;
inline constexpr std::int64_t kHloOpaque = 14;
inline constexpr std::int64_t kHloToken = 17;
// An array of more than kHloMaxRank dimensions: the reader keeps no element type for it.
inline constexpr std::int64_t kHloTooManyDimensions = -1;
inline constexpr std::size_t kHloMaxRank = 64;

// A ShapeProto: an array's element type (PrimitiveType: 16 bf16, 11 f32, ...; kHloTuple a tuple)
// and dimensions, and a tuple's shapes, as the file states them.
struct HloShape {
  std::int64_t element_type = 0;
  HloRange dims;   // into XlaHlo::dims
  HloRange tuple;  // into XlaHlo::shapes, nested tuples to 4 levels
};

// An HloInstructionProto, as far as its cost needs it.
struct HloInstruction {
  StringId opcode = kNoString;  // "convolution", "dot", "fusion", "custom-call", "add", ...
  StringId target = kNoString;  // a custom call's target ("__cudnn$convForward"); empty otherwise
  std::uint32_t shape = 0;      // its result, into XlaHlo::shapes
  // Its operands (into XlaHlo::operands): each an instruction of its own computation, kNone where
  // the computation holds no instruction of the operand's id.
  HloRange operands;
  // The computation it calls first (a fusion's fused computation), into XlaHlo::computations; kNone
  // where it calls none that its module holds.
  std::uint32_t called = kNone;
  bool convolution = false;  // it has convolution dimension numbers
  bool dot = false;          // it has dot dimension numbers
  // Whether `contracting` is stated: a dot's dimension numbers, or the `lhs_contracting_dimensions`
  // of a custom call's backend config (GpuBackendConfig as JSON: a cuBLAS GEMM's).
  bool contracting_known = false;
  std::int64_t input_feature = -1;  // a convolution's input feature dimension; -1: not stated
  std::int64_t feature_groups = 1;  // feature_group_count, at least 1
  std::int64_t batch_groups = 1;    // batch_group_count, at least 1
  HloRange kernel_spatial;          // a convolution's kernel spatial dimensions, into XlaHlo::dims
  HloRange contracting;             // the lhs contracting dimensions, into XlaHlo::dims
};

// An HloComputationProto: its instructions in its order (into XlaHlo::instructions).
struct HloComputation {
  HloRange instructions;
};

// An XLA op of the profile: a host op the reader made of a run of one instruction's launches (or
// XLA's own host event for it), or of one op a TPU ran, an instant inside the host call that ran
// its program (docs/formats.md, "XSpace profile").
struct XlaOp {
  std::uint32_t details = 0;          // the op's details, index into Profile::op_details
  std::uint32_t instruction = kNone;  // into XlaHlo::instructions; kNone: no module held it
  // XLA's own counts where the op's kernels carry them (the `flops` and `bytes_accessed` stats),
  // the largest of its kernels'; -1: none.
  double flops = -1;
  double bytes = -1;
  // Of its FLOPs, those of matrix-unit work where the profile says which (a TPU program's ops by
  // their hlo_category: the model's FLOPs where stated); -1: the instruction decides.
  double matrix_flops = -1;
  // A TPU op's FLOPs as MFU counts them, XProf's FLOPS utilization: its model_flops where stated,
  // else its flops (or those of `program_ops`, added when costed); -1: none stated.
  double model_flops = -1;
  // A TPU op whose events carry no cost stats and whose instruction the module that ran it holds
  // (into XlaHlo::program_ops): its instruction's cost adds to `flops` and `bytes`.
  HloRange program_ops = {};
  // The op's own time on the device where its activity spans more: a TPU's asynchronous copy, whose
  // activity is the transfer from its copy-start to its copy-done's end, held the core for its
  // copy-done's time (XProf's op time), which the op tables count (analyse/ops/op_stats.h). -1: the
  // activity's span is the op's time.
  TimeNs own_ns = -1;
};

// One such op: its instruction (into XlaHlo::instructions), and whether its hlo_category names
// matrix-unit work (1), other work (0), or nothing (-1: the instruction's cost decides).
struct XlaProgramOp {
  std::uint32_t instruction = kNone;
  std::int8_t matrix = -1;
};

struct XlaHlo {
  // Every module a kernel named, one after another: a module's computations, their instructions,
  // shapes and dimension lists each lie together.
  std::vector<HloComputation> computations;
  std::vector<HloInstruction> instructions;
  std::vector<HloShape> shapes;
  std::vector<std::int64_t> dims;
  std::vector<std::uint32_t> operands;
  std::vector<XlaOp> ops;  // by details, ascending
  std::vector<XlaProgramOp> program_ops;

  // The XLA op whose details are `details`, or nullptr.
  const XlaOp* op(std::uint32_t details) const;
  // An array shape's dimensions, or a dimension list.
  std::span<const std::int64_t> dims_of(HloRange r) const { return {dims.data() + r.first, r.count}; }
  std::span<const std::uint32_t> operands_of(const HloInstruction& in) const {
    return {operands.data() + in.operands.first, in.operands.count};
  }
  std::size_t memory_bytes() const;
};

}  // namespace perfgate
