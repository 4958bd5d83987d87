#include "load/kineto/block_merger.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace perfgate::kineto {
namespace {

constexpr std::size_t kIndexEntry = 32;  // a node's links (and a hash table's bucket), about

std::int32_t device_number(std::int64_t v) {
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) return 0;
  return static_cast<std::int32_t>(v);
}

// Copies `from` onto the end of `to`, each record passed through `fix`; when `same` holds and `to`
// is empty, the block's storage is taken over instead.
template <typename T, typename Fix>
void append(ChunkedAppender<T>& to, ChunkedAppender<T>& from, bool same, Fix&& fix) {
  if (same && to.size() == 0) {
    to.swap(from);
    return;
  }
  from.visit_and_clear([&](const T* first, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      T record = first[i];
      fix(record);
      to.push_back(record);
    }
  });
}

}  // namespace

BlockMerger::Renumbering BlockMerger::renumber(EventBlock& block) {
  Renumbering map;
  map.details_base = static_cast<std::uint32_t>(op_details_.size());
  map.kernel_info_base = static_cast<std::uint32_t>(kernel_info_.size());
  if (profile_.strings.size() == 1) {
    profile_.strings = std::move(block.strings);  // interned in the same order: the same ids
  } else {
    map.strings.resize(block.strings.size());
    for (std::size_t i = 0; i < block.strings.size(); ++i)
      map.strings[i] = profile_.strings.intern(block.strings.view(static_cast<StringId>(i)));
  }
  for (const std::string& text : block.text_ids) {
    auto [it, inserted] = text_ids_.try_emplace(text, -static_cast<std::int64_t>(text_ids_.size()) - 1);
    if (inserted) text_id_bytes_ += sizeof(std::string) + text.size() + kIndexEntry;
    map.text_ids.push_back(it->second);
  }
  for (std::size_t i = 0; i < block.threads.size(); ++i) {
    auto key = std::make_pair(map.number(block.threads[i].pid), map.number(block.threads[i].tid));
    auto [it, inserted] = threads_.try_emplace(key, static_cast<std::uint32_t>(profile_.threads.size()));
    if (inserted) profile_.threads.push_back(ThreadInfo{key.first, key.second, kNoString});
    map.threads.push_back(it->second);
    map.threads_same = map.threads_same && it->second == i;
  }
  for (const auto& [thread, name] : block.thread_names)
    profile_.threads[map.threads[thread]].name = map.string(name);
  return map;
}

void BlockMerger::append_host_records(EventBlock& block, const Renumbering& map) {
  bool same = map.identity();
  append(host_events_, block.host_events, same, [&](HostEvent& h) {
    h.name = map.string(h.name);
    h.thread = map.threads[h.thread];
    if (h.details != kNone) h.details += map.details_base;
  });
  append(op_details_, block.op_details, same, [&](OpDetails& d) {
    d.input_dims = map.string(d.input_dims);
    d.input_types = map.string(d.input_types);
    d.concrete_inputs = map.string(d.concrete_inputs);
    d.call_stack = map.string(d.call_stack);
  });
  append(runtime_calls_, block.runtime_calls, same, [&](RuntimeCall& r) {
    r.name = map.string(r.name);
    r.thread = map.threads[r.thread];
  });
  append(memory_samples_, block.memory_samples, same, [&](MemorySample& m) {
    if (m.thread != kNone) m.thread = map.threads[m.thread];
  });
  append(collectives_, block.collectives, same, [&](CollectiveArgs& c) {
    c.dtype = map.string(c.dtype);
    c.collective = map.string(c.collective);
    c.process_group = map.string(c.process_group);
  });
}

