// The HloProto wire format by field number (openxla/xla: xla/service/hlo.proto, xla/xla_data.proto):
// HloProto{hlo_module 1} → HloModuleProto{name 1, computations 3} → HloComputationProto{name 1,
// instructions 2, id 5} → HloInstructionProto{name 1, opcode 2, shape 3, window 15,
// convolution_dimension_numbers 16, custom_call_target 28, dot_dimension_numbers 30, id 35,
// operand_ids 36, called_computation_ids 38, backend_config 43, feature_group_count 50,
// batch_group_count 58}; ShapeProto{element_type 2, dimensions 3, tuple_shapes 4};
// ConvolutionDimensionNumbers{input_feature_dimension 8, kernel_spatial_dimensions 6};
// DotDimensionNumbers{lhs_contracting_dimensions 1}.
#include "load/xplane/hlo.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "load/xplane/wire.h"

namespace perfgate::xplane {
namespace {

using wire::Field;
using wire::Message;
using wire::WireError;
using wire::WireType;

constexpr std::size_t kMaxRank = 64;       // dims of one shape, kept
constexpr int kMaxTupleDepth = 4;          // nested tuple shapes read
constexpr int kMaxFusionDepth = 4;         // fusions inside fusions costed
constexpr std::size_t kMaxList = 1 << 16;  // operands, called computations

struct Shape {
  std::int64_t type = 0;
  std::vector<std::int64_t> dims;
  std::vector<Shape> tuple;
};

struct Instruction {
  std::string_view name, opcode, target, backend_config;
  Shape shape;
  std::int64_t id = 0;
  std::vector<std::int64_t> operands, called;
  std::int64_t feature_groups = 1, batch_groups = 1;
  bool conv = false, dot = false;
  std::int64_t input_feature = -1;
  std::vector<std::int64_t> kernel_spatial, lhs_contracting;
};

struct Computation {
  std::int64_t id = 0;
  std::vector<Instruction> instructions;
  std::unordered_map<std::int64_t, std::size_t> by_id;
};

void expect(const Field& f, WireType type, const char* what) {
  if (f.type != type)
    throw WireError(fmt::format("an HLO module's {} has wire type {}", what, static_cast<int>(f.type)),
                    f.offset);
}

// A repeated int64: one varint, or packed varints in a length-delimited field.
void ints(const Field& f, std::vector<std::int64_t>& out, const char* what) {
  if (f.type == WireType::Varint) {
    if (out.size() < kMaxList) out.push_back(f.as_int64());
    return;
  }
  expect(f, WireType::Bytes, what);
  std::uint64_t v = 0;
  unsigned shift = 0;
  for (std::size_t i = 0; i < f.bytes.size(); ++i) {
    auto byte = static_cast<unsigned char>(f.bytes[i]);
    if (shift >= 64)
      throw WireError(fmt::format("an HLO module's {} has a varint over 10 bytes", what), f.data_offset + i);
    v |= std::uint64_t{byte & 0x7fu} << shift;
    shift += 7;
    if (byte < 0x80) {
      if (out.size() < kMaxList) out.push_back(static_cast<std::int64_t>(v));
      v = 0;
      shift = 0;
    }
  }
  if (shift != 0)
    throw WireError(fmt::format("an HLO module's {} ends inside a varint", what),
                    f.data_offset + f.bytes.size());
}

std::string_view text(const Field& f, const char* what) {
  expect(f, WireType::Bytes, what);
  return f.bytes;
}

std::int64_t integer(const Field& f, const char* what) {
  expect(f, WireType::Varint, what);
  return f.as_int64();
}

Shape read_shape(Message m, int depth) {
  Shape out;
  Field f;
  while (m.next(f)) {
    if (f.number == 2) out.type = integer(f, "element type");
    if (f.number == 3 && out.dims.size() <= kMaxRank) ints(f, out.dims, "dimensions");
    if (f.number == 4) {
      expect(f, WireType::Bytes, "tuple shape");
      if (depth < kMaxTupleDepth && out.tuple.size() < kMaxList)
        out.tuple.push_back(read_shape(wire::nested(f), depth + 1));
    }
  }
  if (out.dims.size() > kMaxRank) out.type = -1;  // not an array we cost
  return out;
}

Instruction read_instruction(Message m) {
  Instruction out;
  Field f;
  while (m.next(f)) {
    switch (f.number) {
      case 1:
        out.name = text(f, "instruction name");
        break;
      case 2:
        out.opcode = text(f, "opcode");
        break;
      case 3:
        expect(f, WireType::Bytes, "shape");
        out.shape = read_shape(wire::nested(f), 0);
        break;
      case 16: {
        expect(f, WireType::Bytes, "convolution dimension numbers");
        out.conv = true;
        Message c = wire::nested(f);
        Field g;
        while (c.next(g)) {
          if (g.number == 8) out.input_feature = integer(g, "input feature dimension");
          if (g.number == 6) ints(g, out.kernel_spatial, "kernel spatial dimensions");
        }
        break;
      }
      case 28:
        out.target = text(f, "custom call target");
        break;
      case 30: {
        expect(f, WireType::Bytes, "dot dimension numbers");
        out.dot = true;
        Message d = wire::nested(f);
        Field g;
        while (d.next(g))
          if (g.number == 1) ints(g, out.lhs_contracting, "lhs contracting dimensions");
        break;
      }
      case 35:
        out.id = integer(f, "instruction id");
        break;
      case 36:
        ints(f, out.operands, "operand ids");
        break;
      case 38:
        ints(f, out.called, "called computation ids");
        break;
      case 43:
        out.backend_config = text(f, "backend config");
        break;
      case 50:
        out.feature_groups = std::max<std::int64_t>(integer(f, "feature group count"), 1);
        break;
      case 58:
        out.batch_groups = std::max<std::int64_t>(integer(f, "batch group count"), 1);
        break;
      default:
        break;
    }
  }
  return out;
}

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

const char* type_name(std::int64_t type) {
  switch (type) {
    case 1:
      return "pred";
    case 2:
      return "s8";
    case 3:
      return "s16";
    case 4:
      return "s32";
    case 5:
      return "s64";
    case 6:
      return "u8";
    case 7:
      return "u16";
    case 8:
      return "u32";
    case 9:
      return "u64";
    case 10:
      return "f16";
    case 11:
      return "f32";
    case 12:
      return "f64";
    case 15:
      return "c64";
    case 16:
      return "bf16";
    case 18:
      return "c128";
    case 19:
      return "f8e5m2";
    case 20:
      return "f8e4m3fn";
    case 21:
      return "s4";
    case 22:
      return "u4";
    case 23:
      return "f8e4m3b11fnuz";
    case 24:
      return "f8e5m2fnuz";
    case 25:
      return "f8e4m3fnuz";
    case 26:
      return "s2";
    case 27:
      return "u2";
    case 28:
      return "f8e4m3";
    case 29:
      return "f8e3m4";
    case 30:
      return "s1";
    case 31:
      return "u1";
    case 32:
      return "f4e2m1fn";
    case 33:
      return "f8e8m0fnu";
    default:
      return "";
  }
}

// The number of elements of an array shape; empty on a negative dimension or an overflow.
std::optional<std::uint64_t> elements(const Shape& s) {
  std::uint64_t n = 1;
  for (std::int64_t d : s.dims)
    if (d < 0 || __builtin_mul_overflow(n, static_cast<std::uint64_t>(d), &n)) return std::nullopt;
  return n;
}

// The bytes of a shape: an array's elements at its type's size, a tuple's elements summed.
std::optional<double> shape_bytes(const Shape& s) {
  if (s.type == 13) {
    double sum = 0;
    for (const Shape& t : s.tuple) {
      auto b = shape_bytes(t);
      if (!b) return std::nullopt;
      sum += *b;
    }
    return sum;
  }
  if (s.type == 14 || s.type == 17) return 0.0;  // opaque, token
  auto n = elements(s);
  unsigned bits = element_bits(s.type);
  if (!n || bits == 0) return std::nullopt;
  return static_cast<double>(*n) * bits / 8;
}

// A custom call's result is a tuple of the result and a scratch buffer (u8[...]) for convolutions
// and GEMMs: the result alone is the data.
const Shape& result_of(const Instruction& in) {
  if (in.opcode == "custom-call" && in.shape.type == 13 && !in.shape.tuple.empty())
    return in.shape.tuple.front();
  return in.shape;
}

std::string dims_text(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.dims.size(); ++i) out += fmt::format("{}{}", i ? "," : "", s.dims[i]);
  return out + "]";
}

// "lhs_contracting_dimensions":["1"] in a GEMM custom call's backend_config (GpuBackendConfig as
// JSON: int64 values as strings).
bool json_contracting(std::string_view config, std::vector<std::int64_t>& out) {
  std::size_t at = config.find("\"lhs_contracting_dimensions\"");
  if (at == std::string_view::npos) return false;
  std::size_t open = config.find('[', at), close = config.find(']', at);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
  std::int64_t v = -1;
  for (std::size_t i = open + 1; i < close; ++i) {
    char c = config[i];
    if (c >= '0' && c <= '9') {
      if (v < 0) v = 0;
      if (v > 1000000) return false;
      v = v * 10 + (c - '0');
    } else if (c == ',') {
      if (v < 0) return false;
      out.push_back(v);
      v = -1;
    }
  }
  if (v >= 0) out.push_back(v);
  return !out.empty();
}

bool is_gemm_call(std::string_view target) {
  return target.find("gemm") != std::string_view::npos || target.find("matmul") != std::string_view::npos ||
         target.find("Gemm") != std::string_view::npos || target.find("Matmul") != std::string_view::npos;
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

// Whether an instruction outside a fusion may launch device work: all but those that only name or
// group values, and the halves of asynchronous pairs that wait (XLA runs no kernel for them).
bool may_launch(std::string_view opcode) {
  static constexpr std::string_view kNoWork[] = {
      "parameter",      "constant",    "bitcast", "get-tuple-element", "tuple",     "after-all",
      "add-dependency", "opt-barrier", "domain",  "partition-id",      "replica-id"};
  for (std::string_view o : kNoWork)
    if (opcode == o) return false;
  return !opcode.ends_with("-done");
}

class Module {
 public:
  explicit Module(std::vector<Computation> computations) : computations_(std::move(computations)) {
    for (std::size_t i = 0; i < computations_.size(); ++i) index_[computations_[i].id] = i;
  }

  std::unordered_map<std::string, HloCost> costs() const {
    std::unordered_map<std::string, HloCost> out;
    std::vector<bool> fused = fused_computations();
    for (std::size_t i = 0; i < computations_.size(); ++i) {
      if (fused[i]) continue;
      for (const Instruction& in : computations_[i].instructions)
        if (!in.name.empty()) out.emplace(std::string(in.name), cost(in, computations_[i]));
    }
    return out;
  }

  // The instructions outside fusions that may launch device work, in each computation's order.
  HloSchedule schedule() const {
    HloSchedule out;
    std::vector<bool> fused = fused_computations();
    for (std::size_t i = 0; i < computations_.size(); ++i) {
      if (fused[i]) continue;
      const std::vector<Instruction>& list = computations_[i].instructions;
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (list[k].name.empty() || !may_launch(list[k].opcode)) continue;
        auto index = static_cast<std::uint32_t>(out.instructions.size());
        out.instructions.push_back(
            {std::string(list[k].name), static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k)});
        // Two instructions of one kernel name (fusion.1 and fusion_1): neither is known by it.
        auto [at, added] = out.by_kernel_name.try_emplace(kernel_name_of(list[k].name), index);
        if (!added) at->second = kNoInstruction;
      }
    }
    return out;
  }

