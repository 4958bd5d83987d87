#include "model/device_filter.h"

#include <vector>

namespace perfgate {

DeviceFilterResult keep_device(Profile& profile, std::int32_t device) {
  DeviceFilterResult result;
  for (const GpuActivity& a : profile.gpu_activities) {
    ++(a.device == device ? result.kept : result.dropped);
    result.ran_on.insert(a.device);
  }
  std::erase_if(profile.gpu_activities, [device](const GpuActivity& a) { return a.device != device; });
  std::erase_if(profile.gpu_ranges, [device](const GpuRange& r) { return r.device != device; });
  std::erase_if(profile.gpu_syncs, [device](const GpuSync& s) { return s.device != device; });
  std::erase_if(profile.memory_samples,
                [device](const MemorySample& m) { return m.device_id >= 0 && m.device_id != device; });
  std::erase_if(profile.devices, [device](const DeviceInfo& d) { return d.id != device; });
  return result;
}

}  // namespace perfgate
