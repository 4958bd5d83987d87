// TensorFlow's steps in an XSpace: the "Steps" line XProf writes on each device plane
// (derived_timeline.cc's DeriveStepEventsFromGroups: one event per step on the device, named by
// its group id, with a `group_id` stat; a TPU's runtime writes "Step N" events with the same stat).
// Where no host event carries a step number (tf.profiler.experimental.Trace(name, step_num=N) and
// jax.profiler.StepTraceAnnotation do), each step becomes a step range over its span on the
// devices, on a thread of its own, as XProf intersects step markers across devices: a step that
// not every such device marks is left out (docs/formats.md, "XSpace profile").
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

bool whole_number(std::string_view text, std::int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

// A step event's number: its group_id stat, else its name ("17", "Step 17").
bool step_number(const Plane& plane, const Event& e, const StatKeys& keys, std::int64_t& out) {
  for (const Stat& s : e.stats)
    if (keys(s) == StatKey::GroupId && s.integer(out) && out >= 0) return true;
  const EventMetadata* meta = plane.event(e.metadata_id);
  if (!meta) return false;
  std::string_view name = meta->name.empty() ? meta->display_name : meta->name;
  if (name.starts_with("Step ")) name.remove_prefix(5);
  return whole_number(name, out);
}

// Devices as a report names them: "GPU 4, GPU 5".
std::string devices_text(const std::vector<std::int32_t>& devices, bool tpu) {
  std::string out;
  for (std::int32_t device : devices)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", tpu ? "TPU" : "GPU", device);
  return out;
}

// The devices that step together, in groups in device order: two devices are in one group where
// most of the step numbers both mark (at least half) overlap in time on them. TensorFlow's workers
// in one process mark the same numbers on their own devices at their own times (issue 91: step 0
// on GPU 4 and on GPU 6, 647 ms apart): their steps are not one step.
std::vector<std::vector<std::int32_t>> groups_stepping_together(
    const std::map<std::int32_t, std::map<std::int64_t, StepSpan>>& steps) {
  std::vector<std::int32_t> devices;
  for (const auto& entry : steps) devices.push_back(entry.first);
  std::vector<std::size_t> root(devices.size());
  for (std::size_t i = 0; i < root.size(); ++i) root[i] = i;
  auto find = [&](std::size_t i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = i + 1; j < devices.size(); ++j) {
      const auto& a = steps.at(devices[i]);
      const auto& b = steps.at(devices[j]);
      std::size_t shared = 0, overlapping = 0;
      for (const auto& [number, span] : a) {
        auto it = b.find(number);
        if (it == b.end()) continue;
        ++shared;
        overlapping += span.start < it->second.end && it->second.start < span.end;
      }
      if (shared > 0 && 2 * overlapping >= shared) root[find(j)] = find(i);
    }
  std::map<std::size_t, std::vector<std::int32_t>> by_root;
  for (std::size_t i = 0; i < devices.size(); ++i) by_root[find(i)].push_back(devices[i]);
  std::vector<std::vector<std::int32_t>> out;
  for (auto& entry : by_root) out.push_back(std::move(entry.second));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void Builder::device_steps(const Plane& plane, const Line& line, const StatKeys& keys, std::int32_t device) {
  Event e;
  std::map<std::int64_t, StepSpan>& steps = device_steps_[device];
  for (const wire::Field& field : line.events) {
    read_event(field, e, &event_check_);
    TimeNs start = 0, end = 0;
    std::int64_t number = -1;
    if (e.aggregated || !step_number(plane, e, keys, number) || !span(line, e, start, end)) continue;
    auto [it, added] = steps.try_emplace(number, StepSpan{start, end});
    it->second.start = std::min(it->second.start, start);
    it->second.end = std::max(it->second.end, end);
  }
  if (steps.empty()) device_steps_.erase(device);
}

void Builder::steps_from_devices() {
  if (host_steps_ || device_steps_.empty()) return;
  // A device that ran nothing is no worker: its marks are left out where another device ran work.
  std::set<std::int32_t> ran;
  for (const GpuActivity& a : p_.gpu_activities) ran.insert(a.device);
  if (std::any_of(device_steps_.begin(), device_steps_.end(),
                  [&](const auto& d) { return ran.contains(d.first); }))
    std::erase_if(device_steps_, [&](const auto& d) { return !ran.contains(d.first); });
  std::vector<std::vector<std::int32_t>> groups = groups_stepping_together(device_steps_);
  std::string name;
  for (const std::vector<std::int32_t>& devices : groups) {
    auto thread = static_cast<std::uint32_t>(p_.threads.size());
    bool tpu = tpu_devices_.contains(devices.front());
    name = groups.size() > 1 ? "Steps (" + devices_text(devices, tpu) + ")" : "Steps (devices)";
    p_.threads.push_back({.pid = 0,
                          .tid = -1 - static_cast<std::int64_t>(step_groups_.size()),
                          .name = p_.strings.intern(name)});
    step_groups_.push_back({devices, tpu, thread});
    // A step is its span over the group's devices, where every one of them marks it.
    std::map<std::int64_t, std::pair<StepSpan, std::size_t>> spans;
    for (std::int32_t device : devices)
      for (const auto& [number, span] : device_steps_.at(device)) {
        auto [it, added] = spans.try_emplace(number, span, 0);
        it->second.first.start = std::min(it->second.first.start, span.start);
        it->second.first.end = std::max(it->second.first.end, span.end);
        ++it->second.second;
      }
    for (const auto& [number, marked] : spans) {
      if (marked.second < devices.size() || marked.first.end <= marked.first.start) continue;
      name = fmt::format("Steps (step {})", number);
      HostEvent h;
      h.start = marked.first.start;
      h.end = marked.first.end;
      h.thread = thread;
      h.name = p_.strings.intern(name);
      h.kind = HostKind::Annotation;
      p_.host_events.push_back(h);
    }
  }
  if (step_groups_.size() < 2) {
    step_groups_.clear();
    return;
  }
  std::string listed;
  for (const DeviceGroup& group : step_groups_)
    listed += (listed.empty() ? "" : "; ") + devices_text(group.devices, group.tpu);
  // The first step the first two groups both mark, and how far apart its starts are.
  std::string example = "no step number marked by both of the first two";
  const auto& first = device_steps_.at(step_groups_[0].devices.front());
  const auto& second = device_steps_.at(step_groups_[1].devices.front());
  for (const auto& [number, span] : first)
    if (auto it = second.find(number); it != second.end()) {
      example = fmt::format("step {} begins {:.3f} ms apart on {} and {}", number,
                            static_cast<double>(std::abs(it->second.start - span.start)) / 1e6,
                            devices_text({step_groups_[0].devices.front()}, step_groups_[0].tpu),
                            devices_text({step_groups_[1].devices.front()}, step_groups_[1].tpu));
      break;
    }
  p_.notes.push_back(note<NoteId::xspace_devices_step_apart>(arg<"groups">(listed), arg<"example">(example)));
}

}  // namespace perfgate::xplane
