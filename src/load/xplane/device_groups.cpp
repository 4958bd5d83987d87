#include "load/xplane/device_groups.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace perfgate::xplane {
namespace {

// A copy of the pool that gives every string the id it has here: the strings interned in id order,
// each once (a pool interns equal text once; id 0 is the empty string every pool begins with).
StringPool copy_of(const StringPool& pool) {
  StringPool out;
  for (std::size_t id = 1; id < pool.size(); ++id) out.intern(pool.view(static_cast<StringId>(id)));
  return out;
}

// Each host thread's group: the one whose devices ran most of the work the thread's calls launched
// (ties and threads that launched nothing: the first); a group's step thread is its own.
std::vector<std::size_t> thread_groups(const Profile& p, const std::vector<DeviceGroup>& groups,
                                       const std::unordered_map<std::int32_t, std::size_t>& group_of_device) {
  std::unordered_map<std::int64_t, std::size_t> group_of_launch;
  for (const GpuActivity& a : p.gpu_activities) {
    auto it = group_of_device.find(a.device);
    if (a.correlation != 0)
      group_of_launch.emplace(a.correlation, it == group_of_device.end() ? 0 : it->second);
  }
  std::vector<std::vector<std::uint64_t>> launches(p.threads.size(),
                                                   std::vector<std::uint64_t>(groups.size()));
  for (const RuntimeCall& c : p.runtime_calls)
    if (auto it = group_of_launch.find(c.correlation);
        it != group_of_launch.end() && c.thread < p.threads.size())
      ++launches[c.thread][it->second];
  std::vector<std::size_t> out(p.threads.size(), 0);
  for (std::size_t t = 0; t < p.threads.size(); ++t)
    out[t] = static_cast<std::size_t>(std::max_element(launches[t].begin(), launches[t].end()) -
                                      launches[t].begin());
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (groups[g].steps_thread < out.size()) out[groups[g].steps_thread] = g;
  return out;
}

}  // namespace

std::string device_group_name(const DeviceGroup& group) {
  std::string out;
  for (std::int32_t device : group.devices) {
    if (!out.empty()) out += '-';
    out += fmt::format("{}{}", group.tpu ? "tpu" : "gpu", device);
  }
  return out;
}

std::vector<Profile> split_by_device_groups(Profile&& whole, const std::vector<DeviceGroup>& groups) {
  std::vector<Profile> out;
  if (groups.size() < 2) {
    out.push_back(std::move(whole));
    return out;
  }
  std::unordered_map<std::int32_t, std::size_t> group_of_device;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::int32_t device : groups[g].devices) group_of_device.emplace(device, g);
  // A device with no "Steps" line goes with the first group.
  auto in_group = [&](std::int32_t device, std::size_t g) {
    auto it = group_of_device.find(device);
    return (it == group_of_device.end() ? 0 : it->second) == g;
  };
  std::vector<std::size_t> thread_group = thread_groups(whole, groups, group_of_device);

  for (std::size_t g = 0; g < groups.size(); ++g) {
    Profile q;
    q.worker = device_group_name(groups[g]);
    q.source_path = whole.source_path;
    q.source_bytes = whole.source_bytes;
    q.info = whole.info;
    q.strings = copy_of(whole.strings);
    std::vector<std::uint32_t> thread(whole.threads.size(), kNone);
    for (std::size_t t = 0; t < whole.threads.size(); ++t)
      if (thread_group[t] == g) {
        thread[t] = static_cast<std::uint32_t>(q.threads.size());
        q.threads.push_back(whole.threads[t]);
      }
    // Host events keep their order (by thread and time); a parent, on its event's thread, comes first.
    std::vector<std::uint32_t> event(whole.host_events.size(), kNone);
    for (std::size_t i = 0; i < whole.host_events.size(); ++i) {
      HostEvent e = whole.host_events[i];
      if (thread[e.thread] == kNone) continue;
      event[i] = static_cast<std::uint32_t>(q.host_events.size());
      e.thread = thread[e.thread];
      e.parent = e.parent < event.size() ? event[e.parent] : kNone;
      q.host_events.push_back(e);
    }
    q.op_details = whole.op_details;
    for (RuntimeCall c : whole.runtime_calls)
      if (c.thread < thread.size() && thread[c.thread] != kNone) {
        c.thread = thread[c.thread];
        q.runtime_calls.push_back(c);
      }
    for (const GpuActivity& a : whole.gpu_activities)
      if (in_group(a.device, g)) q.gpu_activities.push_back(a);
    q.kernel_info = whole.kernel_info;
    for (const GpuRange& r : whole.gpu_ranges)
      if (in_group(r.device, g)) q.gpu_ranges.push_back(r);
    for (const GpuSync& s : whole.gpu_syncs)
      if (in_group(s.device, g)) q.gpu_syncs.push_back(s);
    for (ForwardBackwardLink link : whole.forward_backward_links)
      if (link.forward_thread < thread.size() && link.backward_thread < thread.size() &&
          thread[link.forward_thread] != kNone && thread[link.backward_thread] != kNone) {
        link.forward_thread = thread[link.forward_thread];
        link.backward_thread = thread[link.backward_thread];
        q.forward_backward_links.push_back(link);
      }
    for (MemorySample m : whole.memory_samples) {
      bool on_thread = m.thread < thread.size() && thread[m.thread] != kNone;
      if (m.device_id >= 0 ? !in_group(m.device_id, g) : !on_thread) continue;
      m.thread = on_thread ? thread[m.thread] : kNone;
      q.memory_samples.push_back(m);
    }
    q.collectives = whole.collectives;
    q.launched_kernels = whole.launched_kernels;
    for (const DeviceInfo& d : whole.devices)
      if (in_group(d.id, g)) q.devices.push_back(d);
    q.memory_snapshot = whole.memory_snapshot;
    q.xla_hlo = whole.xla_hlo;
    q.notes = whole.notes;
    q.info.family = trace_family(q);
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace perfgate::xplane
