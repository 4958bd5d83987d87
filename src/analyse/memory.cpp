#include "analyse/memory.h"

#include <map>

namespace perfgate {

MemorySums memory_sums(const Profile& p) {
  std::map<std::int32_t, std::int64_t> peak_by_device;
  for (const MemorySample& m : p.memory_samples) {
    if (m.total_allocated < 0) continue;
    auto [it, inserted] = peak_by_device.try_emplace(m.device_id, m.total_allocated);
    if (!inserted) it->second = std::max(it->second, m.total_allocated);
  }
  MemorySums s;
  for (const auto& [device, peak] : peak_by_device) {
    if (s.peak_allocated && peak <= *s.peak_allocated) continue;
    s.peak_allocated = peak;
    const DeviceInfo* d = p.device(device);
    s.peak_pct = d && d->total_memory_bytes > 0
                     ? std::optional<double>(100.0 * static_cast<double>(peak) /
                                             static_cast<double>(d->total_memory_bytes))
                     : std::nullopt;
  }
  return s;
}

}  // namespace perfgate
