#include "load/kineto/event_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/utf8.h"
#include "load/kineto/categories.h"
#include "load/kineto/number_text.h"

namespace perfgate::kineto {
namespace {

// A time field in nanoseconds: the parser's integer, else its text read exactly.
std::optional<TimeNs> nanos(const std::optional<std::int64_t>& integer, const std::string& text) {
  return integer ? integer : micros_text_to_nanos(text);
}

// A time field in microseconds for messages: as the trace wrote it where it was kept as text, else
// from its nanoseconds (a fraction, read at once by the handler, to the nanosecond).
std::string shown(const std::optional<std::int64_t>& integer, const std::string& text) {
  if (!integer) return text;
  std::int64_t ns = *integer;
  if (ns % 1000 == 0) return std::to_string(ns / 1000);
  std::uint64_t magnitude = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  std::string fraction = fmt::format("{:03}", magnitude % 1000);
  while (fraction.back() == '0') fraction.pop_back();
  return fmt::format("{}{}.{}", ns < 0 ? "-" : "", magnitude / 1000, fraction);
}

constexpr std::size_t kIndexEntry = 32;  // a hash table node's link, hash and bucket, about

// Nanoseconds as microseconds with three decimals, as a trace writes them (non-negative times).
std::string micros(TimeNs ns) {
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

// A time the model can hold (kMaxTimeNs, profile.h).
bool usable_time(TimeNs ns) {
  return ns >= 0 && ns < kMaxTimeNs;
}

// Why a time is not usable_time: built only then, so that the check costs a comparison per event.
std::string time_problem(const std::optional<std::int64_t>& integer, const std::string& text) {
  return fmt::format("field 'ts' ({} us) is out of range: a time must be from 0 to {} us (2^62 ns)",
                     shown(integer, text), micros(kMaxTimeNs - 1));
}

// perfgate's sums of durations fit in 64 bits when the durations of a profile do (profile.h).
std::string durations_problem() {
  return "the durations of the events up to this one add up to 2^62 ns (146 years) or more: not a "
         "recording";
}

// "stream 7" -> 7: PyTorch 1.8 wrote GPU streams as tid strings.
std::optional<std::int64_t> stream_from_tid(const IdValue& tid) {
  if (!tid.present) return std::nullopt;
  if (!tid.is_text) return tid.number;
  std::string_view text = tid.text;
  if (text.starts_with("stream ")) {
    text.remove_prefix(7);
    std::int64_t n = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + (c - '0');
      if (n > (1LL << 40)) return std::nullopt;
    }
    return text.empty() ? std::nullopt : std::optional<std::int64_t>(n);
  }
  return std::nullopt;
}

template <typename T>
T narrow_or(std::optional<std::int64_t> v, T fallback) {
  if (!v || *v < std::numeric_limits<T>::min() || *v > std::numeric_limits<T>::max()) return fallback;
  return static_cast<T>(*v);
}

}  // namespace

// Text ids are numbered in order of first appearance; every call counts as an appearance, so that
// the numbering does not depend on which events use the id.
IdKey EventBuilder::id_key(const IdValue& id) {
  if (!id.present) return {};
  if (!id.is_text) return {id.number, false};
  auto [it, inserted] = text_ids_.try_emplace(id.text, static_cast<std::uint32_t>(block_.text_ids.size()));
  if (inserted) {
    block_.text_ids.push_back(id.text);
    text_id_bytes_ += 2 * (sizeof(std::string) + id.text.size()) + kIndexEntry;
  }
  return {it->second, true};
}

std::size_t EventBuilder::memory_bytes() const {
  return block_.memory_bytes() + text_id_bytes_ + threads_.size() * (sizeof(ThreadKey) + kIndexEntry);
}

std::uint32_t EventBuilder::thread_index(const IdValue& pid, const IdValue& tid) {
  IdKey p = id_key(pid);
  ThreadKey key{p, id_key(tid)};
  if (last_thread_ != kNone && key == last_thread_key_) return last_thread_;
  auto [it, inserted] = threads_.try_emplace(key, static_cast<std::uint32_t>(block_.threads.size()));
  if (inserted) block_.threads.push_back(key);
  last_thread_key_ = key;
  last_thread_ = it->second;
  return it->second;
}

// The args' device, else the pid (a text pid gets its number when the blocks are merged).
std::int32_t EventBuilder::device_of(const RawEvent& e, bool is_range, std::size_t record) {
  if (e.device) return narrow_or<std::int32_t>(e.device, 0);
  IdKey pid = id_key(e.pid);
  if (!pid.is_text) return narrow_or<std::int32_t>(pid.value, 0);
  block_.devices_from_text.push_back(
      {static_cast<std::uint32_t>(record), static_cast<std::uint32_t>(pid.value), is_range});
  return 0;
}

std::string EventBuilder::add(const RawEvent& e, std::uint64_t) {
  if (e.ph == "X") return add_complete(e);

  std::optional<TimeNs> time;
  if (e.has_ts) {
    time = nanos(e.ts_ns, e.ts_text);
    if (!time) return fmt::format("field 'ts' ({}) is not a usable timestamp", e.ts_text);
  }
  if ((e.ph == "i" || e.ph == "I") && e.name == "[memory]") {
    if (!time) return "field 'ts' is missing";
    if (!usable_time(*time)) return time_problem(e.ts_ns, e.ts_text);
    add_memory_sample(e, *time);
  } else if (e.ph == "s" || e.ph == "f") {
    if (!time) return "field 'ts' is missing";
    if (!usable_time(*time)) return time_problem(e.ts_ns, e.ts_text);
    add_flow(e, *time);
  } else if (e.ph == "M") {
    add_metadata(e);
  } else if (e.ph == "C" && !e.name.empty()) {
    // Counters (Kineto's PM sampling, "GPU N Counters", kineto #1530) are listed by name (issue 53).
    add_ignored(block_.ignored_phases, fmt::format("C:{}", e.name));
  } else if (e.ph != "i" && e.ph != "I") {
    add_ignored(block_.ignored_phases, e.ph);
  }
  return {};
}

// The phase, the category and a counter's name are read as they are (their known values are
// ASCII); one that is listed among those ignored is checked for UTF-8 here, each time.
void EventBuilder::add_ignored(NameCounts& counts, std::string_view text) {
  if (is_valid_utf8(text)) {
    counts.add(text);
    return;
  }
  ++invalid_texts_;
  std::size_t replaced = 0;
  counts.add(repair_utf8(text, replaced));
}

void append_pid_text(std::string& out, const IdValue& pid) {
  if (!pid.present) return;
  if (pid.is_text)
    out += pid.text;
  else
    fmt::format_to(std::back_inserter(out), "{}", pid.number);
}

void EventBuilder::add_ignored_category(const RawEvent& e) {
  lane_key_.assign(e.cat);
  lane_key_ += kLaneSeparator;
  append_pid_text(lane_key_, e.pid);
  add_ignored(block_.ignored_categories, lane_key_);
}

template <std::size_t Ways>
StringId InternCache<Ways>::intern(StringPool& pool, std::string_view text) {
  if (text.empty()) return kNoString;
  auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(text[i])); };
  std::size_t slot = (text.size() * 31 + byte(0) * 7 + byte(text.size() / 4) * 11 +
                      byte(text.size() / 2) * 3 + byte(text.size() * 3 / 4) * 5 + byte(text.size() - 1)) %
                     kSets;
  std::array<Entry, Ways>& set = sets_[slot & (sets_.size() - 1)];
  if (set[0].text == text) return set[0].id;  // the pool's text: valid UTF-8
  for (std::size_t way = 1; way < Ways; ++way) {
    if (set[way].text != text) continue;
    Entry hit = set[way];
    std::copy_backward(set.begin(), set.begin() + static_cast<std::ptrdiff_t>(way),
                       set.begin() + static_cast<std::ptrdiff_t>(way) + 1);
    set[0] = hit;
    return hit.id;
  }
  if (!is_valid_utf8(text)) ++invalid_;
  StringId id = pool.intern(text);
  if (sets_.size() < kSets && ++misses_ > sets_.size() * Ways) {
    grow();
    return id;
  }
  std::copy_backward(set.begin(), set.end() - 1, set.end());
  set[0] = {pool.view(id), id};
  return id;
}

