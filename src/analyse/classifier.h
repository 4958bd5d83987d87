// Kernel and op classes from the rules' classification patterns: compiled once per run,
// memoised per interned name for each profile.
#pragma once

#include "analyse/pattern_set.h"
#include "perfgate/analysis.h"

namespace perfgate {

struct CompiledClassification {
  explicit CompiledClassification(const Classification& c);
  PatternSet tensor_core_kernels;
  PatternSet eligible_ops;
  PatternSet communication_kernels;
  PatternSet communication_ops;
  PatternSet dataloader_ops;
  bool attribute_by_time_containment = true;
};

struct NameClasses {
  NameClasses(const CompiledClassification& c, const Profile& p)
      : tensor_core_kernel(c.tensor_core_kernels, p.strings),
        eligible_op(c.eligible_ops, p.strings),
        communication_kernel(c.communication_kernels, p.strings),
        communication_op(c.communication_ops, p.strings),
        dataloader_op(c.dataloader_ops, p.strings) {}
  NameMatcher tensor_core_kernel;
  NameMatcher eligible_op;
  NameMatcher communication_kernel;
  NameMatcher communication_op;
  NameMatcher dataloader_op;
};

}  // namespace perfgate
