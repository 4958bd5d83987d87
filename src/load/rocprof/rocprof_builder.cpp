#include "load/rocprof/rocprof_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate::rocprof {
namespace {

bool integer(const JsonScalar& v, std::int64_t& out) {
  if (v.kind == JsonScalar::Kind::Int) {
    out = v.i;
    return true;
  }
  if (v.kind == JsonScalar::Kind::UInt && v.u <= static_cast<std::uint64_t>(INT64_MAX)) {
    out = static_cast<std::int64_t>(v.u);
    return true;
  }
  return false;
}

bool handle(const JsonScalar& v, std::uint64_t& out) {
  if (v.kind == JsonScalar::Kind::UInt)
    out = v.u;
  else if (v.kind == JsonScalar::Kind::Int && v.i >= 0)
    out = static_cast<std::uint64_t>(v.i);
  else
    return false;
  return true;
}

constexpr std::string_view kAxes[3] = {"x", "y", "z"};

}  // namespace

ProfileBuilder::Process& ProfileBuilder::current() {
  if (processes_.empty()) processes_.emplace_back();
  return processes_.back();
}

void ProfileBuilder::begin(Record record) {
  record_ = record;
  row_ = Row{};
  operations_.clear();
}

void ProfileBuilder::field(std::string_view path, const JsonScalar& v) {
  std::int64_t i = 0;
  std::uint64_t h = 0;
  bool is_int = integer(v, i);
  auto text = [&] {
    if (v.kind == JsonScalar::Kind::String) row_.text.assign(v.text);  // at most 1 MiB (the handler's)
  };
  switch (record_) {
    case Record::Metadata:
      if (path == "pid" && is_int) current().pid = i;
      return;
    case Record::Agent:
      if (path == "id.handle" && handle(v, h)) row_.agent = h;
      if (path == "type" && is_int) row_.kind = i;
      if (path == "logical_node_type_id" && is_int) row_.operation = i;
      if (path == "cu_count" && is_int) row_.bytes = i;
      if (path == "gfx_target_version" && is_int) row_.kernel_id = i;
      if (path == "product_name" && v.kind == JsonScalar::Kind::String && v.text.size() <= 256)
        operations_.assign(1, std::string(v.text));
      if (path == "name") text();
      return;
    case Record::Symbol:
      if (path == "kernel_id" && is_int) row_.kernel_id = i;
      // formatted_kernel_name: the demangled name without the ".kd" suffix of the code object's.
      if (path == "formatted_kernel_name" || (path == "kernel_name" && row_.text.empty())) text();
      return;
    case Record::MarkerText:  // a std::map as cereal writes it: {"key": …, "value": …}
      if (path == "key" && is_int) row_.correlation = i;
      if (path == "value") text();
      return;
    case Record::KindNames:
      if (path == "kind") text();
      if (path == "operations" && v.kind == JsonScalar::Kind::String && v.text.size() <= 1024) {
        operations_.emplace_back(v.text);
        strings_bytes_ += v.text.size();
      }
      return;
    default:
      break;
  }
  // The records of buffer_records.
  // A timestamp written is placed or counted as a bad time (negative, not an integer, past 2^63);
  // only one not written (or null) makes the record incomplete.
  if (path == "start_timestamp") {
    row_.has_start = v.kind != JsonScalar::Kind::Null;
    row_.start = is_int ? i : -1;
  } else if (path == "end_timestamp") {
    row_.has_end = v.kind != JsonScalar::Kind::Null;
    row_.end = is_int ? i : -1;
  } else if (path == "thread_id" && is_int)
    row_.thread = i;
  else if (path == "correlation_id.internal" && is_int)
    row_.correlation = i;
  else if (path == "kind" && is_int)
    row_.kind = i;
  else if (path == "operation" && is_int)
    row_.operation = i;
  else if (path == "bytes" && is_int)
    row_.bytes = i;
  else if (path == "dispatch_info.agent_id.handle" && handle(v, h))
    row_.agent = h;
  else if (path == "dispatch_info.queue_id.handle" && handle(v, h))
    row_.queue = h;
  else if (path == "dispatch_info.kernel_id" && is_int)
    row_.kernel_id = i;
  else if (path == "dispatch_info.group_segment_size" && is_int)
    row_.lds = i;
  else if (path == "src_agent_id.handle" && handle(v, h))
    row_.src_agent = h;
  else if (path == "dst_agent_id.handle" && handle(v, h))
    row_.dst_agent = h;
  else if (path.starts_with("dispatch_info.workgroup_size.") && is_int) {
    for (int a = 0; a < 3; ++a)
      if (path.ends_with(kAxes[a])) row_.workgroup[a] = i;
  } else if (path.starts_with("dispatch_info.grid_size.") && is_int) {
    for (int a = 0; a < 3; ++a)
      if (path.ends_with(kAxes[a])) row_.grid[a] = i;
  }
}

// A record's span, in the model's bounds (profile.h); false (and counted) otherwise.
bool ProfileBuilder::span(Process& p, TimeNs& start, TimeNs& end) {
  start = row_.start;
  end = row_.end;
  bool bad = start < 0 || end < start || end >= kMaxTimeNs || end - start > kMaxDurationNs ||
             end - start >= kMaxTimeNs - p.durations;
  if (bad) {
    ++p.bad_times;
    return false;
  }
  p.durations += end - start;
  return true;
}