// The full table, empty: the entries of the small one are dropped (the next lookups miss).
template <std::size_t Ways>
void InternCache<Ways>::grow() {
  sets_.assign(kSets, {});
  misses_ = 0;
}
template class InternCache<1>;
template class InternCache<4>;

std::string EventBuilder::add_complete(const RawEvent& e) {
  EventClass cls = classify_category(e.cat);
  if (cls == EventClass::Ignored) {
    add_ignored_category(e);
    return {};
  }
  if (!e.has_ts) return "field 'ts' is missing";
  if (!e.has_dur) return "field 'dur' is missing";
  auto start = nanos(e.ts_ns, e.ts_text);
  if (!start) return fmt::format("field 'ts' ({}) is not a usable timestamp", e.ts_text);
  auto duration = nanos(e.dur_ns, e.dur_text);
  if (!duration) return fmt::format("field 'dur' ({}) is not a usable duration", e.dur_text);
  if (*duration < 0) return fmt::format("negative duration ({} us)", shown(e.dur_ns, e.dur_text));
  if (*duration > kMaxDurationNs)
    return fmt::format("absurd duration ({} us, over 30 days)", shown(e.dur_ns, e.dur_text));
  if (!usable_time(*start)) return time_problem(e.ts_ns, e.ts_text);
  TimeNs end = *start + *duration;  // below 2^62 + 30 days: no overflow
  if (end >= kMaxTimeNs)
    return fmt::format("the event ends at {} us (ts + dur), after the last usable time {} us (2^62 ns)",
                       micros(end), micros(kMaxTimeNs - 1));
  block_.durations += *duration;  // below 2^62 + 30 days: no overflow
  if (block_.durations >= kMaxTimeNs) return durations_problem();
  StringId name = names_.intern(block_.strings, e.name);

  switch (cls) {
    case EventClass::Op:
    case EventClass::Annotation:
    case EventClass::PythonFunction:
      add_host_event(e, cls, *start, end, name);
      break;
    case EventClass::Runtime:
      if (!driver_calls_ && is_driver_category(e.cat)) {
        ++block_.skipped_driver_calls;
        break;
      }
      block_.runtime_calls.push_back(RuntimeCall{*start, end, e.correlation.value_or(0),
                                                 e.external_id.value_or(0), name,
                                                 thread_index(e.pid, e.tid)});
      if (!e.launched_kernel.empty() && e.correlation)
        block_.launched_kernels.push_back({*e.correlation, block_.strings.intern(e.launched_kernel)});
      break;
    case EventClass::Kernel:
    case EventClass::Memcpy:
    case EventClass::Memset:
      add_gpu_activity(e, cls, *start, end, name);
      break;
    case EventClass::GpuAnnotation: {
      GpuRange r{*start, end, name, 0, 0};
      r.device = device_of(e, true, block_.gpu_ranges.size());
      r.stream = narrow_or<std::uint32_t>(e.stream ? e.stream : stream_from_tid(e.tid), 0);
      block_.gpu_ranges.push_back(r);
      break;
    }
    case EventClass::GpuSync:
      add_gpu_sync(e, *start, end);
      break;
    case EventClass::MtiaDevice: {
      // An MTIA's kernels and DMA requests, on its device lanes (pid: the device, args.stream).
      add_gpu_activity(e, is_mtia_dma(e.name) ? EventClass::Memcpy : EventClass::Kernel, *start, end, name);
      // The device: args.device, else the pid (a text pid names no MTIA: left unnamed).
      std::optional<std::int64_t> id = e.device;
      if (!id && e.pid.present && !e.pid.is_text) id = e.pid.number;
      std::int32_t device = narrow_or<std::int32_t>(id, -1);
      auto& seen = block_.mtia_devices;
      if (device >= 0 && std::find(seen.begin(), seen.end(), device) == seen.end()) seen.push_back(device);
      break;
    }
    case EventClass::ProfilerSpan:
      if (e.name.starts_with("PyTorch Profiler")) block_.profiler_span = {*start, end};
      break;
    case EventClass::Ignored:
      break;
  }
  return {};
}

