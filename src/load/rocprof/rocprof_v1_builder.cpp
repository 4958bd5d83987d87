// rocprof v1's records (rocprof_v1.h) into the profile model, as the rocprofv3 reader builds its:
// HIP API calls as runtime calls, OPS' kernels on their GPU (dev-id) and queue, copies with the
// direction their name says, KERN's dispatches where OPS has none, rocTX ranges as annotations.
#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "load/rocprof/rocprof_builder.h"
#include "load/rocprof/rocprof_v1.h"

namespace perfgate::rocprof {
namespace {

// roctracer's copy operations (hcc_ops_trace: "CopyHostToDevice", …; tblextr.py's COPY table takes
// the names with Memcpy, Copy or Fill).
CopyKind copy_kind(std::string_view name) {
  if (name.find("HostToDevice") != std::string_view::npos) return CopyKind::HostToDevice;
  if (name.find("DeviceToHost") != std::string_view::npos) return CopyKind::DeviceToHost;
  if (name.find("DeviceToDevice") != std::string_view::npos) return CopyKind::DeviceToDevice;
  if (name.find("HostToHost") != std::string_view::npos) return CopyKind::HostToHost;
  if (name.find("PeerToPeer") != std::string_view::npos) return CopyKind::PeerToPeer;
  return CopyKind::Unknown;
}

std::int32_t device_of(std::int64_t device) {
  return device >= 0 && device < 4096 ? static_cast<std::int32_t>(device) : 0;
}
std::uint32_t queue_of(std::int64_t queue) {
  return queue >= 0 && queue <= UINT32_MAX ? static_cast<std::uint32_t>(queue) : 0;
}

}  // namespace

void V1Builder::add(V1Record&& r) {
  bool bad = r.begin < 0 || r.end < r.begin || r.end >= kMaxTimeNs || r.end - r.begin > kMaxDurationNs ||
             r.end - r.begin >= kMaxTimeNs - durations_;
  if (bad) {
    ++bad_times_;
    return;
  }
  durations_ += r.end - r.begin;
  if (r.table == V1Table::Kern) {
    kern_.push_back(std::move(r));
    return;
  }
  auto thread = [&](std::int64_t tid) {
    auto [it, added] = threads_.try_emplace(tid, static_cast<std::uint32_t>(profile_.threads.size()));
    if (added) profile_.threads.push_back({.pid = 0, .tid = tid, .name = kNoString});
    return it->second;
  };
  StringId name = profile_.strings.intern(r.name);
  if (r.table == V1Table::Hip) {
    profile_.runtime_calls.push_back({.start = r.begin,
                                      .end = r.end,
                                      .correlation = r.correlation,
                                      .name = name,
                                      .thread = thread(r.tid)});
  } else if (r.table == V1Table::Roctx) {
    HostEvent h;
    h.start = r.begin;
    h.end = r.end;
    h.thread = thread(r.tid);
    h.kind = HostKind::Annotation;
    h.name = name;
    profile_.host_events.push_back(h);
  } else {
    GpuActivity a;
    a.start = r.begin;
    a.end = r.end;
    a.correlation = r.correlation;
    a.name = name;
    a.device = device_of(r.device);
    a.stream = queue_of(r.queue);
    if (r.table == V1Table::Copy) {
      a.kind = r.name.find("Fill") != std::string::npos ? GpuActivityKind::Memset : GpuActivityKind::Memcpy;
      a.copy_kind = copy_kind(r.name);
    } else {
      ops_kernels_ = true;
      a.kernel_info = static_cast<std::uint32_t>(profile_.kernel_info.size());
      profile_.kernel_info.push_back({});  // the launch's sizes are in no column tblextr.py writes
    }
    profile_.gpu_activities.push_back(a);
    if (r.device >= 0 || r.table == V1Table::Ops) devices_.push_back(a.device);
  }
}

std::uint64_t V1Builder::memory_bytes() const {
  return profile_.gpu_activities.capacity() * sizeof(GpuActivity) +
         profile_.runtime_calls.capacity() * sizeof(RuntimeCall) +
         profile_.host_events.capacity() * sizeof(HostEvent) + kern_.capacity() * sizeof(V1Record) +
         devices_.capacity() * sizeof(std::int32_t) +
         profile_.threads.capacity() * (sizeof(ThreadInfo) + 32) + profile_.strings.memory_bytes();
}

Profile V1Builder::finish(const std::string& path, const std::string& format) {
  Profile& profile = profile_;
  // KERN (a counter or --stats run) and OPS (--hip-trace) record the same dispatches: OPS is read,
  // KERN only where OPS has no kernel.
  if (!ops_kernels_)
    for (const V1Record& k : kern_) {
      GpuActivity a;
      a.start = k.begin;
      a.end = k.end;
      a.correlation = k.correlation;
      a.name = profile.strings.intern(k.name);
      a.device = device_of(k.device);
      a.stream = queue_of(k.queue);
      a.kernel_info = static_cast<std::uint32_t>(profile.kernel_info.size());
      profile.kernel_info.push_back({});
      profile.gpu_activities.push_back(a);
      devices_.push_back(a.device);
    }
  if (profile.gpu_activities.empty() && profile.runtime_calls.empty() && profile.host_events.empty())
    throw InputError(fmt::format(
        "{}: a rocprof v1 {} that holds no profiled activity (no kernel, copy, HIP API call or roctx range)",
        path, format == "rocprof-v1-db" ? "results.db" : "results.json"));
  std::sort(devices_.begin(), devices_.end());
  devices_.erase(std::unique(devices_.begin(), devices_.end()), devices_.end());
  for (std::int32_t d : devices_) profile.devices.push_back({.id = d, .name = fmt::format("GPU{}", d)});
  profile.info.format = format;
  finish_recorded(profile);
  if (bad_times_ > 0) profile.notes.push_back(note<NoteId::rocprof_bad_times>(arg<"count">(bad_times_)));
  if (profile.runtime_calls.empty() && !profile.gpu_activities.empty())
    profile.notes.push_back(note<NoteId::rocprof_no_hip_api>());
  profile.source_path = path;
  profile.info.family = trace_family(profile);
  return std::move(profile);
}

}  // namespace perfgate::rocprof
