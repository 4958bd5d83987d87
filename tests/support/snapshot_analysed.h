// A hand-built memory snapshot's bytes as the reader leaves them (read and replayed into the
// profile) and as the analysis finds them: the snapshot tests' common first step.
#pragma once

#include <string>

#include "analyse/memory/snapshot_analysis.h"
#include "analyse/worker_analysis.h"
#include "load/snapshot/snapshot_reader.h"
#include "support/helpers.h"

namespace perfgate::testing {

struct Analysed {
  MemorySnapshot snapshot;
  WorkerAnalysis w;
};

inline Analysed states_of(const std::string& bytes, Profile& profile) {
  pickle::Value root = pickle::unpickle(bytes, "snap.pickle", {});
  Analysed a;
  a.snapshot = snapshot::read_snapshot(root, "snap.pickle", default_classification().memory_categories);
  snapshot::replay_snapshot(a.snapshot, profile);
  analyse_snapshot(a.snapshot, a.w);
  return a;
}

}  // namespace perfgate::testing
