// Communication: communication kernels and their overlap, the collectives each worker issued, and
// the run's collectives matched across ranks (communication.h, collective_calls.h,
// collective_matching.h, parallelism.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyse/worker_position.h"
#include "model/profile.h"

namespace perfgate {

struct CommunicationSums {
  TimeNs kernel_time = 0;  // union of communication kernels in the window
  TimeNs overlapped = 0;   // of which compute kernels ran at the same time
  TimeNs window = 0;
  std::uint64_t collectives = 0;  // outermost communication ops in the window
  std::uint64_t bytes = 0;
  bool bytes_known = false;
  // Times and counts add up; bytes are known when either side knows some (communication.cpp).
  CommunicationSums& operator+=(const CommunicationSums& from);
};

// How the run parallelises, from the ops it ran in the window (the plugin's DataParallel and
// DDP recommendations).
struct ParallelismSums {
  std::uint64_t data_parallel_calls = 0;
  std::uint64_t ddp_calls = 0;
  std::uint64_t nccl_calls = 0;
  ParallelismSums& operator+=(const ParallelismSums& from);  // counts add up
};

// A collective's kind as nccl-tests names them: what its bus bandwidth factor is.
enum class CollectiveType : std::uint8_t {
  Other,
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast,
  Reduce,
  SendRecv,
  Barrier
};
const char* collective_type_name(CollectiveType type);  // "all_reduce", ...
// busbw / algbw for a collective over n ranks (nccl-tests, doc/PERFORMANCE.md): 2(n-1)/n
// all-reduce, (n-1)/n all-gather, reduce-scatter, all-to-all, 1 broadcast, reduce, send/recv; none
// for a type without a definition or n < 2.
std::optional<double> bus_bandwidth_factor(CollectiveType type, std::int64_t n);

// One collective a worker issued in the window, as the matching across ranks needs it
// (collective_matching.h): the i-th call of a type in a process group and step is the same
// collective on every rank of the group, as NCCL and gloo require every rank to issue a group's
// collectives in the same order (so each type's too: the type keeps traces that record no group
// from mixing the calls of two groups issued from two threads).
struct CollectiveCall {
  std::uint32_t group = 0;  // index into CollectiveCalls::groups
  CollectiveType type = CollectiveType::Other;
  std::int32_t group_size = -1;  // "Group size", else the world size; -1: unknown
  std::int64_t step = -1;        // number of the window step it was issued in; -1: no steps
  std::uint32_t index = 0;  // its place among its group's calls of its type in the step (host start order)
  std::uint64_t bytes = 0;  // message size; 0: unknown
  TimeNs start = 0;         // when the rank arrived: its first kernel's start (host start on CPU)
  TimeNs duration = -1;     // first kernel start to last kernel end; -1: not timed
};

struct CollectiveCalls {
  std::vector<std::string> groups;  // "Process Group Name"; "" where none is recorded
  std::vector<CollectiveCall> calls;
};

// One collective of a run, its ranks' calls folded together (by group, type, step and index). Every
// field combines by min, max or sum, so the fold does not depend on the order ranks come in.
struct MatchedCollective {
  std::string group;
  std::int64_t step = -1;
  std::uint32_t index = 0;
  CollectiveType type = CollectiveType::Other;
  std::int32_t group_size = -1;
  std::uint64_t bytes = 0;  // the largest any rank recorded
  // The smallest known (non-zero) size any rank recorded.
  std::uint64_t smallest_bytes = 0;
  std::uint32_t ranks = 0;    // ranks that issued it
  std::uint32_t timed = 0;    // ... with a duration
  TimeNs shortest = 0;        // the transfer latency: the shortest timed duration
  TimeNs duration_sum = 0;    // of the timed ranks
  TimeNs latest_start = 0;    // the last arrival
  WorkerPosition latest;      // ... its worker (the first position on a tie)
  TimeNs second_start = 0;    // the next-to-last arrival (timed >= 2)
  TimeNs earliest_start = 0;  // the first arrival
  TimeNs earliest_end = 0;    // the first rank to finish
  void add(const MatchedCollective& from);
};

// One rank's timed calls in a (group, type, step), indices first .. first + count - 1.
struct CollectiveSpan {
  std::string group;
  CollectiveType type = CollectiveType::Other;
  std::int64_t step = -1;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

// What a rank's row of the collective tables needs besides the matched collectives.
struct RankCollectiveSums {
  WorkerPosition position;
  std::uint64_t calls = 0;   // collectives it issued
  TimeNs duration = 0;       // of its timed calls
  TimeNs first_start = 0;    // its first timed call's start: the starts below are from it
  TimeNs start_offsets = 0;  // sum of (start - first_start) of its timed calls
  std::vector<CollectiveSpan> spans;
  // Each timed call's start and duration, in the order of the spans' calls: a call whose
  // collective is not matched adds nothing to the rank's row.
  std::vector<TimeNs> starts;
  std::vector<TimeNs> durations;
};

// The collectives of some of a run's workers, matched so far: what a partial report carries, so
// that the merge of partials matches exactly as one process reading every rank.
struct CollectiveSums {
  std::vector<MatchedCollective> collectives;  // by (group, type, step, index)
  std::vector<RankCollectiveSums> ranks;       // by position
};

// The collectives of the window by op (outermost communication ops: nccl:all_reduce,
// c10d::allreduce_), with their sizes where the trace records them.
struct CollectiveRow {
  std::string op;
  std::string collective;  // as record_param_comms names it ("allreduce"), where recorded
  std::uint64_t calls = 0;
  std::uint64_t sized_calls = 0;  // calls whose bytes the trace records
  std::uint64_t bytes = 0;        // of the sized calls
  TimeNs host = 0;                // wall time of the calls
  TimeNs device = 0;              // GPU time of the work they launched (their kernels)
  TimeNs sized_device = 0;        // of the sized calls: the bandwidth's denominator
};

// The run's collectives by process group, type and message size, matched across ranks
// (collective_matching.h): each collective's transfer latency is its shortest duration on any rank.
struct CollectiveSizeRow {
  std::string group;
  CollectiveType type = CollectiveType::Other;
  std::int32_t group_size = -1;  // n of the bus bandwidth; -1: unknown (the matched ranks are used)
  std::uint64_t bytes = 0;       // message size (nccl-tests' S)
  std::uint64_t collectives = 0;
  std::uint32_t ranks = 0;  // the most ranks any of them was matched on
  TimeNs transfer = 0;      // sum of the shortest durations
  TimeNs wait = 0;          // sum over ranks of (duration - shortest)
  TimeNs late = 0;          // sum over ranks of (latest start - its start)
};

// One worker's collective time split into transfer and waiting, and how often it arrived last.
struct RankCommunicationRow {
  std::size_t worker = 0;         // index into RunAnalysis::workers
  std::uint64_t collectives = 0;  // issued in the window
  std::uint64_t matched = 0;      // timed and matched on 2 ranks or more
  TimeNs duration = 0;            // of the matched ones
  TimeNs transfer = 0;            // their shortest durations
  TimeNs wait = 0;                // duration - transfer
  TimeNs late = 0;                // sum of (latest start - its start)
  std::uint64_t last_arrivals = 0;
  TimeNs delay = 0;  // sum, where it arrived last, of its start - the next-to-last arrival's
  // Its first arrival at a matched collective in each step: (step number, start), by step.
  std::vector<std::pair<std::int64_t, TimeNs>> first_arrivals;
  // From its steps (set_rank_entries, collective_matching.h): how long after the earliest rank it
  // entered the run's first step with matched collectives, and its own work, from its step start to
  // its first matched collective (the mean over its steps with one). None where its steps lack them.
  std::optional<TimeNs> entered_after;
  std::optional<TimeNs> own_work;
};

struct RunCollectives {
  std::vector<CollectiveSizeRow> by_size;   // most transfer time first
  std::vector<RankCommunicationRow> ranks;  // in worker order; empty with fewer than 2 ranks
  std::uint64_t matched = 0;                // collectives timed on 2 ranks or more
  std::uint32_t most_ranks = 0;             // the most ranks a matched collective was timed on
  // Calls paired by (group, type, step, index) on several ranks that are not one collective, so
  // not matched (docs/metrics.md, "Collectives"): their spans do not overlap within the clock-skew
  // bound (kCollectiveClockSkewNs; a rank finished before another started: traces of different
  // captures, or a sampled trace), or they differ in size (a type whose size every rank shares).
  std::uint64_t disjoint = 0;
  std::uint64_t sizes_differ = 0;
  // Collectives timed on one rank only, with a known size and group: the bytes they would move on
  // the bus (S x the nccl-tests factor) and their durations, waiting included: a lower bound of the
  // bus bandwidth.
  double alone_bus_bytes = 0;
  TimeNs alone_duration = 0;
};

// How far the clocks of one capture's ranks may disagree: two ranks' spans of one collective
// overlap within it (docs/metrics.md, "Collectives").
inline constexpr TimeNs kCollectiveClockSkewNs = 1'000'000;

}  // namespace perfgate
