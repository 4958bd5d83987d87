#include "model/profile.h"
#include "model/stable_order.h"

namespace perfgate {

void sort_by_start(Profile& profile) {
  stable_sort_records(profile.runtime_calls,
                      [](const RuntimeCall& a, const RuntimeCall& b) { return a.start < b.start; });
  stable_sort_records(profile.gpu_activities,
                      [](const GpuActivity& a, const GpuActivity& b) { return a.start < b.start; });
  stable_sort_records(profile.gpu_ranges,
                      [](const GpuRange& a, const GpuRange& b) { return a.start < b.start; });
  stable_sort_records(profile.gpu_syncs,
                      [](const GpuSync& a, const GpuSync& b) { return a.start < b.start; });
  stable_sort_records(profile.memory_samples,
                      [](const MemorySample& a, const MemorySample& b) { return a.time < b.time; });
}

}  // namespace perfgate
