// An Nsight Systems export's NVTX ranges as a cause of GPU idle time (issue 53): the launching
// threads were inside a range (a JIT compilation, a user region) and in no op or runtime call. And
// the range the GPUs were idle in longest, named for the report.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyse/gpu/gpu_results.h"
#include "analyse/intervals.h"
#include "common/notes.h"
#include "model/profile.h"

namespace perfgate {

// The NVTX ranges that can be a cause: an nsys export's annotations, its steps aside; none for
// other formats (a Kineto trace's annotations, ProfilerStep and record_function, enclose
// everything). Indices into Profile::host_events.
std::vector<std::uint32_t> nvtx_ranges(const Profile& profile,
                                       const std::vector<std::uint32_t>& step_markers);

class NvtxIdle {
 public:
  NvtxIdle(const Profile& profile, const std::vector<std::uint32_t>& ranges) : p_(profile), ranges_(ranges) {}
  // A gap's time that none of `before` (queued work, the host causes before NVTX) covers.
  void add(Interval gap, std::span<const Layer> before);
  // The range name with the most idle time of its own (not in a range inside it), its outermost
  // enclosing range and that time, into `sums` (nothing where no idle time fell in a range).
  void name_longest(IdleSums& sums) const;

 private:
  const Profile& p_;
  const std::vector<std::uint32_t>& ranges_;
  IntervalList uncovered_;
};

// The note that names the range, or none where the NVTX share of the idle time is under 5%.
std::optional<Note> nvtx_idle_note(const IdleSums& idle);

}  // namespace perfgate
