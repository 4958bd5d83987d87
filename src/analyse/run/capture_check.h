// Whether the workers of a run are one capture: the same GPU models, the same world size, one trace
// clock and windows that overlap in time, and every rank of the world size present. A run folder
// that holds unrelated traces would otherwise be summed into one run without a word.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "common/notes.h"

namespace perfgate {

// One note per problem found, empty when the workers look like one capture (a lone worker always
// does). `rank_ids`: each worker's rank (rank_ids()).
std::vector<Note> capture_warnings(const WorkerList& workers, const std::vector<std::int64_t>& rank_ids);

// The ranks the job is expected to have: the world size the workers state (the largest), else, as
// Neuron profiles state none, ranks 0 to the highest present (from 2 ranked workers; not beyond
// 2^20, which names no real job). `missing`: ranks known to be missing (a skipped profile_rank_<i>
// file), counted with those present. None for fewer than 2 ranks known, or without ranks.
std::optional<std::int64_t> expected_ranks(const WorkerList& workers,
                                           const std::vector<std::int64_t>& missing = {});

// "0-3, 7, 9": sorted distinct ranks, runs of consecutive ones as ranges.
std::string rank_list(std::vector<std::int64_t> ranks);

}  // namespace perfgate
