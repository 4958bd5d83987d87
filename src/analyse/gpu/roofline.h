// The roofline table (HTA-style small analyser): each op of the window by name, input dims and
// input types, with its modelled FLOPs and bytes (perf_model.h) against the time its kernels took
// and the time the same work takes at the GPU's ceilings (rules: gpu_peaks).
#pragma once

#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/gpu/xla_cost.h"
#include "analyse/ops/op_info.h"
#include "analyse/ops/op_stats.h"

namespace perfgate {

struct RooflineInputs {
  const Profile& profile;
  const OpStats& stats;
  const CompiledClassification& classification;
  ArgumentCache& args;
  const std::vector<float>& flops;  // counted_flops: MFU's counts, which the table reuses
  const std::vector<GpuMetrics>& gpus;
  XlaCosts& xla;  // the XLA ops' costs: the xla model
};

struct RooflineResult {
  std::vector<RooflineRow> rows;  // in table order (order_roofline_rows)
  RooflineSums sums;
};

// Rows are the bottom-most modelled ops (an op MFU counts is always one; linear and matmul give
// way to the GEMM they call) that no other row encloses; ops outside every row that launched GPU
// work themselves are unmodelled rows with that time.
RooflineResult roofline_table(const RooflineInputs& in);

// Most time to save at the roofline first; rows without a roofline then by kernel time;
// unmodelled rows last by kernel time; ties by key.
void order_roofline_rows(std::vector<RooflineRow>& rows);
// The time a row would save at `target_pct` of its roofline, picoseconds (0 without a roofline).
std::uint64_t saving_at(const RooflineRow& row, double target_pct);

}  // namespace perfgate
