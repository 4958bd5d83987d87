// The critical path of each step (critical_path.h) and the job's through its collectives
// (job_critical_path.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyse/timeline/timeline_results.h"
#include "model/profile.h"

namespace perfgate {

// What bounds a step on its critical path (HTA's bound_by classes, docs/metrics.md "Critical path").
enum class PathBound : std::uint8_t {
  Cpu,             // host ops and runtime calls (cpu_bound)
  DataLoading,     // host ops under a DataLoader op (rules: dataloader_ops)
  LaunchOverhead,  // from a launch call's start to its kernel's start (gpu_kernel_launch_overhead)
  KernelGap,       // between two kernels of a stream (gpu_kernel_kernel_overhead)
  GpuCompute,      // kernels, memcpy and memset (gpu_compute_bound)
  Communication,   // communication kernels (gpu_communication_bound)
};
inline constexpr std::size_t kPathBounds = 6;
using PathSplit = std::array<TimeNs, kPathBounds>;
const char* path_bound_name(PathBound bound);  // HTA's: "cpu_bound", "data_loading", ...

// One window step's critical path (a row of the critical_path table).
inline constexpr std::size_t kPathTopOps = 3;

struct CriticalPathStep {
  std::string step;                    // "ProfilerStep#12"; the window's name without steps
  std::optional<std::int64_t> number;  // the step's number
  // The step as perfgate analyses it, its step time (Step::start to Step::end: from its host start,
  // or the previous step's end where the GPU runs behind, to the end of its GPU work; the window
  // without steps), never below the path's length. The path is built over the host range alone;
  // its shares (`*_step_pct`) divide this span.
  TimeNs span = 0;
  TimeNs length = 0;                 // the longest path's length
  PathSplit by{};                    // the length by what bounds it
  std::uint32_t events = 0;          // events with time on the path
  std::uint32_t short_launches = 0;  // launch calls under 1 us once rounded: off the graph with their work
  // The ops, calls and GPU activities (by name) with most time on this step's path, most first (at
  // most kPathTopOps): what bounds the step.
  std::vector<std::pair<std::string, TimeNs>> top_ops;
};

// An op, runtime call or GPU activity (by name) with time on the critical path, summed over steps.
struct CriticalPathOpRow {
  std::string name;
  PathBound bound = PathBound::Cpu;
  TimeNs time = 0;
  // `time` over the paths' steps (CriticalPathSums::steps; a unit's rows: its one path), as
  // critical_path.length_us is the paths' length over them: what a finding quotes beside that
  // length, so a name's share of a step reads as one (a100_nccl's finding read "191.17 ms per
  // step ... aten::empty (50.47 ms)": 50.47 ms over three steps).
  TimeNs time_per_step = 0;
  std::uint64_t calls = 0;  // its calls with time on a path
  std::uint32_t steps = 0;  // steps whose path it is on
};

struct CriticalPathSums {
  std::vector<CriticalPathStep> steps;  // the window's steps in order
  std::vector<CriticalPathOpRow> ops;   // most time first, at most kCriticalPathOps
  // The path of the step the timeline shows, in the timeline's lanes and time (relative to its
  // step's start): a box per stretch of one event, kind its PathBound's name.
  std::vector<TimelineBox> timeline;
  std::uint64_t graph_cycles = 0;  // steps whose graph had a cycle (broken; docs/metrics.md)
  // Where the window marks no steps but repeats a unit (inferred iterations, issue 74): each unit's
  // path as a step's over its host range (CriticalPathStep::step: the unit's opening range's name),
  // and the ops on it, most time first; bounded by kCriticalPathUnits and kCriticalPathUnitOps
  // (critical_path.h). What the gate differences over the units both runs have.
  std::vector<CriticalPathStep> units;
  std::vector<std::vector<CriticalPathOpRow>> unit_ops;  // as `units`
};

// The job's critical path of one step through its collectives (docs/metrics.md, "Job critical
// path"): a collective ends when its last rank arrives (plus its transfer), so the late rank's work
// before it is on the job's path.
struct JobPathStep {
  std::int64_t step = 0;  // the step's number (ProfilerStep#N)
  TimeNs length = 0;
  TimeNs communication = 0;  // the collectives' transfers on the path
  std::uint32_t collectives = 0;
  std::vector<TimeNs> decided;  // per worker (RunAnalysis::workers order): its time on the path
};

}  // namespace perfgate
