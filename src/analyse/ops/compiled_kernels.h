// TorchInductor's compiled code (docs/metrics.md, "Compiled code"): the ATen ops a generated
// kernel's name lists, what they make (rules: fused_patterns), the FLOPs of a Triton GEMM template
// from its launch's recorded input shapes, and the compiled region that ran each kernel range. All
// from the rules' data (compiled_kernels, compiled_regions, aten_ops, fused_patterns); each name is
// parsed once per profile, never per event.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyse/name_matcher.h"
#include "analyse/ops/op_info.h"
#include "analyse/ops/op_shapes.h"
#include "knowledge/classification.h"

namespace re2 {
class RE2;
}

namespace perfgate {

// A kernel Inductor generated, as its name says.
struct FusedKernel {
  std::string kind;                       // "poi", "red", "per", "tem", "for"
  std::vector<std::string> ops;           // the ATen ops its name lists, in the name's order
  std::vector<std::string> unparsed;      // parts of the list that name no op of the rules' aten_ops
  const FusedPattern* pattern = nullptr;  // what the ops make (rules: fused_patterns); none known
  // "add, mean, mul, pow, rsqrt", then "; unparsed: foo" where parts were not read; "" without ops.
  std::string ops_text() const;
};

// The rules' compiled-kernel data, compiled once per run.
class FusedNames {
 public:
  // Throws ConfigError for a compiled_kernels pattern that does not compile or lacks its two groups.
  explicit FusedNames(const Classification& c);
  FusedNames(FusedNames&&) noexcept;
  ~FusedNames();

  // The kernel `name` names (the whole name matches a compiled_kernels pattern), else empty.
  std::optional<FusedKernel> parse(std::string_view name) const;

 private:
  std::vector<std::unique_ptr<re2::RE2>> names_;
  std::vector<std::string> ops_;  // aten_ops
  std::vector<FusedPattern> patterns_;
};

// Each name of one profile parsed once, on first use. Not shared between threads: each analysis
// that reads names keeps its own.
class FusedNameCache {
 public:
  FusedNameCache(const FusedNames& names, const Profile& profile) : names_(names), profile_(profile) {}
  const FusedKernel* operator()(StringId name);

 private:
  const FusedNames& names_;
  const Profile& profile_;
  std::unordered_map<StringId, std::optional<FusedKernel>> known_;
};

// The problem size of a GEMM template's launch (a kernel whose pattern has model gemm) from its
// recorded input shapes, the kernel's arguments: the two operands, the output and any epilogue
// input, in an order that varies. It is the one (batch, M, N, K) that an operand A [(B,) M, K]
// followed by an operand B [(B,) K, N], with an output [(B,) M, N] among the other arguments, give;
// empty where no such triple is recorded or where different ones are (never guessed). Rank 3 for
// bmm and baddbmm, else 2.
std::optional<GemmShape> template_gemm_shape(const FusedKernel& kernel, const std::vector<Dims>& inputs);
// 2·B·M·N·K of that shape (the epilogue's additions and activations are not counted).
std::optional<double> template_gemm_flops(const FusedKernel& kernel, const std::vector<Dims>& inputs);

// Compiled-kernel ranges that sit beside a compiled region on its thread instead of under it (a
// range that starts inside the region and ends after it, or that follows it with no other op in
// between): each such range, in event order, with the region that ran it. The op tables add their
// GPU time to the region's.
struct AdoptedRange {
  std::uint32_t range = kNone;
  std::uint32_t region = kNone;
};
class OpStats;
std::vector<AdoptedRange> ranges_beside_regions(const Profile& profile, const OpStats& stats,
                                                const NameMatcher& compiled_kernel,
                                                const NameMatcher& compiled_region);

}  // namespace perfgate