void EventBuilder::add_host_event(const RawEvent& e, EventClass cls, TimeNs start, TimeNs end,
                                  StringId name) {
  StringPool& strings = block_.strings;
  OpDetails d;
  d.external_id = e.external_id.value_or(0);
  // Low 31 bits: pairing a forward op with its backward only needs equality.
  d.sequence_number = e.sequence_number ? static_cast<std::int32_t>(*e.sequence_number & 0x7FFFFFFF) : -1;
  d.flops = e.flops && *e.flops >= 0 ? static_cast<float>(*e.flops) : -1.0f;
  if (!e.concrete_inputs.empty()) d.concrete_inputs = strings.intern(e.concrete_inputs);
  if (!e.input_dims.empty()) d.input_dims = shapes_.intern(strings, e.input_dims);
  if (!e.input_types.empty()) d.input_types = shapes_.intern(strings, e.input_types);
  if (!e.call_stack.empty()) d.call_stack = stacks_.intern(strings, e.call_stack);
  HostEvent h;
  h.start = start;
  h.end = end;
  h.name = name;
  h.thread = thread_index(e.pid, e.tid);
  h.kind = cls == EventClass::Op           ? HostKind::Op
           : cls == EventClass::Annotation ? HostKind::Annotation
                                           : HostKind::PythonFunction;
  if (!d.empty()) {
    h.details = static_cast<std::uint32_t>(block_.op_details.size());
    block_.op_details.push_back(d);
  }
  block_.host_events.push_back(h);
  if (d.external_id != 0 && (e.in_elements || !e.collective.empty())) {
    StringId dtype = strings.intern(e.dtype);
    StringId collective = strings.intern(e.collective);
    StringId group = e.process_group.empty() ? kNoString : strings.intern(e.process_group);
    block_.collectives.push_back(CollectiveArgs{d.external_id, e.in_elements.value_or(-1),
                                                e.out_elements.value_or(-1), dtype, collective,
                                                narrow_or<std::int32_t>(e.group_size, -1), group});
  }
}

