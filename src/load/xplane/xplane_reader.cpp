#include "load/xplane/xplane_reader.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/input_limit.h"
#include "load/xplane/builder.h"

namespace perfgate::xplane {

StatKey stat_key(std::string_view name) {
  if (name == "correlation_id") return StatKey::CorrelationId;
  if (name == "kernel_details") return StatKey::KernelDetails;
  if (name == "memcpy_details") return StatKey::MemcpyDetails;
  if (name == "Memset_details" || name == "memset_details") return StatKey::MemsetDetails;
  if (name == "hlo_op") return StatKey::HloOp;
  if (name == "hlo_module") return StatKey::HloModule;
  if (name == "step_num") return StatKey::StepNum;
  if (name == "theoretical_occupancy_pct") return StatKey::OccupancyPct;
  if (name == "program_id") return StatKey::ProgramId;
  if (name == "flops") return StatKey::Flops;
  if (name == "model_flops") return StatKey::ModelFlops;
  if (name == "bytes_accessed") return StatKey::BytesAccessed;
  if (name == "group_id") return StatKey::GroupId;
  if (name == "hlo_category") return StatKey::HloCategory;
  if (name == "tf_op") return StatKey::TfOp;
  if (name == "shape_with_layout") return StatKey::ShapeWithLayout;
  if (name == "device_duration_ps") return StatKey::DeviceDurationPs;
  if (name == "_pt") return StatKey::ProducerType;
  if (name == "_p") return StatKey::ProducerId;
  if (name == "_ct") return StatKey::ConsumerType;
  if (name == "_c") return StatKey::ConsumerId;
  return StatKey::Other;
}

StatKeys::StatKeys(const Plane& plane) {
  for (const auto& [id, name] : plane.stat_names)
    if (StatKey key = stat_key(name); key != StatKey::Other) keys_[id] = key;
}

Builder::Builder(const std::string& path, std::uint64_t file_bytes, std::uint64_t max_memory)
    : path_(path), file_bytes_(file_bytes), max_memory_(max_memory) {
  p_.source_path = path;
  p_.source_bytes = file_bytes;
  p_.info.format = "xplane";
  // Steps: the host events with a step number, named "NAME (step N)", or a step's name alone, which
  // the rules' xspace_step_ranges find (rules/default.yaml).
  p_.info.window_spans_capture = true;
  p_.info.step_marking = StepMarking::XSpaceAnnotations;
}

// An event starts at its line's timestamp_ns plus its offset_ps and lasts duration_ps: picoseconds,
// kept as nanoseconds (rounded down).
bool event_span(const Line& line, const Event& e, TimeNs& start, TimeNs& end) {
  std::int64_t base_ps = 0, start_ps = 0, end_ps = 0;
  if (line.timestamp_ns < 0 || e.offset_ps < 0 || e.duration_ps < 0 ||
      __builtin_mul_overflow(line.timestamp_ns, std::int64_t{1000}, &base_ps) ||
      __builtin_add_overflow(base_ps, e.offset_ps, &start_ps) ||
      __builtin_add_overflow(start_ps, e.duration_ps, &end_ps))
    return false;
  start = start_ps / 1000;
  end = end_ps / 1000;
  return end < kMaxTimeNs && end - start <= kMaxDurationNs;
}

// Negative times, sums that overflow and spans past the model's bounds (kMaxTimeNs, kMaxDurationNs)
// are left out and counted.
bool Builder::span(const Line& line, const Event& e, TimeNs& start, TimeNs& end) {
  if (!event_span(line, e, start, end) || end - start >= kMaxTimeNs - durations_) {
    ++bad_times_;
    return false;
  }
  durations_ += end - start;
  return true;
}

void Builder::check_memory(std::uint64_t extra) {
  const Profile& p = p_;
  std::uint64_t held =
      file_bytes_ + p.strings.memory_bytes() + p.threads.capacity() * sizeof(ThreadInfo) +
      p.host_events.capacity() * sizeof(HostEvent) + p.runtime_calls.capacity() * sizeof(RuntimeCall) +
      p.gpu_activities.capacity() * sizeof(GpuActivity) +
      p.kernel_info.capacity() * sizeof(KernelLaunchInfo) + p.gpu_ranges.capacity() * sizeof(GpuRange) +
      p.gpu_syncs.capacity() * sizeof(GpuSync) + xla_activities_.capacity() * sizeof(XlaActivity) +
      tpu_ops_.capacity() * sizeof(TpuOp) + module_runs_.capacity() * sizeof(ModuleRun) +
      (producers_.capacity() + consumers_.capacity() + module_launches_.capacity()) * sizeof(ContextEnd) +
      copy_starts_.size() * 48 + hlo_.memory_bytes() + plane_bytes_ + extra;
  check_input_memory(path_, held, max_memory_);
}

// /host:metadata: the versions JAX records (jax_version, jaxlib_version, cuda_version, ...), and the
// HLO module of each program (an event metadata per program id, its "Hlo Proto" stat), decoded when
// a kernel names it.
void Builder::metadata_plane(const Plane& plane, std::string_view file) {
  for (const auto& [id, meta] : plane.event_metadata)
    for (const Stat& s : meta.stats)
      if (s.kind == Stat::Kind::Text && plane.stat_name(s) == "Hlo Proto" && s.text.data() >= file.data() &&
          s.text.data() + s.text.size() <= file.data() + file.size())
        hlo_.add(id, s.text, static_cast<std::uint64_t>(s.text.data() - file.data()));
  for (const Stat& s : plane.stats) {
    std::string_view name = plane.stat_name(s);
    if (s.kind != Stat::Kind::Text || !name.ends_with("_version") || s.text.size() > 256 ||
        p_.info.attributes.size() >= 32)
      continue;
    p_.info.attributes.emplace_back(std::string(name), std::string(s.text));
  }
}

Profile Builder::finish() {
  xla_ops();
  command_buffer_ops();
  tpu_programs();
  steps_from_devices();
  check_memory();
  if (!hlo_.model().ops.empty()) p_.xla_hlo = hlo_.take_model();
  if (p_.host_events.empty() && p_.runtime_calls.empty() && p_.gpu_activities.empty())
    throw InputError(fmt::format(
        "{}: an XSpace profile that holds no profiled activity (no device stream event or host event)",
        path_));
  sort_by_start(p_);
  // Not a structured binding: clang (the sanitizer build) cannot capture one in the lambda.
  for (const auto& entry : sparse_devices_) {
    std::int32_t id = entry.first;
    if (std::none_of(p_.devices.begin(), p_.devices.end(), [&](const DeviceInfo& d) { return d.id == id; }))
      p_.devices.push_back(entry.second);
  }
  if (sparse_ops_ > 0)
    p_.notes.push_back(
        note<NoteId::xspace_sparse_core>(arg<"ops">(sparse_ops_), arg<"planes">(sparse_planes_)));
  std::sort(p_.devices.begin(), p_.devices.end(),
            [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });
  if (std::size_t overlapping = build_host_tree(p_); overlapping > 0)
    p_.notes.push_back(note<NoteId::xspace_host_events_overlap>(arg<"count">(overlapping)));
  if (bad_times_ > 0) p_.notes.push_back(note<NoteId::xspace_bad_times>(arg<"count">(bad_times_)));
  if (aggregated_ > 0) p_.notes.push_back(note<NoteId::xspace_aggregated_events>(arg<"count">(aggregated_)));
  if (instants_ > 0) p_.notes.push_back(note<NoteId::xspace_instant_host_events>(arg<"count">(instants_)));
  if (derived_lines_ > 0)
    p_.notes.push_back(
        note<NoteId::xspace_derived_lines>(arg<"count">(derived_lines_), arg<"first">(first_derived_line_)));
  p_.info.family = trace_family(p_);
  return std::move(p_);
}

namespace {

// "/device:GPU:7" → 7; -1 where the number is missing or too large.
std::int32_t device_number(std::string_view digits) {
  std::int32_t id = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  return ec == std::errc() && end == digits.data() + digits.size() && id >= 0 ? id : -1;
}

// A device plane's TPU or GPU and, for a TPU's SparseCore ("/device:TPU:0 SparseCore 1", XProf's
// kSparseCorePlaneRegex "/device:TPU:[0-9]+ SparseCore ([0-9]+)$"), the SparseCore's number; -1 each
// where the name does not say.
struct DevicePlaneName {
  std::int32_t device = -1;
  std::int32_t sparse_core = -1;
};
DevicePlaneName device_plane_name(std::string_view name) {
  std::string_view rest = name.substr(name.find(':', 1) + 1);  // past "/device:"
  rest = rest.substr(rest.find(':') + 1);                      // past "GPU:" or "TPU:"
  constexpr std::string_view kSparseCore = " SparseCore ";
  std::size_t sparse = rest.find(kSparseCore);
  if (sparse == std::string_view::npos) return {device_number(rest), -1};
  DevicePlaneName out{device_number(rest.substr(0, sparse)),
                      device_number(rest.substr(sparse + kSparseCore.size()))};
  if (out.device < 0 || out.sparse_core < 0) return {};
  return out;
}

// The planes of the space, each read as it comes.
Builder& read_planes(Builder& builder, std::string_view bytes, const std::string& path) {
  try {
    for_each_plane(bytes, [&](const wire::Field& field) {
      builder.set_plane_bytes(0);  // the plane before this one is gone
      Plane plane = read_plane(field, [&](std::uint64_t made) { builder.check_memory(made); });
      builder.set_plane_bytes(plane.structure_bytes);
      bool gpu = plane.name.starts_with("/device:GPU:"), tpu = plane.name.starts_with("/device:TPU:");
      if (gpu || tpu) {
        DevicePlaneName device = device_plane_name(plane.name);
        if (device.device >= 0 && (tpu || device.sparse_core < 0))
          builder.device_plane(plane, device.device, tpu, device.sparse_core);
      } else if (plane.name == "/host:CPU") {
        builder.host_plane(plane);
      } else if (plane.name == "/host:metadata") {
        builder.metadata_plane(plane, bytes);
      }
    });
  } catch (const wire::WireError& e) {
    throw InputError(
        fmt::format("{}: not a valid XSpace protobuf at byte {}: {}", path, e.offset(), e.what()));
  }
  return builder;
}

}  // namespace

Profile read_space(std::string_view bytes, const std::string& path, const ReadOptions& options) {
  Builder builder(path, bytes.size(), options.max_memory);
  return read_planes(builder, bytes, path).finish();
}

std::vector<Profile> read_space_workers(std::string_view bytes, const std::string& path,
                                        const ReadOptions& options) {
  Builder builder(path, bytes.size(), options.max_memory);
  Profile whole = read_planes(builder, bytes, path).finish();
  return split_by_device_groups(std::move(whole), builder.step_groups());
}

}  // namespace perfgate::xplane
