// The processes of an Nsight Systems export being read: one Profile per process, with the
// per-process look-ups the table readers share (names from StringIds, threads from globalTid).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "load/chunked_appender.h"
#include "load/nsys/sqlite_db.h"
#include "perfgate/profile.h"

namespace perfgate::nsys {

// globalTid packs the process and the thread: pid = (globalTid >> 24) & 0xFFFFFF,
// tid = globalTid & 0xFFFFFF; the process key is globalTid with the tid bits cleared.
inline std::int64_t process_key(std::int64_t global_tid) {
  return global_tid & static_cast<std::int64_t>(0xFFFFFFFFFF000000ULL);
}
inline std::int64_t pid_of(std::int64_t global_tid) {
  return (global_tid >> 24) & 0xFFFFFF;
}
inline std::int64_t tid_of(std::int64_t global_tid) {
  return global_tid & 0xFFFFFF;
}

struct CapturedProcess {
  std::int64_t key = 0;
  Profile profile;
  std::unordered_map<std::int64_t, StringId> names;         // StringIds id -> interned name
  std::unordered_map<std::int64_t, StringId> api_names;     // the same, without "_v7000" suffixes
  std::unordered_map<std::int64_t, std::uint32_t> threads;  // globalTid -> thread index
  bool gpu_activity = false;
  // Rows grow here without a vector's doubling, then move into the profile at exact size.
  ChunkedAppender<RuntimeCall> runtime_calls;
  ChunkedAppender<GpuActivity> gpu_activities;
  ChunkedAppender<KernelLaunchInfo> kernel_info;
  ChunkedAppender<HostEvent> host_events;
};

class Capture {
 public:
  explicit Capture(const SqliteDb& db);

  const SqliteDb& db() const { return db_; }
  CapturedProcess& process(std::int64_t key);
  std::uint32_t thread(CapturedProcess& p, std::int64_t global_tid);
  // A StringIds entry interned in the process's pool; "" for an unknown id.
  StringId name(CapturedProcess& p, std::int64_t string_id);
  std::string text(std::int64_t string_id);  // a StringIds entry as text

  std::vector<std::unique_ptr<CapturedProcess>>& processes() { return processes_; }

 private:
  const SqliteDb& db_;
  std::unique_ptr<Statement> string_lookup_;  // null when the export has no StringIds
  std::unique_ptr<Statement> thread_name_lookup_;
  std::vector<std::unique_ptr<CapturedProcess>> processes_;
  std::unordered_map<std::int64_t, CapturedProcess*> by_key_;
};

// The table readers, each one pass over its table (src/load/nsys/*.cpp).
void read_runtime_calls(Capture& capture);
void read_gpu_activities(Capture& capture);  // kernels, memcpy, memset
struct NvtxSummary {
  std::size_t ranges = 0;
  std::size_t cross_thread = 0;  // start/end ranges that ended on another thread
  std::size_t pyprof_ops = 0;
  std::size_t emit_nvtx_ops = 0;
};
NvtxSummary read_nvtx(Capture& capture);
std::vector<DeviceInfo> read_gpus(const SqliteDb& db);
void read_export_info(const SqliteDb& db, ProfileInfo& info);

}  // namespace perfgate::nsys
