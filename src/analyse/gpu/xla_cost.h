// The cost model of XLA ops (JAX and TensorFlow XSpace profiles), beside the op models of
// perf_model.h: each HLO instruction's FLOPs and bytes from the facts the XSpace reader keeps
// (model/xla_hlo.h), by the definitions of docs/metrics.md ("XLA ops"), and each XLA op's cost: XLA's
// own counts where its kernels carry them, else its instruction's. A fusion's FLOPs are its fused
// computation's, worked out once per computation (and per level of nesting, to kMaxFusionDepth):
// the work is linear in the module however many fusions share a computation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analyse/gpu/perf_model.h"
#include "model/profile.h"
#include "model/xla_hlo.h"

namespace perfgate {

// Fusions inside fusions are costed to this depth; a deeper one has no count.
inline constexpr int kMaxFusionDepth = 4;

struct HloCost {
  std::optional<double> flops;  // empty where a shape or an attribute the formula needs is unknown
  std::optional<double> bytes;
  bool matrix = false;  // a convolution or a dot (GEMM), alone or inside a fusion
};

// The model of an XLA op, as the roofline table names it (family "xla"). XLA names instructions
// freely (fusion.12, cudnn-conv.1.0), so no op_models pattern can pick it: the roofline picks it for
// an op XlaCosts::costed says has a cost.
const OpModelPattern& xla_op_model();

// The costs of one profile's XLA ops; none where the profile has no XLA ops. Not thread-safe: one
// per analysis of a worker.
class XlaCosts {
 public:
  explicit XlaCosts(const Profile& profile);

  // Whether host event `event` is an XLA op with anything to cost: its instruction, or XLA's own
  // counts of it.
  bool costed(std::size_t event) { return counts(event).costed; }
  // The xla model's cost of the op: empty where its FLOPs are unknown and it is matrix work (its
  // bytes alone would put it under a memory ceiling it need not be under), or nothing is known.
  std::optional<OpCost> roofline_cost(std::size_t event);
  // The FLOPs MFU counts for the op; -1: none. A TPU program's every op's model FLOPs (XProf's FLOPS
  // utilization: op_stats' model_flops over the peak), else matrix work, as a PyTorch op's with_flops.
  double mfu_flops(std::size_t event);

  // The cost of instruction `i` (into the model's instructions).
  HloCost instruction_cost(std::uint32_t i);
  // The instructions of fused computations walked so far: at most each computation's instructions
  // once per level of nesting.
  std::uint64_t instructions_walked() const { return walked_; }

 private:
  struct OpCounts {
    double flops = -1;
    double bytes = -1;
    bool matrix = false;
    bool costed = false;
    double matrix_flops = -1;  // XlaOp::matrix_flops
    double model_flops = -1;   // XlaOp::model_flops, with its program ops' FLOPs
  };
  struct BodyCost {
    std::optional<double> flops;
    bool matrix = false;
    bool done = false;
  };
  enum class Kind : unsigned char { Fusion, CustomCall, Elementwise, Reduce, Other };

  // The op's counts, memoised by its details; none where `event` is no XLA op.
  const OpCounts& counts(std::size_t event);
  OpCounts op_counts(const XlaOp& op);
  Kind kind(StringId opcode);
  const HloShape* operand(const HloInstruction& in, std::size_t k) const;
  const HloShape& result(const HloInstruction& in);
  std::optional<double> flops(std::uint32_t i, bool& matrix, int depth);
  const BodyCost& body(std::uint32_t computation, int depth);

  const Profile& profile_;
  const XlaHlo* hlo_ = nullptr;
  std::unordered_map<std::uint32_t, HloCost> instructions_;    // instruction_cost's, by instruction
  std::vector<std::array<BodyCost, kMaxFusionDepth>> bodies_;  // by computation and depth - 1
  std::unordered_map<StringId, Kind> kinds_;
  std::unordered_map<std::uint32_t, OpCounts> ops_;  // by details
  std::uint64_t walked_ = 0;
};

}  // namespace perfgate
