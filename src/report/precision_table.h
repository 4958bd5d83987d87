// The Tensor Core kernel time of a worker by the precision its kernels' names state (rules:
// kernel_precisions): which formats the matrix work ran in.
#pragma once

#include "analyse/gpu/gpu_results.h"
#include "report_model/report.h"

namespace perfgate {

ReportTable tc_precision_table(const TensorCoreSums& sums);

}  // namespace perfgate