void BlockMerger::append_gpu_records(EventBlock& block, const Renumbering& map) {
  // Devices taken from text pids are set here, in record order, as the records are copied.
  const auto& fixes = block.devices_from_text;
  bool same = map.identity() && fixes.empty();
  std::size_t next_fix = 0;
  std::uint32_t record = 0;
  auto fix_device = [&](bool is_range, std::int32_t& device) {
    while (next_fix < fixes.size() && fixes[next_fix].is_range != is_range) ++next_fix;
    if (next_fix < fixes.size() && fixes[next_fix].record == record) {
      device = device_number(map.text_ids[fixes[next_fix].text_id]);
      ++next_fix;
    }
    ++record;
  };
  append(gpu_activities_, block.gpu_activities, same, [&](GpuActivity& a) {
    a.name = map.string(a.name);
    if (a.kernel_info != kNone) a.kernel_info += map.kernel_info_base;
    fix_device(false, a.device);
  });
  append(kernel_info_, block.kernel_info, same, [](KernelLaunchInfo&) {});
  next_fix = 0;
  record = 0;
  append(gpu_ranges_, block.gpu_ranges, same, [&](GpuRange& r) {
    r.name = map.string(r.name);
    fix_device(true, r.device);
  });
  append(gpu_syncs_, block.gpu_syncs, same, [](GpuSync&) {});  // no names, threads or text pids
}

// A block that counted every ignored name it met joins exactly; one that stopped counting only
// when nothing was counted before it (it then saw what a serial read would have).
bool BlockMerger::add_counts(const EventBlock& block) {
  auto join = [](NameCounts& total, const NameCounts& part) {
    if (part.refused() && !total.entries().empty()) return false;
    for (const auto& [name, count] : part.entries()) total.add(name, count);
    return true;
  };
  return join(ignored_categories_, block.ignored_categories) && join(ignored_phases_, block.ignored_phases);
}

bool BlockMerger::add(EventBlock& block) {
  if (block.durations >= kMaxTimeNs - durations_) return false;
  durations_ += block.durations;
  if (!add_counts(block)) return false;
  Renumbering map = renumber(block);
  append_host_records(block, map);
  append_gpu_records(block, map);
  for (LaunchedKernel k : block.launched_kernels)
    profile_.launched_kernels.push_back({k.correlation, map.string(k.kernel)});
  for (const FlowEvent& f : block.flows)
    flows_.push_back(FlowEvent{{map.number(f.id), false}, f.time, map.threads[f.thread], f.is_start});
  skipped_driver_calls_ += block.skipped_driver_calls;
  for (std::int32_t device : block.mtia_devices)
    if (std::find(mtia_devices_.begin(), mtia_devices_.end(), device) == mtia_devices_.end())
      mtia_devices_.push_back(device);
  for (auto& [pid, text] : block.process_labels) process_labels_[pid] = std::move(text);
  for (auto& [pid, text] : block.process_names) process_names_[pid] = std::move(text);
  if (block.profiler_span)
    std::tie(profile_.info.profiler_start, profile_.info.profiler_end) = *block.profiler_span;
  return true;
}

std::size_t BlockMerger::memory_bytes() const {
  return profile_.strings.memory_bytes() + host_events_.memory_bytes() + op_details_.memory_bytes() +
         runtime_calls_.memory_bytes() + gpu_activities_.memory_bytes() + kernel_info_.memory_bytes() +
         memory_samples_.memory_bytes() + collectives_.memory_bytes() + gpu_ranges_.memory_bytes() +
         gpu_syncs_.memory_bytes() + flows_.capacity() * sizeof(FlowEvent) + text_id_bytes_ +
         threads_.size() * (sizeof(ThreadInfo) + sizeof(decltype(threads_)::value_type) + kIndexEntry);
}

void BlockMerger::move_host_records() {
  host_events_.move_into(profile_.host_events);
  op_details_.move_into(profile_.op_details);
}

