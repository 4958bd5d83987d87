#include "analyse/gpu/xla_cost.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace perfgate {
namespace {

// Counts past 2^62 are not an op's (dimensions a malformed file made up): unknown, so that no later
// conversion (to float for MFU, to integers for the tables) runs out of range.
constexpr double kMaxCount = 0x1p62;

// Bits per element of XLA's PrimitiveType (xla_data.proto); 0: not an array element type.
unsigned element_bits(std::int64_t type) {
  switch (type) {
    case 1:
    case 2:
    case 6:
    case 19:
    case 20:
    case 23:
    case 24:
    case 25:
    case 28:
    case 29:
    case 33:
      return 8;  // pred, s8, u8, f8*
    case 3:
    case 7:
    case 10:
    case 16:
      return 16;  // s16, u16, f16, bf16
    case 4:
    case 8:
    case 11:
      return 32;  // s32, u32, f32
    case 5:
    case 9:
    case 12:
    case 15:
      return 64;  // s64, u64, f64, c64
    case 18:
      return 128;  // c128
    case 21:
    case 22:
    case 32:
      return 4;  // s4, u4, f4e2m1fn
    case 26:
    case 27:
      return 2;  // s2, u2
    case 30:
    case 31:
      return 1;  // s1, u1
    default:
      return 0;
  }
}

// One FLOP per output element: arithmetic, comparisons and selections (XLA's own cost analysis
// counts these as FLOPs too; transcendental functions are one each here).
bool elementwise(std::string_view op) {
  static constexpr std::string_view kOps[] = {"add",
                                              "subtract",
                                              "multiply",
                                              "divide",
                                              "maximum",
                                              "minimum",
                                              "negate",
                                              "abs",
                                              "exponential",
                                              "exponential-minus-one",
                                              "log",
                                              "log-plus-one",
                                              "tanh",
                                              "sqrt",
                                              "rsqrt",
                                              "cbrt",
                                              "power",
                                              "logistic",
                                              "sine",
                                              "cosine",
                                              "tan",
                                              "atan2",
                                              "remainder",
                                              "sign",
                                              "floor",
                                              "ceil",
                                              "round-nearest-afz",
                                              "round-nearest-even",
                                              "erf",
                                              "compare",
                                              "select",
                                              "clamp",
                                              "and",
                                              "or",
                                              "xor",
                                              "not"};
  for (std::string_view o : kOps)
    if (op == o) return true;
  return false;
}

bool is_gemm_call(std::string_view target) {
  return target.find("gemm") != std::string_view::npos || target.find("matmul") != std::string_view::npos ||
         target.find("Gemm") != std::string_view::npos || target.find("Matmul") != std::string_view::npos;
}

// The number of elements of an array shape; empty on a negative dimension or an overflow.
std::optional<std::uint64_t> elements(const XlaHlo& m, const HloShape& s) {
  std::uint64_t n = 1;
  for (std::int64_t d : m.dims_of(s.dims))
    if (d < 0 || __builtin_mul_overflow(n, static_cast<std::uint64_t>(d), &n)) return std::nullopt;
  return n;
}

// The bytes of a shape: an array's elements at its type's size, a tuple's elements summed.
std::optional<double> shape_bytes(const XlaHlo& m, const HloShape& s) {
  if (s.element_type == kHloTuple) {
    double sum = 0;
    for (std::uint32_t k = 0; k < s.tuple.count; ++k) {
      auto b = shape_bytes(m, m.shapes[s.tuple.first + k]);
      if (!b) return std::nullopt;
      sum += *b;
    }
    return sum;
  }
  if (s.element_type == kHloOpaque || s.element_type == kHloToken) return 0.0;
  auto n = elements(m, s);
  unsigned bits = element_bits(s.element_type);
  if (!n || bits == 0) return std::nullopt;
  return static_cast<double>(*n) * bits / 8;
}

}  // namespace

const OpModelPattern& xla_op_model() {
  static const OpModelPattern model = [] {
    OpModelPattern m;
    m.pattern = "(an XLA op of an XSpace profile)";
    m.model = "xla";
    return m;
  }();
  return model;
}

XlaCosts::XlaCosts(const Profile& profile) : profile_(profile), hlo_(profile.xla_hlo.get()) {
  if (hlo_) bodies_.resize(hlo_->computations.size());
}

