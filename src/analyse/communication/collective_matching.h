// Collectives across the ranks of a run. The same collective on every rank of its group (matched
// by process group, type, step and order of issue) moves the same data: the shortest duration any rank
// saw is the transfer latency, and what a rank took beyond it is waiting for the others (the
// TensorBoard plugin's distributed view: "data transfer" and "synchronizing" time). A rank's late
// arrival is the latest start minus its own; the rank that starts last most often is the
// straggler. Bandwidths follow nccl-tests (doc/PERFORMANCE.md): algbw = S / t and busbw = algbw x
// 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast
// and reduce.
#pragma once

#include <map>
#include <optional>
#include <tuple>

#include "analyse/analysis_fwd.h"
#include "analyse/communication/communication_results.h"
#include "common/metrics.h"

namespace perfgate {

// Folds workers' collective calls into matched collectives as they come, in any order; holds per
// collective a few numbers, and per rank its sums and the runs of calls it issued.
class CollectiveMatcher {
 public:
  void add(WorkerPosition position, const CollectiveCalls& calls);
  void add(const CollectiveSums& part);  // a part of the run, its positions already the run's
  CollectiveSums sums() const;           // for a partial report
  // The run's tables; `positions` are the run's workers' in RunAnalysis::workers order.
  RunCollectives finish(const std::vector<WorkerPosition>& positions) const;
  // The collectives timed on 2 ranks or more that are one collective (RunCollectives::matched).
  std::vector<MatchedCollective> matched() const;
  // Copies the rank's sums afresh, each vector its size: what a caller's HoldScope then holds.
  void copy_rank(WorkerPosition position);

 private:
  using Key =
      std::tuple<std::string, CollectiveType, std::int64_t, std::uint32_t>;  // group, type, step, index
  void fold(MatchedCollective m);
  RankCommunicationRow rank_row(const RankCollectiveSums& r, std::size_t worker) const;
  std::map<Key, MatchedCollective> collectives_;
  std::map<WorkerPosition, RankCollectiveSums> ranks_;
};

// The collectives.* metrics of a run; rank_ids are its workers' ranks (rank_ids()).
void set_collective_metrics(MetricValues& metrics, const RunCollectives& collectives,
                            const std::vector<std::int64_t>& rank_ids);

}  // namespace perfgate
