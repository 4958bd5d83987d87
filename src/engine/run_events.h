// The door for `perfgate events`: each worker's events as its analysis sees them (their steps, the
// op that launched each; analyse/events/event_rows.h), a worker at a time. A header of its own, so
// that the front ends reach the analysis' and the readers' types through the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "analyse/events/event_rows.h"
#include "engine/engine.h"

namespace perfgate {

// The workers of the prepared run one after another, each with its rank (the one its trace states,
// else its file name's: rank_3.json, a CPU trace that states none): `wanted` says whether its rows
// are read, and `each_row` gets every row of `query` of the worker, one worker at a time (the
// loading threads wait): a worker's rows are not mixed with another's.
void for_each_worker_events(
    const PreparedRun& run, const Classification& classification, const EventQuery& query,
    const std::function<bool(const Profile&, std::optional<std::int64_t> rank)>& wanted,
    const std::function<void(const Profile&, std::optional<std::int64_t> rank, const EventRow&)>& each_row);

}  // namespace perfgate
