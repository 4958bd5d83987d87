// Reading what the trace says about an op or a kernel: input shapes and types, scalar arguments,
// call stacks, module paths, and readable kernel names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "knowledge/pattern_set.h"
#include "model/profile.h"

namespace perfgate {

using Dims = std::vector<std::int64_t>;

// "void at::native::foo_kernel<4, bar>(int, float*)" -> "at::native::foo_kernel"; mangled names are
// demangled first; a generic wrapper keeps its first template argument ("cutlass::Kernel<x_gemm>").
std::string short_kernel_name(std::string_view name);

// short_kernel_name of interned names, each name demangled and cut once: a timeline's boxes repeat
// a few kernels (a 1,000-character CUTLASS signature demangled per box was 4.6% of an H100
// serving trace's instructions).
class ShortKernelNames {
 public:
  explicit ShortKernelNames(const Profile& p) : p_(p) {}
  const std::string& operator()(StringId name) {
    auto [it, inserted] = names_.try_emplace(name);
    if (inserted) it->second = short_kernel_name(p_.str(name));
    return it->second;
  }

 private:
  const Profile& p_;
  std::unordered_map<StringId, std::string> names_;
};

// An op call as the cost models read it: its name and its argument texts (interned, so equal ids
// are equal texts). Calls with one key have one cost: the models' results are cached by it (an op
// runs with a few shapes thousands of times).
struct CallKey {
  StringId name = kNoString;
  StringId dims = kNoString;
  StringId types = kNoString;
  StringId scalars = kNoString;
  bool operator==(const CallKey&) const = default;
};
struct CallKeyHash {
  std::size_t operator()(const CallKey& k) const noexcept {
    std::uint64_t a = std::uint64_t{k.name} << 32 | k.dims, b = std::uint64_t{k.types} << 32 | k.scalars;
    return static_cast<std::size_t>((a * 0x9E3779B97F4A7C15ULL) ^ (b + 0x632BE59BD9B4E019ULL + (a >> 29)));
  }
};

// Parsed "Input Dims", "Input type" and "Concrete Inputs" texts, cached per interned string.
class ArgumentCache {
 public:
  explicit ArgumentCache(const Profile& p) : p_(p) {}
  const std::vector<Dims>& dims(StringId input_dims);      // one entry per input; [] for non-tensors
  const std::vector<std::string>& strings(StringId list);  // "Input type" and "Concrete Inputs"
  // Integers of a scalar-list argument written as text, e.g. "[2, 2]" -> {2, 2}.
  static Dims integers(std::string_view text);

 private:
  const Profile& p_;
  std::unordered_map<StringId, std::vector<Dims>> dims_;
  std::unordered_map<StringId, std::vector<std::string>> strings_;
};

// Distinct tensor element types among the inputs ("float", "c10::Half"), joined by ", ".
std::string tensor_types(const std::vector<std::string>& input_types);

enum class Precision { Unknown, Fp64, Fp32, Fp16, Bf16, Fp8, Int8 };
Precision precision_of(std::string_view type);  // "c10::BFloat16" -> Bf16
const char* precision_name(Precision p);        // "bf16"
std::string_view first_tensor_type(const std::vector<std::string>& input_types);

// The op's call stack: the trace's "Call stack", else its enclosing Python frames, innermost first.
std::string call_stack(const Profile& p, std::size_t event);
// The innermost frame of a call stack (frames separated by ';') that no library pattern matches
// (rules: library_frames): where the user's code called in; "" when every frame is a library's.
std::string user_frame(std::string_view stack, const PatternSet& library_frames);
// The nn.Module path of the enclosing "nn.Module: X" Python frames, outermost first ("Net.Linear_0").
std::string module_path(const Profile& p, std::size_t event);

}  // namespace perfgate
