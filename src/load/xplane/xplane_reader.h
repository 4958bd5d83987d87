// The XSpace reader: `jax.profiler` and TensorFlow's profiler (`*.xplane.pb`), read with a
// wire-format reader of our own (load/xplane/wire.h) into the profile model (docs/formats.md,
// "XPlane"): device planes' streams as GPU kernels, copies and memsets, the host plane's threads as
// host ops, runtime calls and step ranges, the device planes' stats as GPUs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace perfgate::xplane {

struct ReadOptions {
  std::uint64_t max_memory = 0;  // 0: no limit; the file's bytes and the model count
};

// The XSpace held in `bytes` (the whole file, inflated where it is gzip). Throws InputError naming
// `path` on a malformed message (with its offset), an input past `max_memory`, or a space with no
// activity.
Profile read_space(std::string_view bytes, const std::string& path, const ReadOptions& options);
// The same, as its workers: one profile, or one per group of devices that step on their own
// (device_groups.h), each named by its devices ("gpu4").
std::vector<Profile> read_space_workers(std::string_view bytes, const std::string& path,
                                        const ReadOptions& options);

}  // namespace perfgate::xplane
