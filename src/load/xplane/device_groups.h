// An XSpace whose devices step on their own (issue 91, item 2): TensorFlow's workers in one process,
// each driving its own GPUs, mark their steps on their devices' "Steps" lines with the same numbers
// at different times. Such a profile is one worker per group of devices that step together, their
// steps matched by number across the workers as a run's ranks are (docs/formats.md, "XSpace profile").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace perfgate::xplane {

struct DeviceGroup {
  std::vector<std::int32_t> devices;   // in order
  bool tpu = false;                    // TPUs (else GPUs), for the worker's name
  std::uint32_t steps_thread = kNone;  // the thread of the group's step ranges
};

// The group's part of a worker's name: "gpu4", "gpu4-gpu5", "tpu0".
std::string device_group_name(const DeviceGroup& group);

// The profile as one profile per group, in the groups' order: each holds its devices' activities,
// ranges, syncs and memory samples, and the host threads that launched most of its work (a thread
// that launched none: the first group's), with their host events, runtime calls and the group's own
// step thread; each profile's worker is its group's name. The strings, op details, kernel details,
// collectives and XLA model are shared as they were (copied), and every note is each profile's.
// Groups fewer than two: the profile as it is.
std::vector<Profile> split_by_device_groups(Profile&& whole, const std::vector<DeviceGroup>& groups);

}  // namespace perfgate::xplane
