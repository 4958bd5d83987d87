// How a run holds what it keeps of each worker until its report (RunCombiner: each worker's summary
// once its tables are let go, its collectives for the matching across ranks). A run folder of many
// ranks keeps that for every rank, so the engine has it packed into the spill file under
// --max-memory (io/spill_arena.h, PackScope; issue 78), where the process's resident memory need
// not hold it. Without a maker it is made on the heap.
#pragma once

#include <functional>

namespace perfgate {

// Runs `make`, which copies what is kept, under the scope that holds it.
using HoldScope = std::function<void(const std::function<void()>& make)>;
using HoldScopeMaker = HoldScope (*)();

// Each RunCombiner made after this takes its own scope from `maker` (a scope is used by one thread
// at a time: the combiner's, under its lock). Set before runs start (the engine's memory budget).
void set_worker_hold(HoldScopeMaker maker);
HoldScope worker_hold();  // a new scope from the maker; empty where none is set

}  // namespace perfgate