std::uint32_t ProfileBuilder::thread(Process& p, std::int64_t tid) {
  // HostEvent::thread holds 30 bits; the memory limit stops a file long before that many threads.
  if (p.profile.threads.size() >= (std::size_t{1} << 30) - 1) return 0;
  auto [it, added] = p.threads.try_emplace(tid, static_cast<std::uint32_t>(p.profile.threads.size()));
  if (added) p.profile.threads.push_back({.pid = p.pid, .tid = tid, .name = kNoString});
  return it->second;
}

void ProfileBuilder::end() {
  Process& p = current();
  Record record = record_;
  record_ = Record::None;
  switch (record) {
    case Record::Agent: {
      Agent a;
      a.handle = row_.agent;
      a.type = row_.kind;
      a.gpu_index = row_.operation;
      a.cu_count = row_.bytes;
      a.gfx_version = row_.kernel_id;
      a.name = std::move(row_.text);
      if (!operations_.empty()) a.product_name = std::move(operations_[0]);
      strings_bytes_ += a.name.size() + a.product_name.size() + sizeof(Agent);
      p.agents.push_back(std::move(a));
      return;
    }
    case Record::Symbol:
      if (row_.kernel_id >= 0) {
        strings_bytes_ += row_.text.size() + 48;
        p.symbols[row_.kernel_id] = std::move(row_.text);
      }
      return;
    case Record::KindNames:
      strings_bytes_ += row_.text.size() + 48;
      p.kinds.emplace_back(std::move(row_.text), std::move(operations_));
      operations_.clear();
      return;
    case Record::MarkerText:
      strings_bytes_ += row_.text.size() + 48;
      p.marker_texts[row_.correlation] = std::move(row_.text);
      return;
    case Record::Dispatch:
    case Record::MemoryCopy:
    case Record::HipApi:
    case Record::RcclApi:
    case Record::MarkerApi:
      break;
    default:
      return;
  }
  TimeNs start = 0, end = 0;
  if (!row_.has_start || !row_.has_end) {
    ++p.incomplete;  // an empty or cut record: nothing to place
    return;
  }
  if (!span(p, start, end)) return;
  Profile& profile = p.profile;
  if (record == Record::MarkerApi) {
    // rocprofv3 writes a roctx range (push/pop, start/stop) as one record from its start to its
    // end, and a mark (roctxMarkA) with its end equal to its start: a point, not a region.
    if (start == end)
      ++p.marks;
    else
      p.markers.push_back({.start = start, .end = end, .tid = row_.thread, .correlation = row_.correlation});
    return;
  }
  if (record == Record::Dispatch || record == Record::MemoryCopy) {
    GpuActivity a;
    a.start = start;
    a.end = end;
    a.correlation = row_.correlation;
    std::uint64_t agent = row_.agent;
    if (record == Record::MemoryCopy) {
      a.kind = GpuActivityKind::Memcpy;
      a.bytes = row_.bytes > 0 ? static_cast<std::uint64_t>(row_.bytes) : 0;
      agent = row_.dst_agent;  // the GPU's side is chosen at the end, when the agents are known
    } else {
      KernelLaunchInfo k;
      for (int d = 0; d < 3; ++d) {
        std::int64_t w = row_.workgroup[d], g = row_.grid[d];
        if (w > 0 && w <= INT32_MAX) k.block[d] = static_cast<std::int32_t>(w);
        // HSA's grid counts work-items; CUDA's (the model's) counts blocks.
        if (w > 0 && g >= 0 && g / w < INT32_MAX) k.grid[d] = static_cast<std::int32_t>(g / w + (g % w != 0));
      }
      if (row_.lds >= 0 && row_.lds <= INT32_MAX) k.shared_memory = static_cast<std::int32_t>(row_.lds);
      a.kernel_info = static_cast<std::uint32_t>(profile.kernel_info.size());
      profile.kernel_info.push_back(k);
    }
    p.pending.push_back({.activity = profile.gpu_activities.size(),
                         .agent = agent,
                         .queue = record == Record::MemoryCopy ? row_.src_agent : row_.queue,
                         .kernel_id = row_.kernel_id,
                         .kind = row_.kind,
                         .operation = row_.operation});
    profile.gpu_activities.push_back(a);
    return;
  }
  std::uint32_t t = thread(p, row_.thread);
  if (record == Record::HipApi) {
    p.apis.push_back({.index = profile.runtime_calls.size(),
                      .runtime = true,
                      .kind = row_.kind,
                      .operation = row_.operation});
    profile.runtime_calls.push_back(
        {.start = start, .end = end, .correlation = row_.correlation, .thread = t});
  } else {
    p.apis.push_back({.index = profile.host_events.size(),
                      .runtime = false,
                      .kind = row_.kind,
                      .operation = row_.operation});
    HostEvent h;
    h.start = start;
    h.end = end;
    h.thread = t;
    profile.host_events.push_back(h);
  }
}

std::uint64_t ProfileBuilder::memory_bytes() const {
  std::uint64_t total = strings_bytes_;
  for (const Process& p : processes_)
    total += p.profile.gpu_activities.capacity() * sizeof(GpuActivity) +
             p.profile.kernel_info.capacity() * sizeof(KernelLaunchInfo) +
             p.pending.capacity() * sizeof(Pending) +
             p.profile.runtime_calls.capacity() * sizeof(RuntimeCall) +
             p.profile.host_events.capacity() * sizeof(HostEvent) + p.apis.capacity() * sizeof(Api) +
             p.markers.capacity() * sizeof(Marker) +
             p.profile.threads.capacity() * (sizeof(ThreadInfo) + 32) +  // and the tid map's node
             p.profile.strings.memory_bytes();
  return total;
}

}  // namespace perfgate::rocprof
