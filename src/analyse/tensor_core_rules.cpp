#include "analyse/tensor_core_rules.h"

namespace perfgate {
namespace {

std::vector<std::string> patterns_of(const std::vector<KernelPrecisionPattern>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.pattern);
  return out;
}

std::vector<std::string> rule_texts(const Classification& c) {
  std::vector<std::string> out;
  for (const auto& p : c.non_tensor_core_kernels) out.push_back("simt: " + p);
  for (const auto& p : c.tensor_core_kernels) out.push_back(p);
  return out;
}

// Each entry's source, as rule_texts: "" where the classification has none for it (built by hand).
std::vector<std::string> rule_sources(const Classification& c) {
  std::vector<std::string> out;
  auto add = [&](const std::vector<std::string>& patterns, const std::vector<std::string>& sources) {
    for (std::size_t i = 0; i < patterns.size(); ++i) out.push_back(i < sources.size() ? sources[i] : "");
  };
  add(c.non_tensor_core_kernels, c.non_tensor_core_kernel_sources);
  add(c.tensor_core_kernels, c.tensor_core_kernel_sources);
  return out;
}

// A verdict in one word: bit 0 set (known), bit 1 Tensor Core, bits 2-16 the rule + 1, bits 17-31
// the precision + 1 (rule lists are far shorter than 2^15).
std::int32_t pack(const TensorCoreRules::Verdict& v) {
  return 1 | (v.tensor_core ? 2 : 0) | ((v.rule + 1) << 2) | ((v.precision + 1) << 17);
}
TensorCoreRules::Verdict unpack(std::int32_t w) {
  return {(w & 2) != 0, ((w >> 2) & 0x7fff) - 1, ((w >> 17) & 0x3fff) - 1};
}

}  // namespace

TensorCoreRules::TensorCoreRules(const Classification& c)
    : simt(c.non_tensor_core_kernels, "non_tensor_core_kernels"),
      tensor_core_kernels(c.tensor_core_kernels, "tensor_core_kernels"),
      precision_patterns(patterns_of(c.kernel_precisions), "kernel_precisions"),
      rule_text(rule_texts(c)),
      rule_source(rule_sources(c)),
      simt_count(c.non_tensor_core_kernels.size()),
      precisions(c.kernel_precisions) {}

TensorCoreRules::Verdict TensorCoreRules::verdict(std::string_view name) const {
  Verdict v;
  // A yes/no match stops early; which entry matched is looked for only where one did.
  int simt_rule = simt.matches(name) ? simt.first_match(name) : -1;
  if (simt_rule >= 0) {
    v.rule = simt_rule;
  } else if (int tc = tensor_core_kernels.matches(name) ? tensor_core_kernels.first_match(name) : -1;
             tc >= 0) {
    v.tensor_core = true;
    v.rule = tc + static_cast<int>(simt_count);
  }
  // Only a matrix kernel's name sets its precision: other kernels' names carry types that are not
  // what they compute in (NCCL's ..._int8_t reductions, FP16 embedding lookups).
  if (v.rule >= 0) v.precision = precision_patterns.first_match(name);
  return v;
}

TensorCoreRules::Verdict TensorCoreMatcher::verdict(StringId name) const {
  if (name >= size_) return rules_.verdict(strings_.view(name));  // interned after the matcher was made
  std::int32_t cached = cache_[name].load(std::memory_order_relaxed);
  if (cached == 0) {
    cached = pack(rules_.verdict(strings_.view(name)));
    cache_[name].store(cached, std::memory_order_relaxed);
  }
  return unpack(cached);
}

const std::string& TensorCoreMatcher::rule_text(const TensorCoreRules::Verdict& v) const {
  static const std::string none;
  return v.rule < 0 ? none : rules_.rule_text[static_cast<std::size_t>(v.rule)];
}

const std::string& TensorCoreMatcher::rule_source(const TensorCoreRules::Verdict& v) const {
  static const std::string none;
  return v.rule < 0 ? none : rules_.rule_source[static_cast<std::size_t>(v.rule)];
}

}  // namespace perfgate
