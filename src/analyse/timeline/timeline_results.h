// Timelines as boxes on lanes: the representative step's (timeline.h), the critical path's and a
// Neuron device's. Times relative to the timeline's start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/table_codes.h"
#include "model/profile.h"

namespace perfgate {

// One box of a timeline. A GPU lane's device is the GPU, its stream the stream; host lanes are
// kHostOpsDevice and kRuntimeDevice with the thread id as stream (common/table_codes.h).
struct TimelineBox {
  std::int32_t device = 0;   // a GPU, or kHostOpsDevice / kRuntimeDevice
  std::uint32_t stream = 0;  // a GPU stream, or a host thread id
  TimeNs start = 0;
  TimeNs duration = 0;
  std::string name;  // kernel short name, op or call name, or "N activities" for merged boxes
  std::string op;
  // GPU: kernel, tc_kernel, communication, memcpy, memset; host: cpu_op, dataloader, runtime, sync;
  // merged
  std::string kind;
};

struct Timeline {
  std::string step;
  TimeNs step_start = 0;
  TimeNs step_duration = 0;
  std::size_t activities = 0;  // before merging
  // Under a clock offset the step on the GPUs' clock (steps_on_gpu_clock): its GPU lanes only, as
  // the host's clock does not line up with them.
  bool gpu_clock = false;
  std::vector<TimelineBox> boxes;
};

}  // namespace perfgate
