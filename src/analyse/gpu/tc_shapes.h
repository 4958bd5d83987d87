// PyProf's Tensor Core guidance: an FP16/BF16 GEMM runs on Tensor Cores when M, N and K are
// multiples of 8, a convolution when its input and output channels are. This lists the eligible
// half-precision ops in the window that launched kernels but none on Tensor Cores, with the
// dimensions that break the rule.
#pragma once

#include "analyse/gpu/gpu_results.h"
#include "analyse/ops/op_info.h"
#include "analyse/ops/op_stats.h"

namespace perfgate {

struct TensorCoreShapeReport {
  std::vector<ShapeFindingRow> findings;  // one row per op and input shapes, misaligned or not
  std::uint64_t misaligned = 0;           // rows with a dimension that is not a multiple of 8
  std::uint64_t ops_not_using_tc = 0;     // distinct eligible op names with GPU time but no TC kernel
};

TensorCoreShapeReport tensor_core_shapes(const Profile& profile, const OpStats& stats, ArgumentCache& args);

}  // namespace perfgate
