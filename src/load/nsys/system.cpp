// What the export says about the machine and itself: GPUs, nsys version, session start.
#include <algorithm>
#include <optional>

#include "load/nsys/capture.h"

namespace perfgate::nsys {

std::vector<DeviceInfo> read_gpus(const SqliteDb& db) {
  std::vector<DeviceInfo> gpus;
  if (db.has_table("TARGET_INFO_GPU")) {
    Statement row(db, select_columns(db, "TARGET_INFO_GPU",
                                     {"id", "cuDevice", "name", "computeMajor", "computeMinor", "totalMemory",
                                      "smCount"}));
    while (row.next()) {
      DeviceInfo d;
      // Kernel rows name the CUDA device ordinal; `id` is nsys's own GPU number.
      d.id = static_cast<std::int32_t>(row.optional_integer(1).value_or(row.integer(0)));
      d.name = std::string(row.text(2));
      d.compute_major = static_cast<int>(row.optional_integer(3).value_or(-1));
      d.compute_minor = static_cast<int>(row.optional_integer(4).value_or(-1));
      d.total_memory_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, row.integer(5)));
      d.sm_count = static_cast<int>(row.integer(6));
      gpus.push_back(std::move(d));
    }
  }
  if (db.has_table("TARGET_INFO_CUDA_DEVICE")) {  // nsys >= 2025.1; the only GPU facts in some files
    Statement row(db, select_columns(db, "TARGET_INFO_CUDA_DEVICE", {"cudaId", "numMultiprocessors"}));
    while (row.next()) {
      auto id = static_cast<std::int32_t>(row.integer(0));
      auto it = std::find_if(gpus.begin(), gpus.end(), [&](const DeviceInfo& d) { return d.id == id; });
      if (it == gpus.end()) {
        gpus.push_back(DeviceInfo{});
        it = gpus.end() - 1;
        it->id = id;
      }
      if (it->sm_count == 0) it->sm_count = static_cast<int>(row.integer(1));
    }
  }
  std::sort(gpus.begin(), gpus.end(), [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });
  gpus.erase(std::unique(gpus.begin(), gpus.end(),
                         [](const DeviceInfo& a, const DeviceInfo& b) { return a.id == b.id; }),
             gpus.end());
  return gpus;
}

namespace {

// The capture's own span: nsys writes "Profiling has started." and "Profiling has stopped." as
// diagnostic events on the export's time base (0 at the start of a whole capture; cut exports have
// neither). Kept only when both are there, in range and in order.
void read_capture_span(const SqliteDb& db, ProfileInfo& info) {
  if (!db.has_table("DIAGNOSTIC_EVENT")) return;
  Statement row(db, select_columns(db, "DIAGNOSTIC_EVENT", {"timestamp", "text"},
                                   "WHERE text IN ('Profiling has started.', 'Profiling has stopped.')"));
  std::optional<TimeNs> started, stopped;
  while (row.next()) {
    std::optional<std::int64_t> t = row.optional_integer(0);
    if (!t || row.bad_value() || *t < 0 || *t >= kMaxTimeNs) continue;
    std::optional<TimeNs>& slot = row.text(1) == "Profiling has started." ? started : stopped;
    if (!slot) slot = *t;
  }
  if (!started || !stopped || *stopped <= *started) return;
  info.profiler_start = *started;
  info.profiler_end = *stopped;
}

}  // namespace

void read_export_info(const SqliteDb& db, ProfileInfo& info) {
  // The table was renamed in nsys 2024.x; very old exports have neither.
  const char* table = db.has_table("META_DATA_EXPORT")   ? "META_DATA_EXPORT"
                      : db.has_table("EXPORT_META_DATA") ? "EXPORT_META_DATA"
                                                         : nullptr;
  if (table) {
    Statement row(db, select_columns(db, table, {"name", "value"}));
    while (row.next()) {
      std::string_view name = row.text(0);
      if (name == "EXPORT_SCHEMA_VERSION") info.schema_version = std::string(row.text(1));
      if (name == "EXPORT_PRODUCT_VERSION")
        info.attributes.emplace_back("nsys version", std::string(row.text(1)));
    }
  }
  if (info.attributes.empty()) info.attributes.emplace_back("nsys version", "unknown (no export metadata)");
  read_capture_span(db, info);
  if (db.has_table("TARGET_INFO_SESSION_START_TIME")) {
    Statement row(db, select_columns(db, "TARGET_INFO_SESSION_START_TIME", {"utcEpochNs", "utcTime"}));
    if (row.next()) {
      if (!row.is_null(0)) info.base_time_ns = row.integer(0);
      if (!row.text(1).empty()) info.attributes.emplace_back("session start (UTC)", std::string(row.text(1)));
    }
  }
}

}  // namespace perfgate::nsys
