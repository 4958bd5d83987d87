// FLOPs per op and the compute metrics (achieved TFLOP/s, MFU).
#pragma once

#include "analyse/classifier.h"
#include "analyse/op_info.h"
#include "analyse/op_stats.h"

namespace perfgate {

// Per host event: the FLOPs it is counted for, 0 when none. Only the bottom-most ops with a count
// are counted (aten::linear's aten::addmm, not both), only ops that started in the window.
std::vector<float> counted_flops(const Profile& profile, const OpStats& stats, ArgumentCache& args);

// The precision an op ran at, for the peak to compare with: its first input tensor's type, with
// FP32 ops whose kernels ran on Tensor Cores counted as TF32.
std::string op_precision(const Profile& profile, const OpStats& stats, ArgumentCache& args,
                         std::size_t event);

ComputeSums compute_sums(const Profile& profile, const OpStats& stats, ArgumentCache& args,
                         const std::vector<float>& flops, const CompiledClassification& classification,
                         const std::vector<GpuMetrics>& gpus);

}  // namespace perfgate
