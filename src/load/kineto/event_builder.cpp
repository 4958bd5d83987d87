#include "load/kineto/event_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "load/kineto/categories.h"
#include "load/kineto/number_text.h"

namespace perfgate::kineto {
namespace {

// A duration beyond 30 days is not a measurement (a corrupt or hostile trace).
constexpr TimeNs kMaxDurationNs = 30LL * 24 * 3600 * 1000 * 1000 * 1000;

// A time field in nanoseconds: the parser's integer, else its text read exactly.
std::optional<TimeNs> nanos(const std::optional<std::int64_t>& integer, const std::string& text) {
  return integer ? integer : micros_text_to_nanos(text);
}

// A time field as the trace wrote it, for messages.
std::string shown(const std::optional<std::int64_t>& integer, const std::string& text) {
  return integer ? std::to_string(*integer / 1000) : text;
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

std::int64_t EventBuilder::id_number(const IdValue& id) {
  if (!id.present) return 0;
  if (!id.is_text) return id.number;
  auto [it, inserted] = text_ids_.try_emplace(id.text, -static_cast<std::int64_t>(text_ids_.size()) - 1);
  return it->second;
}

std::uint32_t EventBuilder::thread_index(const IdValue& pid, const IdValue& tid) {
  auto key = std::make_pair(id_number(pid), id_number(tid));
  auto [it, inserted] = threads_.try_emplace(key, static_cast<std::uint32_t>(profile_.threads.size()));
  if (inserted) profile_.threads.push_back(ThreadInfo{key.first, key.second, kNoString});
  return it->second;
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
    add_memory_sample(e, *time);
  } else if (e.ph == "s" || e.ph == "f") {
    if (!time) return "field 'ts' is missing";
    add_flow(e, *time);
  } else if (e.ph == "M") {
    add_metadata(e);
  } else if (e.ph != "i" && e.ph != "I") {
    if (ignored_phases_.size() < 32 || ignored_phases_.count(e.ph)) ++ignored_phases_[e.ph];
  }
  return {};
}

std::string EventBuilder::add_complete(const RawEvent& e) {
  EventClass cls = classify_category(e.cat);
  if (cls == EventClass::Ignored) {
    if (ignored_categories_.size() < 64 || ignored_categories_.count(e.cat)) ++ignored_categories_[e.cat];
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
  TimeNs end = *start + *duration;
  StringId name = profile_.strings.intern(e.name);

  switch (cls) {
    case EventClass::Op:
    case EventClass::Annotation:
    case EventClass::PythonFunction: {
      OpDetails d;
      d.external_id = e.external_id.value_or(0);
      // Low 31 bits: pairing a forward op with its backward only needs equality.
      d.sequence_number = e.sequence_number ? static_cast<std::int32_t>(*e.sequence_number & 0x7FFFFFFF) : -1;
      d.flops = e.flops && *e.flops >= 0 ? static_cast<float>(*e.flops) : -1.0f;
      if (!e.concrete_inputs.empty()) d.concrete_inputs = profile_.strings.intern(e.concrete_inputs);
      if (!e.input_dims.empty()) d.input_dims = profile_.strings.intern(e.input_dims);
      if (!e.input_types.empty()) d.input_types = profile_.strings.intern(e.input_types);
      if (!e.call_stack.empty()) d.call_stack = profile_.strings.intern(e.call_stack);
      HostEvent h;
      h.start = *start;
      h.end = end;
      h.name = name;
      h.thread = thread_index(e.pid, e.tid);
      h.kind = cls == EventClass::Op           ? HostKind::Op
               : cls == EventClass::Annotation ? HostKind::Annotation
                                               : HostKind::PythonFunction;
      if (!d.empty()) {
        h.details = static_cast<std::uint32_t>(op_details_.size());
        op_details_.push_back(d);
      }
      host_events_.push_back(h);
      if (d.external_id != 0 && (e.in_elements || !e.collective.empty())) {
        collectives_.push_back(CollectiveArgs{d.external_id, e.in_elements.value_or(-1),
                                              e.out_elements.value_or(-1), profile_.strings.intern(e.dtype),
                                              profile_.strings.intern(e.collective),
                                              narrow_or<std::int32_t>(e.group_size, -1)});
      }
      break;
    }
    case EventClass::Runtime:
      if (!driver_calls_ && is_driver_category(e.cat)) {
        ++skipped_driver_calls_;
        break;
      }
      runtime_calls_.push_back(RuntimeCall{*start, end, e.correlation.value_or(0), e.external_id.value_or(0),
                                           name, thread_index(e.pid, e.tid)});
      break;
    case EventClass::Kernel:
    case EventClass::Memcpy:
    case EventClass::Memset: {
      GpuActivity a;
      a.start = *start;
      a.end = end;
      a.correlation = e.correlation.value_or(0);
      a.external_id = e.external_id.value_or(0);
      a.name = name;
      a.device =
          narrow_or<std::int32_t>(e.device ? e.device : std::optional<std::int64_t>(id_number(e.pid)), 0);
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
        a.kernel_info = static_cast<std::uint32_t>(kernel_info_.size());
        kernel_info_.push_back(k);
      } else if (cls == EventClass::Memcpy) {
        a.kind = GpuActivityKind::Memcpy;
        MemcpyName parsed = parse_memcpy_name(e.name);
        a.copy_kind = parsed.kind;
        a.pageable = parsed.pageable;
      } else {
        a.kind = GpuActivityKind::Memset;
      }
      gpu_activities_.push_back(a);
      break;
    }
    case EventClass::GpuAnnotation:
      profile_.gpu_ranges.push_back(GpuRange{
          *start, end, name,
          narrow_or<std::int32_t>(e.device ? e.device : std::optional<std::int64_t>(id_number(e.pid)), 0),
          narrow_or<std::uint32_t>(e.stream ? e.stream : stream_from_tid(e.tid), 0)});
      break;
    case EventClass::ProfilerSpan:
      if (e.name.starts_with("PyTorch Profiler")) {
        profile_.info.profiler_start = *start;
        profile_.info.profiler_end = end;
      }
      break;
    case EventClass::Ignored:
      break;
  }
  return {};
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
  memory_samples_.push_back(m);
}

// Forward/backward links ("fwdbwd" flows): 's' sits on the forward op, 'f' on its backward op.
void EventBuilder::add_flow(const RawEvent& e, TimeNs time) {
  if (e.cat != "fwdbwd" || !e.id.present) return;
  std::int64_t id = id_number(e.id);
  FlowEnd here{time, thread_index(e.pid, e.tid)};
  auto& mine = e.ph == "s" ? flow_starts_ : flow_ends_;
  auto& other = e.ph == "s" ? flow_ends_ : flow_starts_;
  auto it = other.find(id);
  if (it == other.end()) {
    mine[id] = here;
    return;
  }
  FlowEnd forward = e.ph == "s" ? here : it->second;
  FlowEnd backward = e.ph == "s" ? it->second : here;
  profile_.forward_backward_links.push_back({forward.time, forward.thread, backward.time, backward.thread});
  other.erase(it);
}

void EventBuilder::add_metadata(const RawEvent& e) {
  if (e.name == "thread_name" && !e.arg_name.empty()) {
    profile_.threads[thread_index(e.pid, e.tid)].name = profile_.strings.intern(e.arg_name);
  }
}

void EventBuilder::finish() {
  host_events_.move_into(profile_.host_events);
  op_details_.move_into(profile_.op_details);
  runtime_calls_.move_into(profile_.runtime_calls);
  gpu_activities_.move_into(profile_.gpu_activities);
  kernel_info_.move_into(profile_.kernel_info);
  memory_samples_.move_into(profile_.memory_samples);
  collectives_.move_into(profile_.collectives);
  for (const auto& [category, count] : ignored_categories_)
    profile_.notes.push_back(fmt::format("{} complete events of category '{}' are not used", count,
                                         category.empty() ? "(none)" : category));
  if (skipped_driver_calls_ > 0)
    profile_.notes.push_back(
        fmt::format("{} driver-API calls (cuda_driver) not read, as the TensorBoard plugin reads none "
                    "(rules: attribution.count_driver_api_calls)",
                    skipped_driver_calls_));
  for (const auto& [phase, count] : ignored_phases_)
    profile_.notes.push_back(fmt::format("{} events of phase '{}' are not used", count, phase));
  if (!flow_starts_.empty() || !flow_ends_.empty())
    profile_.notes.push_back(fmt::format("{} forward/backward flows have only one end in the trace",
                                         flow_starts_.size() + flow_ends_.size()));
}

}  // namespace perfgate::kineto