 private:
  // The computations a fusion calls: their instructions run inside its kernel.
  std::vector<bool> fused_computations() const {
    std::vector<bool> fused(computations_.size(), false);
    for (const Computation& c : computations_)
      for (const Instruction& in : c.instructions)
        if (in.opcode == "fusion")
          for (std::int64_t id : in.called)
            if (auto it = index_.find(id); it != index_.end()) fused[it->second] = true;
    return fused;
  }

  const Shape* operand(const Computation& c, const Instruction& in, std::size_t k) const {
    if (k >= in.operands.size()) return nullptr;
    auto it = c.by_id.find(in.operands[k]);
    return it == c.by_id.end() ? nullptr : &c.instructions[it->second].shape;
  }

  // The FLOPs of one instruction; empty where unknown. `matrix` is set for convolutions and dots.
  std::optional<double> flops(const Instruction& in, const Computation& c, bool& matrix, int depth) const {
    const Shape& out = result_of(in);
    auto n = elements(out);
    if (in.conv) {
      matrix = true;
      const Shape *lhs = operand(c, in, 0), *rhs = operand(c, in, 1);
      if (!n || !lhs || !rhs || in.feature_groups < 1 || in.batch_groups != 1 || in.input_feature < 0 ||
          static_cast<std::size_t>(in.input_feature) >= lhs->dims.size())
        return std::nullopt;
      double per = static_cast<double>(lhs->dims[in.input_feature] / in.feature_groups);
      for (std::int64_t k : in.kernel_spatial) {
        if (k < 0 || static_cast<std::size_t>(k) >= rhs->dims.size()) return std::nullopt;
        per *= static_cast<double>(rhs->dims[k]);
      }
      return 2.0 * static_cast<double>(*n) * per;
    }
    std::vector<std::int64_t> contracting = in.lhs_contracting;
    bool gemm = in.dot || (in.opcode == "custom-call" && is_gemm_call(in.target));
    if (gemm) {
      matrix = true;
      if (!in.dot && !json_contracting(in.backend_config, contracting)) return std::nullopt;
      const Shape* lhs = operand(c, in, 0);
      if (!n || !lhs) return std::nullopt;
      double k = 1;
      for (std::int64_t d : contracting) {
        if (d < 0 || static_cast<std::size_t>(d) >= lhs->dims.size()) return std::nullopt;
        k *= static_cast<double>(lhs->dims[d]);
      }
      return 2.0 * static_cast<double>(*n) * k;
    }
    if (in.opcode == "fusion") {
      if (depth >= kMaxFusionDepth || in.called.empty()) return std::nullopt;
      auto it = index_.find(in.called.front());
      if (it == index_.end()) return std::nullopt;
      const Computation& body = computations_[it->second];
      double sum = 0;
      for (const Instruction& inner : body.instructions) {
        auto f = flops(inner, body, matrix, depth + 1);
        if (!f) return std::nullopt;
        sum += *f;
      }
      return sum;
    }
    if (elementwise(in.opcode)) return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
    if (in.opcode == "reduce") {
      const Shape* input = operand(c, in, 0);
      auto m = input ? elements(*input) : std::nullopt;
      return m ? std::optional<double>(static_cast<double>(*m)) : std::nullopt;
    }
    return 0.0;  // data movement: copies, transposes, slices, broadcasts, converts, parameters
  }

