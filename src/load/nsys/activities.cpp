// CUDA runtime/driver calls and the GPU work they launched (kernels, memcpy, memset).
#include <algorithm>

#include <fmt/format.h>

#include "load/nsys/capture.h"

namespace perfgate::nsys {
namespace {

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys keeps the API version in the name.
std::string_view without_version(std::string_view name) {
  std::size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 == name.size()) return name;
  bool digits = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(v) + 2, name.end(),
                            [](char c) { return c >= '0' && c <= '9'; });
  return digits ? name.substr(0, v) : name;
}

// ENUM_CUDA_MEMCPY_OPER ids (stable across versions; old exports lack the table).
CopyKind copy_kind(std::int64_t kind) {
  switch (kind) {
    case 1:   // HtoD
    case 3:   // HtoA
    case 11:  // unified HtoD
      return CopyKind::HostToDevice;
    case 2:   // DtoH
    case 4:   // AtoH
    case 12:  // unified DtoH
      return CopyKind::DeviceToHost;
    case 5:   // AtoA
    case 6:   // AtoD
    case 7:   // DtoA
    case 8:   // DtoD
    case 13:  // unified DtoD
      return CopyKind::DeviceToDevice;
    case 9:
      return CopyKind::HostToHost;
    case 10:
      return CopyKind::PeerToPeer;
    default:
      return CopyKind::Unknown;
  }
}

const char* copy_label(CopyKind kind) {
  switch (kind) {
    case CopyKind::HostToDevice:
      return "HtoD";
    case CopyKind::DeviceToHost:
      return "DtoH";
    case CopyKind::DeviceToDevice:
      return "DtoD";
    case CopyKind::HostToHost:
      return "HtoH";
    case CopyKind::PeerToPeer:
      return "PtoP";
    case CopyKind::Unknown:
      break;
  }
  return "Unknown";
}

// ENUM_CUDA_MEM_KIND: 0 pageable, 1 pinned, 2 device, 3 array, 4 managed (as Kineto spells them).
const char* memory_label(std::int64_t kind) {
  static constexpr const char* kLabels[] = {"Pageable", "Pinned", "Device", "Array", "Managed"};
  return kind >= 0 && kind < 5 ? kLabels[kind] : "Unknown";
}

std::int32_t clamp32(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -1, INT32_MAX));
}

GpuActivity common(const Statement& row) {
  GpuActivity a;
  a.start = row.integer(0);
  a.end = row.integer(1);
  a.device = clamp32(row.integer(2));
  a.stream = static_cast<std::uint32_t>(std::max<std::int64_t>(0, row.integer(3)));
  a.correlation = row.integer(4);
  return a;
}

void read_kernels(Capture& capture) {
  const SqliteDb& db = capture.db();
  if (!db.has_table("CUPTI_ACTIVITY_KIND_KERNEL")) return;
  const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
  Statement row(
      db, select_columns(db, table,
                         {"start", "end", "deviceId", "streamId", "correlationId", "demangledName",
                          "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                          "registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "contextId"},
                         capture.rows_of_process(table, "globalPid")));
  CapturedProcess& p = capture.process();
  while (row.next()) {
    GpuActivity k = common(row);
    k.kind = GpuActivityKind::Kernel;
    std::int64_t name_id = row.is_null(5) ? row.integer(6) : row.integer(5);
    if (!capture.usable(row, table, k.start, k.end)) continue;
    k.name = capture.name(name_id);
    KernelLaunchInfo info;
    for (int i = 0; i < 3; ++i) {
      if (!row.is_null(7 + i)) info.grid[i] = clamp32(row.integer(7 + i));
      if (!row.is_null(10 + i)) info.block[i] = clamp32(row.integer(10 + i));
    }
    if (!row.is_null(13)) info.registers_per_thread = clamp32(row.integer(13));
    if (!row.is_null(14) || !row.is_null(15)) info.shared_memory = clamp32(row.integer(14) + row.integer(15));
    k.kernel_info = capture.launch_info(info);
    if (!row.is_null(16)) p.context_devices.emplace(row.integer(16), k.device);
    p.gpu_activities.push_back(k);
  }
}

