#include "analyse/ops/blocking_copy.h"

#include <fmt/format.h>

#include "analyse/intervals.h"

namespace perfgate {
namespace {

const char* direction(CopyKind kind) {
  switch (kind) {
    case CopyKind::HostToDevice:
      return "host to device";
    case CopyKind::DeviceToHost:
      return "device to host";
    case CopyKind::DeviceToDevice:
      return "device to device";
    case CopyKind::HostToHost:
      return "host to host";
    case CopyKind::PeerToPeer:
      return "peer to peer";
    case CopyKind::Unknown:
      break;
  }
  return "of unknown direction";
}

// The call's span on its copy's GPU: time with no activity running, and the activities whose launch
// call had returned before the call began and which had not started then.
void describe_gpu(const Profile& p, const Attribution& a, const RuntimeCall& call, std::int32_t device,
                  BlockingCopy& out) {
  IntervalList busy;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    if (act.device != device) continue;
    if (act.end > call.start && act.start < call.end) busy.push_back({act.start, act.end});
    std::uint32_t r = a.activity_runtime[i];
    if (r != kNone && p.runtime_calls[r].end <= call.start && act.start > call.start) ++out.queued_activities;
  }
  merge_in_place(busy);
  out.gpu_idle = (call.end - call.start) - length_within(busy, {call.start, call.end});
}

}  // namespace

std::optional<BlockingCopy> longest_blocking_copy(const Profile& p, const Attribution& a,
                                                  NameClasses& classes, const Window& w) {
  std::optional<BlockingCopy> longest;
  std::int32_t device = 0;
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& act = p.gpu_activities[i];
    std::uint32_t r = a.activity_runtime[i];
    if (act.kind != GpuActivityKind::Memcpy || r == kNone) continue;
    const RuntimeCall& call = p.runtime_calls[r];
    if (call.start < w.host_start || call.start >= w.end || !classes.sync_call(call.name)) continue;
    if (longest && call.end - call.start <= longest->host_wait) continue;
    longest = BlockingCopy{};
    longest->call = std::string(p.strings.view(call.name));
    longest->start = call.start - w.host_start;
    longest->host_wait = call.end - call.start;
    longest->bytes = act.bytes;
    longest->kind = act.copy_kind;
    longest->runtime = r;
    device = act.device;
  }
  if (longest) describe_gpu(p, a, p.runtime_calls[longest->runtime], device, *longest);
  return longest;
}

Note blocking_copy_note(const BlockingCopy& c) {
  auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
  return note<NoteId::ops_blocking_copy>(arg<"call">(c.call), arg<"start_ms">(ms(c.start)),
                                         arg<"bytes">(c.bytes), arg<"direction">(direction(c.kind)),
                                         arg<"wait_ms">(ms(c.host_wait)), arg<"idle_ms">(ms(c.gpu_idle)),
                                         arg<"queued">(c.queued_activities));
}

}  // namespace perfgate