  HloCost cost(const Instruction& in, const Computation& c) const {
    HloCost out;
    out.opcode = in.target.empty() ? std::string(in.opcode) : fmt::format("{} {}", in.opcode, in.target);
    const Shape& result = result_of(in);
    out.output = fmt::format("{}{}", type_name(result.type), dims_text(result));
    std::optional<double> bytes = shape_bytes(result);
    out.input_dims = "[";
    out.input_types = "[";
    for (std::size_t k = 0; k < in.operands.size(); ++k) {
      const Shape* s = operand(c, in, k);
      auto b = s ? shape_bytes(*s) : std::nullopt;
      if (bytes && b)
        *bytes += *b;
      else
        bytes = std::nullopt;
      out.input_dims += fmt::format("{}{}", k ? "," : "", s ? dims_text(*s) : "[]");
      out.input_types += fmt::format("{}\"{}\"", k ? "," : "", s ? type_name(s->type) : "");
    }
    out.input_dims += "]";
    out.input_types += "]";
    out.bytes = bytes;
    out.flops = flops(in, c, out.matrix, 0);
    return out;
  }

  std::vector<Computation> computations_;
  std::unordered_map<std::int64_t, std::size_t> index_;
};

Module read_module(std::string_view bytes, std::uint64_t offset) {
  std::vector<Computation> computations;
  Message proto(bytes, offset);
  Field f;
  while (proto.next(f)) {
    if (f.number != 1) continue;  // hlo_module; the buffer assignment is not read
    expect(f, WireType::Bytes, "hlo_module");
    Message module = wire::nested(f);
    Field g;
    while (module.next(g)) {
      if (g.number != 3) continue;
      expect(g, WireType::Bytes, "computation");
      Computation c;
      Message comp = wire::nested(g);
      Field h;
      while (comp.next(h)) {
        if (h.number == 5) c.id = integer(h, "computation id");
        if (h.number == 2) {
          expect(h, WireType::Bytes, "instruction");
          c.instructions.push_back(read_instruction(wire::nested(h)));
        }
      }
      for (std::size_t i = 0; i < c.instructions.size(); ++i) c.by_id.emplace(c.instructions[i].id, i);
      computations.push_back(std::move(c));
    }
  }
  return Module(std::move(computations));
}