const XlaCosts::OpCounts& XlaCosts::counts(std::size_t event) {
  static const OpCounts kNoCounts;
  std::uint32_t details = profile_.host_events[event].details;
  if (!hlo_ || details == kNone) return kNoCounts;
  auto [it, added] = ops_.try_emplace(details);
  if (added)
    if (const XlaOp* op = hlo_->op(details)) it->second = op_counts(*op);
  return it->second;
}

XlaCosts::OpCounts XlaCosts::op_counts(const XlaOp& op) {
  OpCounts out;
  out.flops = op.flops;
  out.bytes = op.bytes;
  std::optional<HloCost> cost;
  if (op.instruction != kNone) cost = instruction_cost(op.instruction);
  if (out.flops < 0 && cost && cost->flops) out.flops = *cost->flops;
  if (out.bytes < 0 && cost && cost->bytes) out.bytes = *cost->bytes;
  // A TPU program's ops without cost stats add their instructions' costs; their hlo_category, else
  // the instruction, says whether their FLOPs are matrix-unit work.
  double matrix_flops = op.matrix_flops;
  double model_flops = op.model_flops;
  auto add = [](double& sum, double v) { sum = std::max(sum, 0.0) + v; };
  for (std::uint32_t k = 0; k < op.program_ops.count; ++k) {
    const XlaProgramOp& program_op = hlo_->program_ops[op.program_ops.first + k];
    HloCost c = instruction_cost(program_op.instruction);
    if (c.flops) add(out.flops, *c.flops);
    if (c.flops) add(model_flops, *c.flops);
    if (c.bytes) add(out.bytes, *c.bytes);
    if (c.flops && (program_op.matrix == 1 || (program_op.matrix < 0 && c.matrix)))
      add(matrix_flops, *c.flops);
  }
  if (!(out.flops <= kMaxCount)) out.flops = -1;
  if (!(out.bytes <= kMaxCount)) out.bytes = -1;
  // A TPU program's ops say which of its FLOPs are matrix-unit work (xla_hlo.h).
  if (matrix_flops >= 0 && matrix_flops <= kMaxCount) out.matrix_flops = matrix_flops;
  if (model_flops >= 0 && model_flops <= kMaxCount) out.model_flops = model_flops;
  out.matrix = (cost && cost->matrix) || out.matrix_flops > 0;
  out.costed = cost || out.flops >= 0 || out.bytes >= 0;
  return out;
}

std::optional<OpCost> XlaCosts::roofline_cost(std::size_t event) {
  const OpCounts& c = counts(event);
  if (!c.costed) return std::nullopt;
  // Whole counts: a type of 4 bits or fewer can make half bytes (rounded half to even).
  std::optional<double> flop, bytes;
  if (c.flops >= 0) flop = std::nearbyint(c.flops);
  if (c.bytes >= 0) bytes = std::nearbyint(c.bytes);
  if (!flop && (c.matrix || !bytes)) return std::nullopt;
  return OpCost{flop.value_or(0), bytes, c.matrix};
}

double XlaCosts::mfu_flops(std::size_t event) {
  const OpCounts& c = counts(event);
  if (c.model_flops >= 0) return c.model_flops;
  if (c.matrix_flops >= 0) return c.matrix_flops;
  return c.matrix && c.flops >= 0 ? c.flops : -1;
}

XlaCosts::Kind XlaCosts::kind(StringId opcode) {
  auto [it, added] = kinds_.try_emplace(opcode, Kind::Other);
  if (added) {
    std::string_view op = profile_.str(opcode);
    it->second = op == "fusion"        ? Kind::Fusion
                 : op == "custom-call" ? Kind::CustomCall
                 : op == "reduce"      ? Kind::Reduce
                 : elementwise(op)     ? Kind::Elementwise
                                       : Kind::Other;
  }
  return it->second;
}

const HloShape* XlaCosts::operand(const HloInstruction& in, std::size_t k) const {
  if (k >= in.operands.count) return nullptr;
  std::uint32_t i = hlo_->operands[in.operands.first + k];
  return i == kNone ? nullptr : &hlo_->shapes[hlo_->instructions[i].shape];
}

// A custom call's result is a tuple of the result and a scratch buffer (u8[...]) for convolutions
// and GEMMs: the result alone is the data.
const HloShape& XlaCosts::result(const HloInstruction& in) {
  const HloShape& s = hlo_->shapes[in.shape];
  if (kind(in.opcode) == Kind::CustomCall && s.element_type == kHloTuple && s.tuple.count > 0)
    return hlo_->shapes[s.tuple.first];
  return s;
}

