// Which kernels run on Tensor Cores (or AMD matrix cores), which rule decided it, and the precision
// a matrix kernel computes in: the rules' non_tensor_core_kernels (SIMT kernels, checked first),
// tensor_core_kernels and kernel_precisions, compiled once per run and memoised per interned name.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "knowledge/classification.h"
#include "knowledge/pattern_set.h"
#include "model/profile.h"

namespace perfgate {

struct TensorCoreRules {
  explicit TensorCoreRules(const Classification& c);
  // The decision for one kernel name: a SIMT pattern first (never Tensor Core work), then a Tensor
  // Core pattern; `rule` indexes rule_text (-1: no pattern matched, not Tensor Core work).
  struct Verdict {
    bool tensor_core = false;
    int rule = -1;
    int precision = -1;  // index into precisions; -1: the name does not say
  };
  Verdict verdict(std::string_view kernel_name) const;
  bool tensor_core(std::string_view kernel_name) const { return verdict(kernel_name).tensor_core; }

  PatternSet simt;
  PatternSet tensor_core_kernels;
  PatternSet precision_patterns;
  std::vector<std::string> rule_text;  // "simt: <pattern>" per SIMT entry, then each TC entry's pattern
  // As rule_text: each entry's `source:` in the rule files, "" where it names none.
  std::vector<std::string> rule_source;
  std::size_t simt_count = 0;
  std::vector<KernelPrecisionPattern> precisions;
};

// TensorCoreRules' answers for the names of one profile, cached per interned name (safe to share
// between threads like NameMatcher: each answer is one relaxed atomic word, written identically).
class TensorCoreMatcher {
 public:
  TensorCoreMatcher(const TensorCoreRules& rules, const StringPool& strings)
      : rules_(rules),
        strings_(strings),
        size_(strings.size()),
        cache_(std::make_unique<std::atomic<std::int32_t>[]>(strings.size())) {}
  bool operator()(StringId name) const { return verdict(name).tensor_core; }
  TensorCoreRules::Verdict verdict(StringId name) const;
  // The deciding pattern ("" where none matched) and the name's precision entry (nullptr: unsaid).
  const std::string& rule_text(const TensorCoreRules::Verdict& v) const;
  const std::string& rule_source(const TensorCoreRules::Verdict& v) const;  // "" where none
  const KernelPrecisionPattern* precision(const TensorCoreRules::Verdict& v) const {
    return v.precision < 0 ? nullptr : &rules_.precisions[static_cast<std::size_t>(v.precision)];
  }

 private:
  const TensorCoreRules& rules_;
  const StringPool& strings_;
  std::size_t size_;
  std::unique_ptr<std::atomic<std::int32_t>[]> cache_;  // 0 unknown, else the packed verdict
};

}  // namespace perfgate
