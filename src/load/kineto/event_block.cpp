#include "load/kineto/event_block.h"

namespace perfgate::kineto {

void NameCounts::add(std::string_view name, std::uint64_t count) {
  key_.assign(name);
  auto it = index_.find(key_);
  if (it != index_.end()) {
    entries_[it->second].second += count;
  } else if (entries_.size() < limit_) {
    index_.emplace(key_, entries_.size());
    entries_.emplace_back(key_, count);
  } else {
    refused_ = true;
  }
}

void EventBlock::reset() {
  strings = StringPool();
  text_ids.clear();
  threads.clear();
  thread_names.clear();
  auto forget = [](auto& records) { records.visit_and_clear([](const auto*, std::size_t) {}); };
  forget(host_events);
  forget(op_details);
  forget(runtime_calls);
  forget(gpu_activities);
  forget(kernel_info);
  forget(memory_samples);
  forget(collectives);
  forget(gpu_ranges);
  launched_kernels.clear();
  forget(gpu_syncs);
  flows.clear();
  devices_from_text.clear();
  ignored_categories.clear();
  ignored_phases.clear();
  skipped_driver_calls = 0;
  mtia_devices.clear();
  process_labels.clear();
  process_names.clear();
  profiler_span.reset();
  durations = 0;
}

std::size_t EventBlock::memory_bytes() const {
  return strings.memory_bytes() + host_events.memory_bytes() + op_details.memory_bytes() +
         runtime_calls.memory_bytes() + gpu_activities.memory_bytes() + kernel_info.memory_bytes() +
         memory_samples.memory_bytes() + collectives.memory_bytes() + gpu_ranges.memory_bytes() +
         gpu_syncs.memory_bytes() + threads.capacity() * sizeof(ThreadKey) +
         thread_names.capacity() * sizeof(thread_names[0]) +
         launched_kernels.capacity() * sizeof(LaunchedKernel) + flows.capacity() * sizeof(FlowEvent) +
         devices_from_text.capacity() * sizeof(DeviceFromTextPid) +
         (process_labels.capacity() + process_names.capacity()) * (sizeof(process_labels[0]) + 96);
}

}  // namespace perfgate::kineto
