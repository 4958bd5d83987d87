// Each collective a worker issued in the window, as the matching across ranks needs it
// (collective_matching.h): its process group, type, message size, step and place in the step,
// when the rank arrived and how long the collective took there.
#pragma once

#include <map>
#include <optional>
#include <string_view>

#include "analyse/communication/communication_results.h"
#include "analyse/intervals.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// The type of a collective from the name PyTorch records ("allreduce", "_allgather_base") or its
// op's name ("nccl:all_reduce", "c10d::reduce_scatter_"); Other when neither says.
CollectiveType collective_type(std::string_view name);

class CollectiveCallRecorder {
 public:
  CollectiveCallRecorder(const Profile& profile, const StepDetection& steps, const Window& window);
  // An outermost communication op of the window: the arguments record_param_comms recorded for it
  // (or null), its input bytes where known otherwise, and the span of the GPU work it launched.
  // Without GPU work it is timed by its host span in a trace with no GPU activity at all (gloo on
  // CPUs), else not timed: an NCCL op's host span is its launch, not the collective.
  void add(std::size_t op, const CollectiveArgs* recorded, std::optional<std::uint64_t> input_bytes,
           std::optional<Interval> device);
  // The calls in (group, type, step, host start) order, each with its index among them.
  CollectiveCalls finish();

 private:
  std::uint32_t group_of(const CollectiveArgs* recorded);
  std::int64_t step_of(TimeNs host_start) const;

  const Profile& p_;
  const StepDetection& steps_;
  const Window& window_;
  bool host_timed_;  // no GPU activity in the trace: collectives run on the host
  std::map<std::string, std::uint32_t, std::less<>> group_index_;
  CollectiveCalls out_;
  std::vector<TimeNs> host_starts_;  // of out_.calls, for their order
};

}  // namespace perfgate