void EventBuilder::add_gpu_activity(const RawEvent& e, EventClass cls, TimeNs start, TimeNs end,
                                    StringId name) {
  GpuActivity a;
  a.start = start;
  a.end = end;
  a.correlation = e.correlation.value_or(0);
  a.external_id = e.external_id.value_or(0);
  a.name = name;
  a.device = device_of(e, false, block_.gpu_activities.size());
  a.stream = narrow_or<std::uint32_t>(e.stream ? e.stream : stream_from_tid(e.tid), 0);
  a.bytes = e.bytes && *e.bytes > 0 ? static_cast<std::uint64_t>(*e.bytes) : 0;
  if (cls == EventClass::Kernel) {
    a.kind = GpuActivityKind::Kernel;
    KernelLaunchInfo k;
    for (int i = 0; i < 3; ++i) {
      k.grid[i] = e.grid[i];
      k.block[i] = e.block[i];
    }
    k.registers_per_thread = narrow_or<std::int32_t>(e.registers_per_thread, -1);
    k.shared_memory = narrow_or<std::int32_t>(e.shared_memory, -1);
    k.blocks_per_sm = e.blocks_per_sm ? static_cast<float>(*e.blocks_per_sm) : -1.0f;
    k.occupancy_pct = e.occupancy_pct ? static_cast<float>(*e.occupancy_pct) : -1.0f;
    a.kernel_info = static_cast<std::uint32_t>(block_.kernel_info.size());
    block_.kernel_info.push_back(k);
  } else if (cls == EventClass::Memcpy && !e.dma_direction.empty()) {
    a.kind = GpuActivityKind::Memcpy;  // an MTIA DMA request: its direction and size are args
    a.copy_kind = mtia_dma_kind(e.dma_direction);
    if (e.dma_size && *e.dma_size > 0) a.bytes = static_cast<std::uint64_t>(*e.dma_size);
  } else if (cls == EventClass::Memcpy) {
    a.kind = GpuActivityKind::Memcpy;
    MemcpyName parsed = parse_memcpy_name(e.name);
    a.copy_kind = parsed.kind;
    a.pageable = parsed.pageable;
    a.pinned = parsed.pinned;
  } else {
    a.kind = GpuActivityKind::Memset;
  }
  block_.gpu_activities.push_back(a);
}

