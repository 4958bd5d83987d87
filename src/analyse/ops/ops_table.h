// DLProf's "Ops and Kernels" and "Op Type Summary" and the plugin's operator view, over the ops
// called during the window's steps (Window::host_start to host_end); and the user regions
// (record_function / NVTX-like ranges).
#pragma once

#include "analyse/analysis_fwd.h"
#include "analyse/classifier.h"
#include "analyse/intervals.h"
#include "analyse/ops/op_info.h"
#include "analyse/ops/op_results.h"
#include "analyse/ops/op_stats.h"

namespace perfgate {

struct OpTableInputs {
  const Profile& profile;
  const Attribution& attribution;
  const OpStats& stats;
  const CompiledClassification& classification;
  NameClasses& classes;
  ArgumentCache& args;
  const std::vector<float>& flops;
  const std::vector<std::uint32_t>& step_markers;
  Interval window;
};

// `detailed`: false for a worker its run will not detail: the ops by name alone (the run sums them),
// not the tables it would let go.
void build_op_tables(const OpTableInputs& in, WorkerTables& out, bool detailed = true);
std::vector<RegionRow> build_regions(const OpTableInputs& in);

// The range whose self time a runtime call takes (the op tables' self host time: minus every range
// directly inside and the op's own runtime calls): kNone for no range's. `owner`: the call's
// (Attribution::runtime_owner).
std::uint32_t self_time_holder(const Profile& p, HostEventCursor& before, std::uint32_t owner,
                               const RuntimeCall& call);

}  // namespace perfgate
