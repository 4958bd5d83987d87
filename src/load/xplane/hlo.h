// XLA's HLO modules as a profile's /host:metadata plane holds them (one "Hlo Proto" stat per
// module: xla/service/hlo.proto's HloProto), read into the profile model's facts of each
// instruction (model/xla_hlo.h: opcode, shapes and types, dimension numbers, called computations),
// which the cost model of XLA ops reads (analyse/gpu/xla_cost.h); and, for the reader, each
// module's instructions by name and the schedule of those that launch device work. A module is
// decoded when a kernel first names it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/profile.h"
#include "model/xla_hlo.h"

namespace perfgate::xplane {

// An instruction that can launch device work (a fusion, a custom call, a collective, a copy), as a
// command buffer's kernels are matched to it (command_buffers.cpp): by the name XLA gives a fusion's
// kernel, and by its place in its computation's schedule.
struct HloLaunching {
  std::string name;               // "fusion.93"
  std::uint32_t computation = 0;  // its computation, as the module lists them
  std::uint32_t position = 0;     // its place in that computation's instruction order (the schedule)
};

inline constexpr std::uint32_t kNoInstruction = 0xffffffffu;

struct HloSchedule {
  // Each computation's instructions together, in its order.
  std::vector<HloLaunching> instructions;
  // Each instruction by its kernel's name: the instruction's name as llvm_ir::SanitizeFunctionName
  // writes it (every character but letters, digits, '_' and '$' as '_'; a leading digit gets '_');
  // kNoInstruction where two instructions have the one name.
  std::unordered_map<std::string, std::uint32_t> by_kernel_name;
};

// The name XLA gives the kernel it generates for `instruction` (xla/service/llvm_ir/llvm_util.cc).
std::string kernel_name_of(std::string_view instruction);

// An instruction's operands as a Kineto trace writes an op's (compact JSON): their dimensions
// ([[1,16,32,60,104],[5120,16,1,2,2]]) and XLA's names of their element types (["bf16","bf16"]).
struct HloOperandText {
  std::string dims;
  std::string types;
};

class HloIndex {
 public:
  // Opcodes and custom-call targets are interned in `strings` (the profile's pool).
  explicit HloIndex(StringPool& strings);
  // An "Hlo Proto" stat's bytes (kept as a view: the file is held while it is read) under its
  // program id, the event metadata id that names it. Throws wire::WireError on a malformed module.
  void add(std::int64_t program_id, std::string_view bytes, std::uint64_t offset);
  // The instruction `op`, outside fused computations, of the module named `module` (or of
  // `program_id` where it is not -1), as an index into the model's instructions; kNone where the
  // profile holds no such module or instruction.
  std::uint32_t instruction(std::string_view module, std::int64_t program_id, std::string_view op);
  // The module's instructions that launch device work, or nullptr where the profile holds no such
  // module (or it could not be decoded).
  const HloSchedule* schedule(std::string_view module, std::int64_t program_id);
  HloOperandText operand_text(std::uint32_t instruction) const;
  bool empty() const { return by_name_.empty(); }
  // What went wrong decoding a module, for the profile's notes (the first of them: where in the
  // module, and why); its instructions then have no cost, and the rest of the profile is read.
  struct DecodeError {
    std::uint64_t byte = 0;
    std::string reason;
  };
  const std::optional<DecodeError>& error() const { return error_; }
  // The facts of every module decoded so far; the XLA ops are the builder's to add.
  XlaHlo& model() { return *model_; }
  std::size_t memory_bytes() const { return model_ ? model_->memory_bytes() : 0; }
  std::shared_ptr<XlaHlo> take_model() { return std::move(model_); }

 private:
  struct Source {
    std::string_view bytes;
    std::uint64_t offset = 0;
  };
  struct Decoded {
    std::unordered_map<std::string, std::uint32_t> by_name;  // into the model's instructions
    HloSchedule schedule;
    bool ok = false;
  };
  const Source* source(std::string_view module, std::int64_t program_id) const;
  const Decoded& decode(const Source& source);

  StringPool& strings_;
  std::shared_ptr<XlaHlo> model_ = std::make_shared<XlaHlo>();
  std::unordered_map<std::string, Source> by_name_;
  std::unordered_map<std::int64_t, Source> by_id_;
  std::unordered_map<const char*, Decoded> decoded_;  // by the module's first byte
  std::optional<DecodeError> error_;
};

}  // namespace perfgate::xplane
