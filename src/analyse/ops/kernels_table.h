// DLProf's kernel views over the kernels that started in the window: by kernel, by kernel and
// launching op, the top kernels of each window step and of each op.
#pragma once

#include "analyse/analysis_fwd.h"
#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

inline constexpr std::size_t kTopKernelsPerStep = 10;
inline constexpr std::size_t kTopKernelsPerOp = 5;

// `fused`: the ops a compiled kernel's name lists (compiled_kernels.h), for its rows. `table_rows`:
// the rows of kernels_by_iteration kept, the others' totals set aside (AnalysisOptions::table_rows).
// `detailed`: false for a worker its run will not detail: the kernels by name alone (the run sums
// them), not the tables it would let go.
void build_kernel_tables(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                         const FusedNames& fused, const StepDetection& steps, const Window& window,
                         std::size_t table_rows, WorkerTables& out, bool detailed = true);

}  // namespace perfgate
