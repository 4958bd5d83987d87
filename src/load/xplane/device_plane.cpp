// A device plane (/device:GPU:N, /device:TPU:N): its streams' events as GPU kernels, copies and
// memsets, with the XLA op each ran for, and the plane's stats as the device's description.
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

// "key:value" tokens separated by spaces (kernel_details, memcpy_details, Memset_details).
std::string_view token(std::string_view details, std::string_view key) {
  std::size_t at = 0;
  while (at < details.size()) {
    std::size_t end = details.find(' ', at);
    if (end == std::string_view::npos) end = details.size();
    std::string_view t = details.substr(at, end - at);
    if (t.size() > key.size() && t.starts_with(key) && t[key.size()] == ':') return t.substr(key.size() + 1);
    at = end + 1;
  }
  return {};
}

template <typename T>
bool number(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "grid:40,1,1": three positive 32-bit numbers, else left at -1.
void dims(std::string_view text, std::int32_t (&out)[3]) {
  std::int32_t v[3];
  for (int i = 0; i < 3; ++i) {
    std::size_t comma = i < 2 ? text.find(',') : text.size();
    if (comma == std::string_view::npos || !number(text.substr(0, comma), v[i]) || v[i] < 0) return;
    text.remove_prefix(i < 2 ? comma + 1 : comma);
  }
  for (int i = 0; i < 3; ++i) out[i] = v[i];
}

KernelLaunchInfo launch_info(std::string_view details, double occupancy) {
  KernelLaunchInfo k;
  dims(token(details, "grid"), k.grid);
  dims(token(details, "block"), k.block);
  // ROCm's XLA writes nonsense register counts (2191500840 in the shared MI300X profile): kept
  // only where they fit.
  std::int32_t regs = -1;
  if (number(token(details, "regs"), regs) && regs >= 0 && regs <= 65536) k.registers_per_thread = regs;
  std::int32_t fixed = -1, dynamic = -1;
  if (number(token(details, "static_shared"), fixed) && number(token(details, "dynamic_shared"), dynamic) &&
      fixed >= 0 && dynamic >= 0 && fixed <= INT32_MAX - dynamic)
    k.shared_memory = fixed + dynamic;
  if (occupancy >= 0 && occupancy <= 100) k.occupancy_pct = static_cast<float>(occupancy);
  return k;
}

// kind_src/kind_dst (CUDA: device, pinned, pageable, managed) or, where they say nothing (ROCm
// writes "kind:Unknown"), the event's own name (MemcpyH2D, CopyDeviceToDevice).
CopyKind copy_kind(std::string_view details, std::string_view name, bool& pageable, bool& pinned) {
  std::string_view from = token(details, "kind_src"), to = token(details, "kind_dst");
  auto host = [](std::string_view k) { return k == "pinned" || k == "pageable" || k == "host"; };
  pageable = from == "pageable" || to == "pageable";
  pinned = !pageable && (from == "pinned" || to == "pinned");
  if (!from.empty() && !to.empty()) {
    if (host(from) && to == "device") return CopyKind::HostToDevice;
    if (from == "device" && host(to)) return CopyKind::DeviceToHost;
    if (from == "device" && to == "device") return CopyKind::DeviceToDevice;
    if (host(from) && host(to)) return CopyKind::HostToHost;
  }
  if (name.find("H2D") != std::string_view::npos || name.find("HostToDevice") != std::string_view::npos)
    return CopyKind::HostToDevice;
  if (name.find("D2H") != std::string_view::npos || name.find("DeviceToHost") != std::string_view::npos)
    return CopyKind::DeviceToHost;
  if (name.find("D2D") != std::string_view::npos || name.find("DeviceToDevice") != std::string_view::npos)
    return CopyKind::DeviceToDevice;
  if (name.find("P2P") != std::string_view::npos || name.find("Peer") != std::string_view::npos)
    return CopyKind::PeerToPeer;
  return CopyKind::Unknown;
}

// The GPU's description from the plane's stats. A GPU without a name (ROCm's XLA writes none) is
// named as the Kineto reader names an unnamed AMD GPU, "AMD GPU compute 9.4, 304 CUs, 192 GiB",
// with its engine clock where the plane states it (clock_rate, kHz: XLA's ROCm tracer writes the
// agent's max engine clock), which gpu_peaks matches: an MI355X and an MI350X differ by it alone
// (2,400 and 2,200 MHz; 256 CUs and 288 GiB each).
DeviceInfo device_info(const Plane& plane, std::int32_t id, bool tpu) {
  DeviceInfo d;
  d.id = id;
  std::string_view vendor, name;
  std::int64_t clock_khz = 0;
  for (const Stat& s : plane.stats) {
    std::string_view key = plane.stat_name(s);
    std::int64_t v = 0;
    bool integer = s.integer(v);
    if (key == "device_vendor") vendor = s.text;
    if (key == "gpu_device_name" || key == "device_type_string") name = s.text;
    if (key == "compute_cap_major" && integer && v >= 0 && v < 1000) d.compute_major = static_cast<int>(v);
    if (key == "compute_cap_minor" && integer && v >= 0 && v < 1000) d.compute_minor = static_cast<int>(v);
    if (key == "core_count" && integer && v > 0 && v < 1000000) d.sm_count = static_cast<int>(v);
    if (key == "memory_size" && integer && v > 0) d.total_memory_bytes = static_cast<std::uint64_t>(v);
    if (key == "clock_rate" && integer && v > 0 && v < 100'000'000) clock_khz = v;
  }
  if (!name.empty()) {
    d.name = std::string(name);
  } else if (vendor == "AMD") {
    d.name = "AMD GPU";
    if (d.compute_major >= 0)
      d.name += fmt::format(" compute {}.{}", d.compute_major, std::max(d.compute_minor, 0));
    if (d.sm_count > 0) d.name += fmt::format(", {} CUs", d.sm_count);
    if (d.total_memory_bytes > 0)
      d.name +=
          fmt::format(", {:.0f} GiB", static_cast<double>(d.total_memory_bytes) / (1024.0 * 1024 * 1024));
    if (clock_khz > 0) d.name += fmt::format(", {:.0f} MHz", static_cast<double>(clock_khz) / 1000.0);
  } else if (!vendor.empty()) {
    d.name = fmt::format("{} GPU", vendor);
  } else if (tpu) {
    d.name = "TPU";  // a TPU plane names its generation in device_type_string ("TPU v6 lite")
  }
  return d;
}

// The lines that are streams: "Stream #N(...)" on a GPU, "XLA Ops" on a TPU, "Sparse Core Ops" on a
// TPU's SparseCore. The others are views XProf derives from them (XLA Modules, Steps, Sparse Core
// Modules, Source code, ...) and would count work twice.
bool stream_line(const Line& line, bool tpu, bool sparse_core) {
  if (sparse_core) return line.name == "Sparse Core Ops";
  return tpu ? line.name == "XLA Ops" : line.name.starts_with("Stream #");
}

// A SparseCore's ops lines as streams of their own on the TPU, apart from the TensorCore's lines
// (docs/formats.md): 2^30 + 65,536 x the SparseCore's number + the line's place in its plane.
constexpr std::uint32_t kSparseCoreStreams = 1u << 30;

}  // namespace

