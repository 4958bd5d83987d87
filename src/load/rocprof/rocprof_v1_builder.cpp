// rocprof v1's records (rocprof_v1.h) into the profile model, as the rocprofv3 reader builds its:
// HIP API calls as runtime calls, OPS' kernels on their GPU (dev-id) and queue, copies with the
// direction their name says, KERN's dispatches where OPS has none, rocTX ranges as annotations.
#include <algorithm>
#include <charconv>
#include <deque>
#include <map>
#include <tuple>

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

// The value of an argument `key` in tblextr.py's "( dst(0x1) sizeBytes(24) kind(1))" (or roctracer's
// "dst=0x1, sizeBytes=24"): the digits after "key(" or "key=", the key at the start or after a space,
// '(' or ','. nullopt where absent or not a decimal number.
std::optional<std::uint64_t> argument(std::string_view args, std::string_view key) {
  for (std::size_t at = args.find(key); at != std::string_view::npos; at = args.find(key, at + 1)) {
    std::size_t after = at + key.size();
    bool starts = at == 0 || args[at - 1] == ' ' || args[at - 1] == '(' || args[at - 1] == ',';
    if (!starts || after >= args.size() || (args[after] != '(' && args[after] != '=')) continue;
    std::uint64_t value = 0;
    const char* first = args.data() + after + 1;
    const char* last = args.data() + args.size();
    while (first < last && *first == ' ') ++first;
    auto [end, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || (end < last && *end != ')' && *end != ',' && *end != ' ')) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// The index tblextr.py gave the call's stream (its `stream` or `hStream` argument); 0 without one,
// as tblextr.py's stream-id.
std::int64_t stream_argument(std::string_view args) {
  std::optional<std::uint64_t> s = argument(args, "stream");
  if (!s) s = argument(args, "hStream");
  return s && *s < (std::uint64_t{1} << 62) ? static_cast<std::int64_t>(*s) : 0;
}

constexpr std::uint64_t kMaxCopyBytes = std::uint64_t{1} << 50;

}  // namespace

std::optional<std::uint64_t> v1_copy_bytes(std::string_view name, std::string_view args) {
  if (!name.starts_with("hipMemcpy") && !name.starts_with("hipMemset")) return std::nullopt;
  std::optional<std::uint64_t> bytes;
  if (contains(name, "2D")) {
    std::optional<std::uint64_t> width = argument(args, "width"), height = argument(args, "height");
    if (width && height && *width < kMaxCopyBytes && *height < kMaxCopyBytes &&
        (*height == 0 || *width <= kMaxCopyBytes / *height))
      bytes = *width * *height;
  } else if (std::optional<std::uint64_t> size = argument(args, "sizeBytes")) {
    bytes = size;
  } else if (std::optional<std::uint64_t> count = argument(args, "count")) {
    std::uint64_t unit = contains(name, "D32") ? 4 : contains(name, "D16") ? 2 : 1;
    if (*count < kMaxCopyBytes) bytes = *count * unit;
  }
  if (bytes && *bytes >= kMaxCopyBytes) return std::nullopt;
  return bytes;
}

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
    if (std::optional<std::uint64_t> bytes = v1_copy_bytes(r.name, r.args))
      copy_calls_.push_back({r.pid, r.tid, stream_argument(r.args), r.correlation, r.begin, r.end, *bytes,
                             !r.name.starts_with("hipMemcpy") || contains(r.name, "Async")});
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
      copy_ops_.push_back(
          {r.pid, r.tid, std::max<std::int64_t>(r.stream, 0), r.correlation, profile_.gpu_activities.size()});
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
         devices_.capacity() * sizeof(std::int32_t) + copy_calls_.capacity() * sizeof(CopyCall) +
         copy_ops_.capacity() * sizeof(CopyOp) + profile_.threads.capacity() * (sizeof(ThreadInfo) + 32) +
         profile_.strings.memory_bytes();
}

// Each copy's bytes from the HIP call that made it (docs/formats.md, "rocprof v1"): in results.db the
// call with its correlation id (Index) in its process; results.json has no Index, so there the calls
// and the copies of one thread and stream are taken in order (a stream runs its copies in the order
// they were issued), a synchronous hipMemcpy that ended before the copy began being one whose copy
// the trace does not hold (a memset may still run after its call returns).
void V1Builder::size_copies() {
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> by_correlation;
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, std::deque<const CopyCall*>> in_order;
  std::sort(copy_calls_.begin(), copy_calls_.end(),
            [](const CopyCall& a, const CopyCall& b) { return a.begin < b.begin; });
  for (const CopyCall& c : copy_calls_) {
    if (c.correlation != 0)
      by_correlation[{c.pid, c.correlation}] = c.bytes;
    else
      in_order[{c.pid, c.tid, c.stream}].push_back(&c);
  }
  std::vector<GpuActivity>& activities = profile_.gpu_activities;
  std::sort(copy_ops_.begin(), copy_ops_.end(), [&](const CopyOp& a, const CopyOp& b) {
    return activities[a.activity].start < activities[b.activity].start;
  });
  for (const CopyOp& op : copy_ops_) {
    GpuActivity& a = activities[op.activity];
    if (op.correlation != 0) {
      auto at = by_correlation.find({op.pid, op.correlation});
      if (at != by_correlation.end()) a.bytes = at->second;
      continue;
    }
    auto calls = in_order.find({op.pid, op.tid, op.stream});
    if (calls == in_order.end()) continue;
    std::deque<const CopyCall*>& q = calls->second;
    while (!q.empty() && !q.front()->async && q.front()->end < a.start) q.pop_front();
    if (!q.empty() && q.front()->begin <= a.start) {
      a.bytes = q.front()->bytes;
      q.pop_front();
    }
  }
}

Profile V1Builder::finish(const std::string& path, const std::string& format) {
  Profile& profile = profile_;
  size_copies();
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
