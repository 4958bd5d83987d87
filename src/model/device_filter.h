// One GPU of a profile (--device): a process that drove several GPUs analysed as the work of one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>

#include "model/profile.h"

namespace perfgate {

struct DeviceFilterResult {
  std::size_t kept = 0;           // GPU activities on the device
  std::size_t dropped = 0;        // GPU activities on other devices
  std::set<std::int32_t> ran_on;  // the devices of every GPU activity before the filter
};

// Removes from `profile` every GPU activity, GPU range, synchronisation and device-memory sample of
// another device, and the device entries of other GPUs, so that the GPU count, busy time and peaks are
// this GPU's. Host events and runtime calls stay: the host's time is the whole process's, whichever
// GPU it launched onto (a launch for another GPU still held the thread that launches onto this one).
DeviceFilterResult keep_device(Profile& profile, std::int32_t device);

}  // namespace perfgate
