// The end of a rocprofv3 document's process: the records' names, devices and streams, known only
// once the agents, symbols and kind names are read (whatever their order in the file).
#include <algorithm>

#include <fmt/format.h>

#include "load/rocprof/rocprof_builder.h"

namespace perfgate::rocprof {
namespace {

CopyKind copy_kind(std::string_view op) {
  if (op.ends_with("HOST_TO_DEVICE")) return CopyKind::HostToDevice;
  if (op.ends_with("DEVICE_TO_HOST")) return CopyKind::DeviceToHost;
  if (op.ends_with("DEVICE_TO_DEVICE")) return CopyKind::DeviceToDevice;
  if (op.ends_with("HOST_TO_HOST")) return CopyKind::HostToHost;
  return CopyKind::Unknown;
}

}  // namespace

void finish_recorded(Profile& profile) {
  profile.info.window_spans_capture = true;
  // The capture's span is what it recorded (rocprofv3 writes no start of its own): a roctx range
  // that opens before its first HIP call is inside the window, as an NVTX range is in an nsys one.
  TimeNs lo = kMaxTimeNs, hi = 0;
  auto widen = [&](TimeNs start, TimeNs end) {
    lo = std::min(lo, start);
    hi = std::max(hi, end);
  };
  for (const GpuActivity& a : profile.gpu_activities) widen(a.start, a.end);
  for (const RuntimeCall& c : profile.runtime_calls) widen(c.start, c.end);
  for (const HostEvent& h : profile.host_events) widen(h.start, h.end);
  if (hi > lo) {
    profile.info.profiler_start = lo;
    profile.info.profiler_end = hi;
  }
  sort_by_start(profile);
  if (std::size_t overlapping = build_host_tree(profile); overlapping > 0)
    profile.notes.push_back(note<NoteId::rocprof_ranges_overlap>(arg<"count">(overlapping)));
}

void ProfileBuilder::finish_process(Process& p) {
  Profile& profile = p.profile;
  // GPU agents (type 2) are devices by their index among the GPUs (logical_node_type_id), named as
  // the file names them ("AMD Instinct MI350X"; gfx950 where there is no product name).
  std::unordered_map<std::uint64_t, std::int32_t> device_of;
  std::vector<DeviceInfo> gpus;
  std::int32_t next = 0;
  for (const Agent& a : p.agents) {
    if (a.type != 2) continue;
    DeviceInfo d;
    d.id = a.gpu_index >= 0 && a.gpu_index < INT32_MAX ? static_cast<std::int32_t>(a.gpu_index) : next;
    ++next;
    d.name = !a.product_name.empty() ? a.product_name : a.name;
    if (a.gfx_version > 0 && a.gfx_version < 10000000) {
      d.compute_major = static_cast<int>(a.gfx_version / 10000);
      d.compute_minor = static_cast<int>(a.gfx_version / 100 % 100);
    }
    if (a.cu_count > 0 && a.cu_count < 1000000) d.sm_count = static_cast<int>(a.cu_count);
    device_of[a.handle] = d.id;
    gpus.push_back(std::move(d));
  }
  auto operation = [&](std::int64_t kind, std::int64_t op) -> std::string {
    if (kind >= 0 && static_cast<std::uint64_t>(kind) < p.kinds.size()) {
      const auto& [name, ops] = p.kinds[static_cast<std::size_t>(kind)];
      if (op >= 0 && static_cast<std::uint64_t>(op) < ops.size()) return ops[static_cast<std::size_t>(op)];
      return fmt::format("{} operation {}", name, op);
    }
    return fmt::format("kind {} operation {}", kind, op);
  };
  std::vector<bool> used(gpus.size(), false);
  std::size_t unnamed = 0;
  for (const Pending& pending : p.pending) {
    GpuActivity& a = profile.gpu_activities[pending.activity];
    auto device = [&](std::uint64_t agent) -> const std::int32_t* {
      auto it = device_of.find(agent);
      return it == device_of.end() ? nullptr : &it->second;
    };
    if (a.kind == GpuActivityKind::Memcpy) {
      std::string op = operation(pending.kind, pending.operation);
      a.copy_kind = copy_kind(op);
      a.name = profile.strings.intern(op);
      // The GPU's side: the destination where it is a GPU, else the source.
      const std::int32_t* d = device(pending.agent);
      if (!d) d = device(pending.queue);
      a.device = d ? *d : 0;
      a.stream = 0;
    } else {
      auto symbol = p.symbols.find(pending.kernel_id);
      if (symbol == p.symbols.end()) {
        ++unnamed;
        a.name = profile.strings.intern(fmt::format("kernel {}", pending.kernel_id));
      } else {
        a.name = profile.strings.intern(symbol->second);
      }
      const std::int32_t* d = device(pending.agent);
      a.device = d ? *d : 0;
      a.stream = pending.queue <= UINT32_MAX ? static_cast<std::uint32_t>(pending.queue) : 0;
    }
    for (std::size_t g = 0; g < gpus.size(); ++g) used[g] = used[g] || gpus[g].id == a.device;
  }
  for (const Api& api : p.apis) {
    StringId name = profile.strings.intern(operation(api.kind, api.operation));
    if (api.runtime)
      profile.runtime_calls[api.index].name = name;
    else
      profile.host_events[api.index].name = name;
  }
  // roctx ranges as regions, named by their messages; a marker record without one is a roctx call
  // that names nothing (roctxGetThreadId, roctxNameOsThread, …).
  std::uint64_t nameless = 0;
  for (const Marker& m : p.markers) {
    auto text = p.marker_texts.find(m.correlation);
    if (text == p.marker_texts.end()) {
      ++nameless;
      continue;
    }
    HostEvent h;
    h.start = m.start;
    h.end = m.end;
    h.thread = thread(p, m.tid);
    h.kind = HostKind::Annotation;
    h.name = profile.strings.intern(text->second);
    profile.host_events.push_back(h);
  }
  for (std::size_t g = 0; g < gpus.size(); ++g)
    if (used[g]) profile.devices.push_back(std::move(gpus[g]));
  std::sort(profile.devices.begin(), profile.devices.end(),
            [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });

  profile.info.format = "rocprofv3-json";
  finish_recorded(profile);
  if (p.marks > 0) profile.notes.push_back(note<NoteId::rocprof_marks_unused>(arg<"count">(p.marks)));
  if (nameless > 0) profile.notes.push_back(note<NoteId::rocprof_ranges_unnamed>(arg<"count">(nameless)));
  if (p.bad_times > 0) profile.notes.push_back(note<NoteId::rocprof_bad_times>(arg<"count">(p.bad_times)));
  if (p.incomplete > 0)
    profile.notes.push_back(note<NoteId::rocprof_incomplete_records>(arg<"count">(p.incomplete)));
  if (unnamed > 0) profile.notes.push_back(note<NoteId::rocprof_kernel_unnamed>(arg<"count">(unnamed)));
  if (profile.runtime_calls.empty() && !profile.gpu_activities.empty())
    profile.notes.push_back(note<NoteId::rocprof_no_hip_api>());
  profile.info.family = trace_family(profile);
}

std::vector<Profile> ProfileBuilder::finish(const std::string& path) {
  std::vector<Profile> out;
  for (Process& p : processes_) {
    finish_process(p);
    p.profile.source_path = path;
    if (p.pid != 0) p.profile.info.trace_name = fmt::format("pid{}", p.pid);
    out.push_back(std::move(p.profile));
  }
  return out;
}

}  // namespace perfgate::rocprof