HloCost XlaCosts::instruction_cost(std::uint32_t i) {
  auto [it, added] = instructions_.try_emplace(i);
  if (!added) return it->second;
  const HloInstruction& in = hlo_->instructions[i];
  HloCost out;
  std::optional<double> bytes = shape_bytes(*hlo_, result(in));
  for (std::size_t k = 0; k < in.operands.count; ++k) {
    const HloShape* s = operand(in, k);
    auto b = s ? shape_bytes(*hlo_, *s) : std::nullopt;
    if (bytes && b)
      *bytes += *b;
    else
      bytes = std::nullopt;
  }
  out.bytes = bytes;
  out.flops = flops(i, out.matrix, 0);
  return it->second = out;
}

// The FLOPs of instruction `i` at `depth` fusions deep; empty where unknown. `matrix` is set for
// convolutions and dots, and for a fusion whose walk met one (before an unknown count ended it).
std::optional<double> XlaCosts::flops(std::uint32_t i, bool& matrix, int depth) {
  const HloInstruction& in = hlo_->instructions[i];
  auto n = elements(*hlo_, result(in));
  Kind k = kind(in.opcode);
  if (in.convolution) {
    matrix = true;
    const HloShape *lhs = operand(in, 0), *rhs = operand(in, 1);
    if (!n || !lhs || !rhs || in.feature_groups < 1 || in.batch_groups != 1 || in.input_feature < 0 ||
        static_cast<std::size_t>(in.input_feature) >= lhs->dims.count)
      return std::nullopt;
    std::span<const std::int64_t> lhs_dims = hlo_->dims_of(lhs->dims), rhs_dims = hlo_->dims_of(rhs->dims);
    double per = static_cast<double>(lhs_dims[in.input_feature] / in.feature_groups);
    for (std::int64_t d : hlo_->dims_of(in.kernel_spatial)) {
      if (d < 0 || static_cast<std::size_t>(d) >= rhs_dims.size()) return std::nullopt;
      per *= static_cast<double>(rhs_dims[d]);
    }
    return 2.0 * static_cast<double>(*n) * per;
  }
  if (in.dot || (k == Kind::CustomCall && is_gemm_call(profile_.str(in.target)))) {
    matrix = true;
    const HloShape* lhs = operand(in, 0);
    if (!in.contracting_known || !n || !lhs) return std::nullopt;
    std::span<const std::int64_t> lhs_dims = hlo_->dims_of(lhs->dims);
    double size = 1;
    for (std::int64_t d : hlo_->dims_of(in.contracting)) {
      if (d < 0 || static_cast<std::size_t>(d) >= lhs_dims.size()) return std::nullopt;
      size *= static_cast<double>(lhs_dims[d]);
    }
    return 2.0 * static_cast<double>(*n) * size;
  }
  if (k == Kind::Fusion) {
    if (depth >= kMaxFusionDepth || in.called == kNone) return std::nullopt;
    const BodyCost& b = body(in.called, depth + 1);
    matrix = matrix || b.matrix;
    return b.flops;
  }
  if (k == Kind::Elementwise) return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
  if (k == Kind::Reduce) {
    const HloShape* input = operand(in, 0);
    auto m = input ? elements(*hlo_, *input) : std::nullopt;
    return m ? std::optional<double>(static_cast<double>(*m)) : std::nullopt;
  }
  return 0.0;  // data movement: copies, transposes, slices, broadcasts, converts, parameters
}

// A fused computation's FLOPs, the sum over its instructions (unknown at the first unknown one), at
// `depth` (1 to kMaxFusionDepth): worked out once, whichever fusions call it.
const XlaCosts::BodyCost& XlaCosts::body(std::uint32_t computation, int depth) {
  BodyCost& b = bodies_[computation][static_cast<std::size_t>(depth - 1)];
  if (b.done) return b;
  b.done = true;
  HloRange list = hlo_->computations[computation].instructions;
  double sum = 0;
  bool matrix = false;
  std::optional<double> total = 0.0;
  for (std::uint32_t k = 0; k < list.count; ++k) {
    ++walked_;
    auto f = flops(list.first + k, matrix, depth);
    if (!f) {
      total = std::nullopt;
      break;
    }
    sum += *f;
  }
  if (total) total = sum;
  b.flops = total;
  b.matrix = matrix;
  return b;
}

}  // namespace perfgate