void Builder::device_plane(const Plane& plane, std::int32_t device, bool tpu, std::int32_t sparse_core) {
  StatKeys keys(plane);
  std::size_t activities_before = p_.gpu_activities.size();
  bool sparse = sparse_core >= 0;
  module_runs_.clear();
  copy_starts_.clear();
  if (tpu && !sparse) tpu_module_runs(plane, keys, device);
  if (tpu) tpu_devices_.insert(device);
  Event e;
  for (std::size_t index = 0; index < plane.lines.size(); ++index) {
    const Line& line = plane.lines[index];
    if (line.name == "Steps" && !sparse) {
      device_steps(plane, line, keys, device);
      continue;
    }
    if (!stream_line(line, tpu, sparse)) {
      derived_lines_ += !line.events.empty();
      if (first_derived_line_.empty() && !line.events.empty()) first_derived_line_ = std::string(line.name);
      continue;
    }
    auto stream = line.id >= 0 && line.id < INT32_MAX ? static_cast<std::uint32_t>(line.id)
                                                      : static_cast<std::uint32_t>(index);
    if (sparse)
      stream = kSparseCoreStreams + (static_cast<std::uint32_t>(sparse_core & 0x3fff) << 16) +
               static_cast<std::uint32_t>(index & 0xffff);
    for (const wire::Field& field : line.events) {
      read_event(field, e, &event_check_);
      TimeNs start = 0, end = 0;
      if (e.aggregated) {
        ++aggregated_;
        continue;
      }
      if (!span(line, e, start, end)) continue;
      const EventMetadata* meta = plane.event(e.metadata_id);
      std::string_view name =
          meta ? (meta->name.empty() ? meta->display_name : meta->name) : std::string_view();
      // A TPU op's metadata names it by its long form, and by the instruction as its display name.
      if (tpu && meta && !meta->display_name.empty()) name = meta->display_name;
      GpuActivity a;
      a.start = start;
      a.end = end;
      a.device = device;
      a.stream = stream;
      a.name = p_.strings.intern(name);
      std::string_view kernel_details, hlo_op, hlo_module;
      double occupancy = -1, xla_flops = -1, xla_bytes = -1;
      std::int64_t program = -1;
      for (const Stat& s : e.stats) {
        std::int64_t v = 0;
        switch (keys(s)) {
          case StatKey::CorrelationId:
            if (s.integer(v)) a.correlation = v;
            break;
          case StatKey::KernelDetails:
            kernel_details = plane.text(s);
            break;
          case StatKey::MemcpyDetails: {
            a.kind = GpuActivityKind::Memcpy;
            a.copy_kind = copy_kind(plane.text(s), name, a.pageable, a.pinned);
            number(token(plane.text(s), "size"), a.bytes);
            break;
          }
          case StatKey::MemsetDetails:
            a.kind = GpuActivityKind::Memset;
            if (!number(token(plane.text(s), "num_bytes"), a.bytes))
              number(token(plane.text(s), "size"), a.bytes);
            break;
          case StatKey::HloOp:
            hlo_op = plane.text(s);
            break;
          case StatKey::HloModule:
            hlo_module = plane.text(s);
            break;
          case StatKey::ProgramId:
            if (!s.integer(program)) program = -1;
            break;
          case StatKey::Flops:
          case StatKey::BytesAccessed:
            // Counts: whole and not negative, else not read.
            if (s.integer(v) && v >= 0)
              (keys(s) == StatKey::Flops ? xla_flops : xla_bytes) = static_cast<double>(v);
            break;
          case StatKey::OccupancyPct:
            if (s.kind == Stat::Kind::Double && std::isfinite(s.real)) occupancy = s.real;
            break;
          default:
            break;
        }
      }
      if (tpu && !sparse && !tpu_op(plane, meta, e, keys, a)) continue;
      // Every kernel has its launch record (the analyses read it); -1 where the event has no details.
      if (a.kind == GpuActivityKind::Kernel) {
        a.kernel_info = static_cast<std::uint32_t>(p_.kernel_info.size());
        p_.kernel_info.push_back(launch_info(kernel_details, occupancy));
      }
      sparse_ops_ += sparse;
      if (!hlo_op.empty()) {
        StringId op = p_.strings.intern(hlo_op), module = p_.strings.intern(hlo_module);
        // Its launch is part of the instruction's op (xla_ops.cpp): kernels, and the memsets and
        // copies an instruction runs (a cuDNN convolution's workspace memset).
        if (a.correlation != 0)
          xla_launches_.try_emplace(a.correlation, XlaLaunch{.module = module,
                                                             .op = op,
                                                             .kernel = a.name,
                                                             .program = program,
                                                             .flops = xla_flops,
                                                             .bytes = xla_bytes});
        // Each activity with its op, for the command buffers (command_buffers.cpp).
        xla_activities_.push_back({.activity = static_cast<std::uint32_t>(p_.gpu_activities.size()),
                                   .module = module,
                                   .op = op,
                                   .program = program});
        // The XLA op the work ran for, as a range on its stream: the regions table sums the time of
        // each op's kernels (docs/formats.md).
        p_.gpu_ranges.push_back({.start = start, .end = end, .name = op, .device = device, .stream = stream});
      }
      p_.gpu_activities.push_back(a);
      if ((++events_ & 0xffff) == 0) check_memory();
    }
  }
  if (p_.gpu_activities.size() > activities_before) device_ran(plane, device, tpu, sparse);
}

void Builder::device_ran(const Plane& plane, std::int32_t device, bool tpu, bool sparse_core) {
  // A SparseCore's ops are its TPU's work: the TPU is described by its TensorCore plane, or by a
  // SparseCore's where that plane ran nothing (Builder::finish).
  if (!sparse_core) {
    p_.devices.push_back(device_info(plane, device, tpu));
    return;
  }
  ++sparse_planes_;
  sparse_devices_.try_emplace(device, device_info(plane, device, tpu));
}

}  // namespace perfgate::xplane
