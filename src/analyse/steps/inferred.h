// Inferred iterations: where a worker marks no steps, the repeating top-level structure of its host
// threads (docs/metrics.md, "Inferred iterations"). A family is the top-level ranges of one thread
// whose names are equal once every run of digits reads '#', of one kind (annotations or ops); a unit
// runs from one occurrence's start to the next (DLProf's key-node span). A family qualifies when a
// run of at least 3 consecutive units of like work (each within 5% of the run's median launches)
// spans half the thread's top level; the coarsest qualifying family is chosen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyse/attribution.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// The family name of a range: each run of decimal digits replaced by '#'.
std::string family_name(std::string_view name);
// The longest run [first, second) of consecutive values within 5% of the run's median (median > 0),
// the earliest among equals; {0, 0} when there is none.
std::pair<std::size_t, std::size_t> longest_uniform_run(const std::vector<std::uint64_t>& work);

// Needs build_host_tree's order of host events and the attribution of launches (attribution.h).
std::optional<InferredIterations> infer_iterations(const Profile& profile, const Attribution& attribution);

}  // namespace perfgate