void EventBuilder::add_gpu_sync(const RawEvent& e, TimeNs start, TimeNs end) {
  std::optional<GpuSyncKind> kind = gpu_sync_kind(e.name);
  if (!kind) {
    add_ignored_category(e);
    return;
  }
  GpuSync s;
  s.start = start;
  s.end = end;
  s.kind = *kind;
  s.correlation = e.correlation.value_or(0);
  s.event_record_correlation = e.wait_on_event_record.value_or(-1);
  std::optional<std::int64_t> device = e.device;
  if (!device && e.pid.present && !e.pid.is_text) device = e.pid.number;  // the GPU row's pid
  s.device = narrow_or<std::int32_t>(device, 0);
  s.stream = narrow_or<std::int32_t>(e.stream, -1);
  s.wait_on_stream = narrow_or<std::int32_t>(e.wait_on_stream, -1);
  block_.gpu_syncs.push_back(s);
}

void EventBuilder::add_memory_sample(const RawEvent& e, TimeNs time) {
  // c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP. Host allocations are not kept: no metric reads them.
  std::int64_t type = e.memory_device_type.value_or(0);
  if (type != 1 && type != 6) return;
  MemorySample m;
  m.time = time;
  // No GPU holds a petabyte: larger sizes are clamped, so that sums of them cannot overflow.
  constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;
  auto total = [&](const std::optional<std::int64_t>& v) {
    return v && *v >= 0 ? std::min(*v, kMaxBytes) : -1;
  };
  m.bytes = std::clamp<std::int64_t>(e.bytes.value_or(0), -kMaxBytes, kMaxBytes);
  m.total_allocated = total(e.total_allocated);
  m.total_reserved = total(e.total_reserved);
  m.device_id = narrow_or<std::int32_t>(e.memory_device_id, -1);
  m.thread = thread_index(e.pid, e.tid);
  block_.memory_samples.push_back(m);
}

// Forward/backward links ("fwdbwd" flows): 's' sits on the forward op, 'f' on its backward op.
void EventBuilder::add_flow(const RawEvent& e, TimeNs time) {
  if (e.cat != "fwdbwd" || !e.id.present) return;
  IdKey id = id_key(e.id);
  block_.flows.push_back(FlowEvent{id, time, thread_index(e.pid, e.tid), e.ph == "s"});
}

void EventBuilder::add_metadata(const RawEvent& e) {
  if (e.name == "thread_name" && !e.arg_name.empty()) {
    std::uint32_t thread = thread_index(e.pid, e.tid);
    block_.thread_names.emplace_back(thread, block_.strings.intern(e.arg_name));
    return;
  }
  // A process's label (Kineto's DeviceInfo: "CPU", "GPU 0", "MTIA 9") and name, each kept once per
  // pid in a row (Kineto repeats them: 62,110 times in an MTIA trace), at most 64 bytes.
  bool label = e.name == "process_labels";
  if ((!label && e.name != "process_name") || e.arg_name.empty() || !e.pid.present) return;
  auto& list = label ? block_.process_labels : block_.process_names;
  lane_key_.clear();
  append_pid_text(lane_key_, e.pid);
  std::string_view text = std::string_view(e.arg_name).substr(0, 64);
  if (!list.empty() && list.back().first == lane_key_ && list.back().second == text) return;
  std::size_t replaced = 0;
  list.emplace_back(lane_key_, is_valid_utf8(text) ? std::string(text) : repair_utf8(text, replaced));
}

}  // namespace perfgate::kineto
