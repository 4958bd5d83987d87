// How the run parallelises: DataParallel, DistributedDataParallel and NCCL ops in the window
// (the TensorBoard plugin's use_dp, use_ddp and comm_lib).
#pragma once

#include "analyse/classifier.h"
#include "analyse/communication/communication_results.h"
#include "analyse/ops/op_stats.h"

namespace perfgate {

ParallelismSums parallelism(const Profile& profile, const OpStats& stats, NameClasses& classes);

}  // namespace perfgate
