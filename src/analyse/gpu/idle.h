// Why the GPUs were idle (HTA's idle-time breakdown) and their longest gaps (nsys analyze gpu_gaps).
#pragma once

#include <boost/container/flat_map.hpp>
#include <boost/container/small_vector.hpp>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/intervals.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

inline constexpr TimeNs kKernelWaitNs = 30'000;    // HTA: shorter gaps are back-to-back launch overhead
inline constexpr TimeNs kReportedGapNs = 500'000;  // gaps listed in the gaps table
inline constexpr std::size_t kMaxReportedGaps = 100;

// A set of threads (indices into Profile::threads) as a flag each, inline for a few dozen: a
// std::set's node each was a tiny rank's allocations in every user (issue 78).
class ThreadSet {
 public:
  void insert(std::uint32_t thread) {
    if (thread >= flags_.size()) flags_.resize(std::size_t{thread} + 1, 0);
    flags_[thread] = 1;
  }
  bool count(std::uint32_t thread) const { return thread < flags_.size() && flags_[thread] != 0; }

 private:
  boost::container::small_vector<std::uint8_t, 32> flags_;
};

// The threads that launch GPU work in [start, end): those with runtime calls there.
ThreadSet launching_threads(const Profile& profile, TimeNs start, TimeNs end);

// Per device, when it had work queued: from each launched activity's call's return to its start.
// A sorted vector: a device or a few each, one allocation, not a node each (issue 78).
using QueuedWork = boost::container::flat_map<std::int32_t, IntervalList>;
QueuedWork queued_work(const Profile& profile, const Attribution& attribution);

// HTA's breakdown, per stream; a host-wait gap's time with other work queued on the GPU is "other".
IdleSums idle_breakdown(const Profile& profile, const Attribution& attribution, const QueuedWork& queued,
                        const Window& window);
// The gaps between each GPU's activities in the window: the longest listed (500 us or more), every
// one split by cause into `sums.by_cause` (what the launching host threads were doing meanwhile).
// `over_gpu_span` (clocks offset, launch_delay.h): only the gaps between a GPU's activities, and
// none split by the host (all Unrecorded): the host's timeline does not line up with the GPU's.
// `step_markers`: the host events that are steps (never an NVTX cause). `one_offs` (warmup.h): idle
// time while the host was in one of them is in no cause (and in no gap's split): it is not the
// steady state's.
std::vector<GapRow> gpu_gaps(const Profile& profile, const Attribution& attribution, const QueuedWork& queued,
                             NameClasses& classes, const Window& window,
                             const std::vector<std::uint32_t>& step_markers, IdleSums& sums,
                             bool over_gpu_span = false, const IntervalList& one_offs = {});

}  // namespace perfgate