// The module's name: HloProto.hlo_module.name.
std::string_view module_name(std::string_view bytes, std::uint64_t offset) {
  Message proto(bytes, offset);
  Field f;
  while (proto.next(f)) {
    if (f.number != 1) continue;
    expect(f, WireType::Bytes, "hlo_module");
    Message module = wire::nested(f);
    Field g;
    while (module.next(g))
      if (g.number == 1) return text(g, "module name");
  }
  return {};
}

}  // namespace

void HloIndex::add(std::int64_t program_id, std::string_view bytes, std::uint64_t offset) {
  std::string_view name;
  try {
    name = module_name(bytes, offset);
  } catch (const WireError& e) {
    if (error_.empty())
      error_ = fmt::format("an HLO module could not be decoded (byte {}: {}); its ops have no cost",
                           e.offset(), e.what());
  }
  if (name.empty()) return;
  by_name_.try_emplace(std::string(name), Source{bytes, offset});
  by_id_.try_emplace(program_id, Source{bytes, offset});
}

const HloIndex::Decoded& HloIndex::decode(const Source& source) {
  auto [it, added] = decoded_.try_emplace(source.bytes.data());
  if (!added) return it->second;
  try {
    Module module = read_module(source.bytes, source.offset);
    it->second.costs = module.costs();
    it->second.schedule = module.schedule();
    it->second.ok = true;
  } catch (const WireError& e) {
    if (error_.empty())
      error_ = fmt::format("an HLO module could not be decoded (byte {}: {}); its ops have no cost",
                           e.offset(), e.what());
  }
  return it->second;
}

const HloIndex::Source* HloIndex::source(std::string_view module, std::int64_t program_id) const {
  if (auto it = by_id_.find(program_id); program_id >= 0 && it != by_id_.end()) return &it->second;
  if (auto it = by_name_.find(std::string(module)); it != by_name_.end()) return &it->second;
  return nullptr;
}

const HloCost* HloIndex::cost(std::string_view module, std::int64_t program_id, std::string_view op) {
  const Source* from = source(module, program_id);
  if (!from) return nullptr;
  const Costs& all = decode(*from).costs;
  auto it = all.find(std::string(op));
  return it == all.end() ? nullptr : &it->second;
}

const HloSchedule* HloIndex::schedule(std::string_view module, std::int64_t program_id) {
  const Source* from = source(module, program_id);
  if (!from) return nullptr;
  const Decoded& d = decode(*from);
  return d.ok ? &d.schedule : nullptr;
}

std::string kernel_name_of(std::string_view instruction) {
  std::string out(instruction);
  for (char& c : out)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$'))
      c = '_';
  if (!out.empty() && out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), '_');
  return out;
}

}  // namespace perfgate::xplane