void read_copies(Capture& capture) {
  const SqliteDb& db = capture.db();
  if (!db.has_table("CUPTI_ACTIVITY_KIND_MEMCPY")) return;
  const std::string table = "CUPTI_ACTIVITY_KIND_MEMCPY";
  Statement row(db, select_columns(db, table,
                                   {"start", "end", "deviceId", "streamId", "correlationId", "bytes",
                                    "copyKind", "srcKind", "dstKind"},
                                   capture.rows_of_process(table, "globalPid")));
  CapturedProcess& p = capture.process();
  while (row.next()) {
    GpuActivity c = common(row);
    c.kind = GpuActivityKind::Memcpy;
    c.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, row.integer(5)));
    c.copy_kind = copy_kind(row.integer(6));
    std::int64_t src = row.optional_integer(7).value_or(-1), dst = row.optional_integer(8).value_or(-1);
    c.pageable = src == 0 || dst == 0;                 // CUDA_MEMOPR_MEMORY_KIND_PAGEABLE, in every version
    c.pinned = !c.pageable && (src == 1 || dst == 1);  // CUDA_MEMOPR_MEMORY_KIND_PINNED
    if (!capture.usable(row, table, c.start, c.end)) continue;
    c.name = p.profile.strings.intern(
        fmt::format("Memcpy {} ({} -> {})", copy_label(c.copy_kind), memory_label(src), memory_label(dst)));
    p.gpu_activities.push_back(c);
  }
}

void read_memsets(Capture& capture) {
  const SqliteDb& db = capture.db();
  if (!db.has_table("CUPTI_ACTIVITY_KIND_MEMSET")) return;
  const std::string table = "CUPTI_ACTIVITY_KIND_MEMSET";
  Statement row(
      db,
      select_columns(db, table, {"start", "end", "deviceId", "streamId", "correlationId", "bytes", "memKind"},
                     capture.rows_of_process(table, "globalPid")));
  CapturedProcess& p = capture.process();
  while (row.next()) {
    GpuActivity m = common(row);
    m.kind = GpuActivityKind::Memset;
    m.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, row.integer(5)));
    std::int64_t kind = row.optional_integer(6).value_or(2);
    if (!capture.usable(row, table, m.start, m.end)) continue;
    m.name = p.profile.strings.intern(fmt::format("Memset ({})", memory_label(kind)));
    p.gpu_activities.push_back(m);
  }
}

}  // namespace

void read_runtime_calls(Capture& capture) {
  const SqliteDb& db = capture.db();
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!db.has_table(table)) return;
  Statement row(db, select_columns(db, table, {"start", "end", "globalTid", "correlationId", "nameId"},
                                   capture.rows_of_process(table, "globalTid")));
  CapturedProcess& p = capture.process();
  while (row.next()) {
    RuntimeCall call;
    call.start = row.integer(0);
    call.end = row.integer(1);
    call.thread = capture.thread(row.integer(2));
    call.correlation = row.integer(3);
    std::int64_t name_id = row.integer(4);
    if (!capture.usable(row, table, call.start, call.end)) continue;
    auto it = p.api_names.find(name_id);
    if (it == p.api_names.end()) {
      StringId id = p.profile.strings.intern(without_version(capture.text(name_id)));
      it = p.api_names.emplace(name_id, id).first;
    }
    call.name = it->second;
    p.runtime_calls.push_back(call);
  }
  p.runtime_calls.move_into(p.profile.runtime_calls);
  sort_by_start(p.profile);
}

void read_gpu_activities(Capture& capture) {
  read_kernels(capture);
  read_copies(capture);
  read_memsets(capture);
  CapturedProcess& p = capture.process();
  p.gpu_activities.move_into(p.profile.gpu_activities);
}

}  // namespace perfgate::nsys
