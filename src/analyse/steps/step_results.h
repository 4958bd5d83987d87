// Steps and the aggregation window: which host ranges are steps, which steps the window keeps, and
// each step's time split (steps.h, window.h, breakdown.h, resources.h, iterations.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/step_time_split.h"
#include "model/profile.h"

namespace perfgate {

enum class StepSource { ProfilerStep, StepPattern, KeyOp, Inferred, None };
const char* step_source_name(StepSource source);

using Breakdown = std::array<TimeNs, kBreakdownParts>;     // by BreakdownPart
using ResourceSplit = std::array<TimeNs, kResourceParts>;  // by ResourcePart

struct Step {
  std::string name;
  std::optional<std::int64_t> number;  // N of ProfilerStep#N, or the key-op occurrence index
  TimeNs host_start = 0;
  TimeNs host_end = 0;
  TimeNs start = 0;  // max(previous step end, host start)
  TimeNs end = 0;    // max(host end, end of the last GPU activity launched inside the host span)
  std::uint32_t gpu_activities = 0;  // launched by runtime calls inside the host span
  // That work on the GPU's clock: its first start and last end (equal: it launched nothing).
  TimeNs gpu_first_start = 0;
  TimeNs gpu_last_end = 0;
  bool in_window = false;
  Breakdown breakdown{};  // filled for steps in the window
  TimeNs duration() const { return end - start; }
};

struct DroppedStep {
  std::string name;
  std::string reason;
};

// Iterations inferred from a worker's repeating top-level ranges (inferred.h).
enum class InferredKind : std::uint8_t { Annotation, Op };
const char* inferred_kind_name(InferredKind kind);  // "annotation", "op"

// One name's work inside an inferred unit (unit_work.h): an op's GPU and host self time, a
// region's GPU and host time, a kernel's time (host: 0), and its calls.
struct UnitWorkRow {
  std::string name;
  TimeNs gpu = 0;
  TimeNs host = 0;
  std::uint64_t calls = 0;
};

// The work inside an inferred unit (issue 95): what its thread called and launched between its
// opening and the next, by name, each list in name order. `counted`: the unit starts in the
// window's host span (a unit outside it has no work counted). `gpu_idle`: over the unit's span, the
// time each GPU of the worker ran no kernel, copy or set, summed over those GPUs (as gpu.idle_pct
// of a span times the GPUs).
struct UnitWork {
  bool counted = false;
  std::vector<UnitWorkRow> ops, regions, kernels;
  TimeNs gpu_idle = 0;
};

struct InferredUnit {
  std::string name;  // the opening range's own name
  TimeNs start = 0;  // its start
  TimeNs end = 0;    // the next occurrence's start
};

struct InferredIterations {
  std::string family;  // the opening ranges' name with each run of digits as '#'
  InferredKind kind = InferredKind::Annotation;
  std::string key_op;               // a --key-op regex that matches the family's names
  std::uint32_t thread = 0;         // the thread whose ranges open the units
  std::vector<InferredUnit> units;  // the qualifying run, in time order
  std::uint32_t set_aside = 0;      // units before or after the run (a warm-up, a checkpoint)
  double work_per_unit = 0;         // the run's median work a unit
  bool host_work = false;           // work counted as host ranges: the thread launched no GPU work
};

struct StepDetection {
  StepSource source = StepSource::None;
  std::vector<Step> steps;  // kept steps, in time order
  std::vector<DroppedStep> dropped;
  std::vector<std::uint32_t> marker_events;  // host events that define steps (not CPU work)
  TimeNs whole_trace_start = 0;              // the window when there are no steps
  TimeNs whole_trace_end = 0;
  TimeNs whole_trace_host_start = 0;  // ... where its host side (the CPU ops' span) begins
  // Where no step is marked (or with --step-pattern inferred): the repeating structure found.
  std::optional<InferredIterations> inferred;
};

struct Window {
  TimeNs start = 0;
  TimeNs end = 0;
  // The window's steps on the host: from the first one's host start to the last one's host end
  // (no steps: from the CPU ops' first start to `end`). The GPU can run behind the host (work queued
  // before the capture), so a step's ops may start before `start`, and the next step's before
  // `end`: host calls belong to the window by this span, GPU activities by [start, end).
  TimeNs host_start = 0;
  TimeNs host_end = 0;
  std::vector<std::size_t> steps;  // indices of the steps in the window
  std::optional<std::int64_t> first_number;
  std::optional<std::int64_t> last_number;
  // The whole capture, whatever the window (set_capture_spans, window.h): first start to last end
  // of any event the trace recorded, and of its GPU activities alone (kernels, memcpy, memset, any
  // GPU). Equal ends: nothing recorded, no GPU activity.
  TimeNs capture_start = 0;
  TimeNs capture_end = 0;
  TimeNs gpu_start = 0;
  TimeNs gpu_end = 0;
  TimeNs length() const { return end - start; }
};

// The window's step time by the serving phase its steps' names state (rules: serving_phases).
struct ServingPhases {
  TimeNs decode = 0;
  TimeNs prefill = 0;
  TimeNs mixed = 0;
  TimeNs steps = 0;  // every window step, with a phase or not
  ServingPhases& operator+=(const ServingPhases& from) {
    add_time(decode, from.decode);
    add_time(prefill, from.prefill);
    add_time(mixed, from.mixed);
    add_time(steps, from.steps);
    return *this;
  }
};

struct IterationRow {
  std::string name;
  std::optional<std::int64_t> number;
  TimeNs start = 0;
  TimeNs duration = 0;
  std::uint64_t kernels = 0;
  std::uint64_t tc_kernels = 0;
  TimeNs gpu = 0;     // union of kernel intervals in the step
  TimeNs tc_gpu = 0;  // union of Tensor Core kernel intervals in the step
  Breakdown breakdown{};
};

}  // namespace perfgate
