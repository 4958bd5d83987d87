// Each GPU's architecture (rules: gpu_architectures): by its device name when the trace
// describes it, else inferred from the names of the kernels it ran (PyTorch <= 1.9 wrote no
// deviceProperties), so that architecture-dependent rules (Tensor Cores) still apply.
#pragma once

#include <string>
#include <vector>

#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"

namespace perfgate {

// Fills architecture (and, when inferred, the compute capability) of each GPU; a GPU the trace
// does not describe takes the one device it lists, if it lists exactly one. Says what it
// inferred or assumed in `warnings`.
void describe_architectures(const Profile& p, const CompiledClassification& c, std::vector<GpuMetrics>& gpus,
                            std::vector<Note>& warnings);

}  // namespace perfgate
