// XLA's HLO modules as a profile's /host:metadata plane holds them (one "Hlo Proto" stat per
// module: xla/service/hlo.proto's HloProto), read for what the roofline needs of an instruction that
// ran on a device: its operands' and result's shapes and types, and its FLOPs and bytes by the
// definitions of docs/metrics.md ("XLA ops"). A module is decoded when a kernel first names it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace perfgate::xplane {

struct HloCost {
  std::string opcode;       // "convolution", "custom-call __cudnn$convForward", "fusion", ...
  std::string input_dims;   // compact JSON, as a Kineto trace writes them: [[1,16,32,60,104],[5120,16,1,2,2]]
  std::string input_types;  // ["bf16","bf16"]
  std::string output;       // bf16[1,5120,34,31,53]
  std::optional<double> flops;  // empty where a shape or an attribute the formula needs is unknown
  std::optional<double> bytes;
  bool matrix = false;  // a convolution or a dot (GEMM), alone or inside a fusion
};

class HloIndex {
 public:
  // An "Hlo Proto" stat's bytes (kept as a view: the file is held while it is read) under its
  // program id, the event metadata id that names it. Throws wire::WireError on a malformed module.
  void add(std::int64_t program_id, std::string_view bytes, std::uint64_t offset);
  // The instruction `op` of the module named `module` (or of `program_id` where it is not -1), or
  // nullptr where the profile holds no such module or instruction.
  const HloCost* cost(std::string_view module, std::int64_t program_id, std::string_view op);
  bool empty() const { return by_name_.empty(); }
  // What went wrong decoding a module, for the profile's notes (the first of them); its
  // instructions then have no cost, and the rest of the profile is read.
  const std::string& error() const { return error_; }

 private:
  struct Source {
    std::string_view bytes;
    std::uint64_t offset = 0;
  };
  using Costs = std::unordered_map<std::string, HloCost>;
  const Costs& costs(const Source& source);

  std::unordered_map<std::string, Source> by_name_;
  std::unordered_map<std::int64_t, Source> by_id_;
  std::unordered_map<const char*, Costs> decoded_;  // by the module's first byte
  std::string error_;
};

}  // namespace perfgate::xplane