void BlockMerger::move_other_records() {
  runtime_calls_.move_into(profile_.runtime_calls);
  gpu_activities_.move_into(profile_.gpu_activities);
  kernel_info_.move_into(profile_.kernel_info);
  memory_samples_.move_into(profile_.memory_samples);
  collectives_.move_into(profile_.collectives);
  gpu_ranges_.move_into(profile_.gpu_ranges);
  gpu_syncs_.move_into(profile_.gpu_syncs);
}

void BlockMerger::finish() {
  // Each end pairs with the first unpaired end of the other kind with its id; a second end of the
  // same kind replaces the first.
  struct End {
    TimeNs time;
    std::uint32_t thread;
  };
  std::unordered_map<std::int64_t, End> starts, ends;
  for (const FlowEvent& f : flows_) {
    auto& mine = f.is_start ? starts : ends;
    auto& other = f.is_start ? ends : starts;
    End here{f.time, f.thread};
    auto it = other.find(f.id.value);
    if (it == other.end()) {
      mine[f.id.value] = here;
      continue;
    }
    End forward = f.is_start ? here : it->second;
    End backward = f.is_start ? it->second : here;
    profile_.forward_backward_links.push_back({forward.time, forward.thread, backward.time, backward.thread});
    other.erase(it);
  }
  flows_.clear();

  // Each ignored category's events by lane (the key: category, separator, pid). A lane the trace
  // declares a device's (process_labels other than "CPU", as Kineto labels its GPU and MTIA lanes)
  // holds device work the report leaves out: named with its count, and counted in the profile.
  std::map<std::string, std::uint64_t> categories;
  std::map<std::pair<std::string, std::string>, std::uint64_t> device_lanes;  // (category, label)
  for (const auto& [key, count] : ignored_categories_.entries()) {
    std::size_t cut = key.find(kLaneSeparator);
    std::string category = key.substr(0, cut);
    std::string pid = cut == std::string::npos ? std::string() : key.substr(cut + 1);
    auto label = process_labels_.find(pid);
    if (label != process_labels_.end() && !label->second.empty() && label->second != "CPU") {
      device_lanes[{category, label->second}] += count;
    } else {
      categories[category] += count;
    }
  }
  for (const auto& [category, count] : categories)
    profile_.notes.push_back(
        note<NoteId::kineto_category_unused>(arg<"count">(count), arg<"category">(category)));
  for (const auto& [lane, count] : device_lanes) {
    Note skipped = note<NoteId::input_skipped>(
        arg<"reason">(fmt::format("{} complete events of category '{}' on the device lane '{}': device work "
                                  "perfgate does not read (not in "
                                  "the device's busy time, kernels or idle)",
                                  count, lane.first, lane.second)));
    skipped.args.push_back({std::string(kUnreadDeviceEventsArg), static_cast<std::int64_t>(count)});
    profile_.notes.push_back(std::move(skipped));
  }
  if (skipped_driver_calls_ > 0)
    profile_.notes.push_back(note<NoteId::kineto_driver_calls_unread>(arg<"count">(skipped_driver_calls_)));
  std::map<std::string, std::uint64_t> phases(ignored_phases_.entries().begin(),
                                              ignored_phases_.entries().end());
  for (const auto& [phase, count] : phases)
    profile_.notes.push_back(
        phase.starts_with("C:")
            ? note<NoteId::kineto_counter_unused>(arg<"count">(count), arg<"counter">(phase.substr(2)))
            : note<NoteId::kineto_phase_unused>(arg<"count">(count), arg<"phase">(phase)));
  if (!starts.empty() || !ends.empty())
    profile_.notes.push_back(note<NoteId::kineto_flow_one_end>(arg<"count">(starts.size() + ends.size())));
}

void BlockMerger::describe_mtia_devices() {
  std::sort(mtia_devices_.begin(), mtia_devices_.end());
  for (std::int32_t device : mtia_devices_) {
    if (profile_.device(device)) continue;
    DeviceInfo d;
    d.id = device;
    d.name = "MTIA";
    profile_.devices.push_back(std::move(d));
  }
}

}  // namespace perfgate::kineto
