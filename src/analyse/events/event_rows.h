// A worker's events one row at a time (perfgate events, the Python API's Report.events): each
// kernel, copy, memset, runtime call and host range with its times, the step it belongs to, its
// stream, correlation and the op that launched it, handed to a callback as it is made so that a
// front end streams them out instead of holding them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "analyse/analysis_options.h"
#include "knowledge/classification.h"
#include "model/profile.h"

namespace perfgate {

// What each kind of row is, as the rows name it; `collective` selects the rows with a collective.
inline constexpr std::string_view kEventKinds[] = {"op",     "annotation", "python", "runtime",
                                                   "kernel", "copy",       "memset", "collective"};

struct EventQuery {
  std::vector<std::string_view> kinds;  // of kEventKinds; empty: every kind
  std::vector<std::int64_t> steps;      // step numbers (ProfilerStep#N's N); empty: every event
};

struct EventRow {
  std::string_view kind;  // one of kEventKinds but "collective"
  std::string_view name;
  std::optional<std::int64_t> step;  // the number of the step the event belongs to; none: outside every step
  bool in_window = false;            // that step is in the report's window
  TimeNs start = 0;                  // on the trace's clock, as the report's steps
  TimeNs end = 0;
  std::optional<std::int64_t> device;  // GPU work: its device and stream
  std::optional<std::int64_t> stream;
  std::optional<std::int64_t>
      thread;  // host work and runtime calls: the thread's id; GPU work: its launcher's
  std::optional<std::int64_t> correlation;  // runtime calls and GPU work
  std::optional<std::int64_t> external_id;
  // GPU work and runtime calls: the op (or annotation) that launched it; a host range: the range
  // it is nested in. Empty: none.
  std::string_view op;
  std::optional<std::uint64_t> bytes;  // copies and memsets
  // A collective's type ("allreduce", where the trace recorded its arguments), else the name of a
  // communication kernel or op (rules: communication_kernels, communication_ops); empty: none.
  std::string_view collective;
};

// Calls `each` with every row of `profile` that `query` selects: host ranges in thread and time
// order, then runtime calls and GPU work by start. Steps as the analysis finds them (with
// `options`' step pattern or key op); a GPU activity belongs to its launching call's step, else
// to the step its start falls in. Throws what select_window throws for a window that selects no step.
void for_each_event_row(const Profile& profile, const Classification& classification,
                        const AnalysisOptions& options, const EventQuery& query,
                        const std::function<void(const EventRow&)>& each);

}  // namespace perfgate
