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
#include <span>
#include <vector>

#include <fmt/format.h>

#include "load/xplane/wire.h"

namespace perfgate::xplane {
namespace {

using wire::Field;
using wire::Message;
using wire::WireError;
using wire::WireType;

constexpr int kMaxTupleDepth = 4;          // nested tuple shapes read
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
    if (f.number == 3 && out.dims.size() <= kHloMaxRank) ints(f, out.dims, "dimensions");
    if (f.number == 4) {
      expect(f, WireType::Bytes, "tuple shape");
      if (depth < kMaxTupleDepth && out.tuple.size() < kMaxList)
        out.tuple.push_back(read_shape(wire::nested(f), depth + 1));
    }
  }
  if (out.dims.size() > kHloMaxRank) out.type = kHloTooManyDimensions;
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

std::string dims_text(std::span<const std::int64_t> dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += fmt::format("{}{}", i ? "," : "", dims[i]);
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

HloRange add_dims(XlaHlo& model, const std::vector<std::int64_t>& dims) {
  HloRange out{static_cast<std::uint32_t>(model.dims.size()), static_cast<std::uint32_t>(dims.size())};
  model.dims.insert(model.dims.end(), dims.begin(), dims.end());
  return out;
}

// Shape `s` into the model's shapes at `at`, a tuple's shapes side by side after it.
void put_shape(XlaHlo& model, std::size_t at, const Shape& s) {
  HloShape out;
  out.element_type = s.type;
  out.dims = add_dims(model, s.dims);
  out.tuple = {static_cast<std::uint32_t>(model.shapes.size()), static_cast<std::uint32_t>(s.tuple.size())};
  model.shapes.resize(model.shapes.size() + s.tuple.size());
  model.shapes[at] = out;
  for (std::size_t k = 0; k < s.tuple.size(); ++k) put_shape(model, out.tuple.first + k, s.tuple[k]);
}

std::uint32_t add_shape(XlaHlo& model, const Shape& s) {
  std::size_t at = model.shapes.size();
  model.shapes.emplace_back();
  put_shape(model, at, s);
  return static_cast<std::uint32_t>(at);
}

class Module {
 public:
  explicit Module(std::vector<Computation> computations) : computations_(std::move(computations)) {
    for (std::size_t i = 0; i < computations_.size(); ++i) index_[computations_[i].id] = i;
  }

  // Appends the module's facts to `model` (opcodes and targets interned in `strings`); returns its
  // instructions outside fused computations by name (the first of a name), as model indices.
  std::unordered_map<std::string, std::uint32_t> add_to(XlaHlo& model, StringPool& strings) const {
    auto base = static_cast<std::uint32_t>(model.computations.size());
    std::vector<std::uint32_t> first(computations_.size());
    std::size_t total = model.instructions.size();
    for (std::size_t i = 0; i < computations_.size(); ++i) {
      first[i] = static_cast<std::uint32_t>(total);
      total += computations_[i].instructions.size();
    }
    if (total >= kNone) throw WireError("an HLO module holds more than 2^32 instructions", 0);
    for (std::size_t i = 0; i < computations_.size(); ++i) {
      const Computation& c = computations_[i];
      model.computations.push_back({{first[i], static_cast<std::uint32_t>(c.instructions.size())}});
      for (const Instruction& in : c.instructions) {
        HloInstruction out = facts(model, strings, in);
        out.operands = {static_cast<std::uint32_t>(model.operands.size()),
                        static_cast<std::uint32_t>(in.operands.size())};
        for (std::int64_t id : in.operands) {
          auto it = c.by_id.find(id);
          model.operands.push_back(it == c.by_id.end() ? kNone
                                                       : first[i] + static_cast<std::uint32_t>(it->second));
        }
        if (!in.called.empty())
          if (auto it = index_.find(in.called.front()); it != index_.end())
            out.called = base + static_cast<std::uint32_t>(it->second);
        model.instructions.push_back(out);
      }
    }
    std::unordered_map<std::string, std::uint32_t> by_name;
    std::vector<bool> fused = fused_computations();
    for (std::size_t i = 0; i < computations_.size(); ++i) {
      if (fused[i]) continue;
      const std::vector<Instruction>& list = computations_[i].instructions;
      for (std::size_t k = 0; k < list.size(); ++k)
        if (!list[k].name.empty())
          by_name.emplace(std::string(list[k].name), first[i] + static_cast<std::uint32_t>(k));
    }
    return by_name;
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

  // What an instruction states of itself; its operands and called computation are resolved by
  // add_to.
  static HloInstruction facts(XlaHlo& model, StringPool& strings, const Instruction& in) {
    HloInstruction out;
    out.opcode = strings.intern(in.opcode);
    out.target = in.target.empty() ? kNoString : strings.intern(in.target);
    out.shape = add_shape(model, in.shape);
    out.convolution = in.conv;
    out.dot = in.dot;
    out.input_feature = in.input_feature;
    out.feature_groups = in.feature_groups;
    out.batch_groups = in.batch_groups;
    out.kernel_spatial = add_dims(model, in.kernel_spatial);
    if (in.dot) {
      out.contracting_known = true;
      out.contracting = add_dims(model, in.lhs_contracting);
    } else if (in.opcode == "custom-call") {
      std::vector<std::int64_t> contracting;
      out.contracting_known = json_contracting(in.backend_config, contracting);
      if (out.contracting_known) out.contracting = add_dims(model, contracting);
    }
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

HloIndex::HloIndex(StringPool& strings) : strings_(strings) {}

void HloIndex::add(std::int64_t program_id, std::string_view bytes, std::uint64_t offset) {
  std::string_view name;
  try {
    name = module_name(bytes, offset);
  } catch (const WireError& e) {
    if (!error_) error_ = DecodeError{e.offset(), e.what()};
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
    it->second.by_name = module.add_to(*model_, strings_);
    it->second.schedule = module.schedule();
    it->second.ok = true;
  } catch (const WireError& e) {
    if (!error_) error_ = DecodeError{e.offset(), e.what()};
  }
  return it->second;
}

const HloIndex::Source* HloIndex::source(std::string_view module, std::int64_t program_id) const {
  if (auto it = by_id_.find(program_id); program_id >= 0 && it != by_id_.end()) return &it->second;
  if (auto it = by_name_.find(std::string(module)); it != by_name_.end()) return &it->second;
  return nullptr;
}

std::uint32_t HloIndex::instruction(std::string_view module, std::int64_t program_id, std::string_view op) {
  const Source* from = source(module, program_id);
  if (!from) return kNone;
  const Decoded& d = decode(*from);
  auto it = d.by_name.find(std::string(op));
  return it == d.by_name.end() ? kNone : it->second;
}

const HloSchedule* HloIndex::schedule(std::string_view module, std::int64_t program_id) {
  const Source* from = source(module, program_id);
  if (!from) return nullptr;
  const Decoded& d = decode(*from);
  return d.ok ? &d.schedule : nullptr;
}

HloOperandText HloIndex::operand_text(std::uint32_t instruction) const {
  const XlaHlo& m = *model_;
  HloOperandText out{"[", "["};
  std::size_t k = 0;
  for (std::uint32_t operand : m.operands_of(m.instructions[instruction])) {
    const HloShape* s = operand == kNone ? nullptr : &m.shapes[m.instructions[operand].shape];
    out.dims += fmt::format("{}{}", k ? "," : "", s ? dims_text(m.dims_of(s->dims)) : "[]");
    out.types += fmt::format("{}\"{}\"", k ? "," : "", s ? type_name(s->element_type) : "");
    ++k;
  }
  out.dims += "]";
  out.types += "]";
  return out;
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
