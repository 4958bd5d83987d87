// The door for an output that shows a run's events rather than its report (perfgate analyze
// --annotated-trace): each profile read again as its analysis saw it, with its steps and their
// critical paths event by event. A header of its own, so that the front ends reach the analysis'
// types through the engine.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "analyse/critical_path/step_paths.h"
#include "engine/engine.h"

namespace perfgate {

// The profiles of the prepared run that `wanted` keeps, one input after another in input order:
// asked of each input (its path, an empty worker) before it is read, then of each of its workers
// (the input's path and the worker's name). Each worker kept is prepared as its analysis saw it
// (graph-capture traces merged, --device applied), handed to `each` with its window's steps and the
// critical path of the first `path_steps` of them (0: all; analyse/critical_path/step_paths.h), and
// let go: the door for an output that shows a run's events (perfgate analyze --annotated-trace).
void for_each_annotated_profile(
    const PreparedRun& run, std::size_t path_steps,
    const std::function<bool(const std::string& input, const std::string& worker)>& wanted,
    const std::function<void(const Profile&, const AnnotatedSteps&)>& each);

}  // namespace perfgate
