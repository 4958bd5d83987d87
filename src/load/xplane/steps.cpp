// TensorFlow's steps in an XSpace: the "Steps" line XProf writes on each device plane
// (derived_timeline.cc's DeriveStepEventsFromGroups: one event per step on the device, named by
// its group id, with a `group_id` stat; a TPU's runtime writes "Step N" events with the same stat).
// Where no host event carries a step number (tf.profiler.experimental.Trace(name, step_num=N) and
// jax.profiler.StepTraceAnnotation do), each step becomes a step range over its span on the
// devices, on a thread of its own, as XProf intersects step markers across devices: a step that
// not every such device marks is left out (docs/formats.md, "XSpace profile").
#include <charconv>

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

}  // namespace

void Builder::device_steps(const Plane& plane, const Line& line, const StatKeys& keys, std::int32_t device) {
  Event e;
  bool any = false;
  for (const wire::Field& field : line.events) {
    read_event(field, e, &event_check_);
    TimeNs start = 0, end = 0;
    std::int64_t number = -1;
    if (e.aggregated || !step_number(plane, e, keys, number) || !span(line, e, start, end)) continue;
    auto [it, added] = device_steps_.try_emplace(number, DeviceStep{start, end, 0, -1});
    DeviceStep& step = it->second;
    step.start = std::min(step.start, start);
    step.end = std::max(step.end, end);
    if (step.last_device != device) ++step.devices;
    step.last_device = device;
    any = true;
  }
  step_devices_ += any;
}

void Builder::steps_from_devices() {
  if (host_steps_ || device_steps_.empty()) return;
  auto thread = static_cast<std::uint32_t>(p_.threads.size());
  p_.threads.push_back({.pid = 0, .tid = -1, .name = p_.strings.intern("Steps (devices)")});
  std::string name;
  for (const auto& [number, step] : device_steps_) {
    if (step.devices < step_devices_ || step.end <= step.start) continue;
    name = fmt::format("Steps (step {})", number);
    HostEvent h;
    h.start = step.start;
    h.end = step.end;
    h.thread = thread;
    h.name = p_.strings.intern(name);
    h.kind = HostKind::Annotation;
    p_.host_events.push_back(h);
  }
}

}  // namespace perfgate::xplane
