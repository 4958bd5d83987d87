// One process of an Nsight Systems export being read into its Profile, with the look-ups the
// table readers share (names from StringIds, threads from globalTid). Processes are read one
// at a time, each table filtered to the process, so only one process's events are held.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/chunked_appender.h"
#include "load/nsys/sqlite_db.h"
#include "model/profile.h"

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

// The NVTX rows that are ranges (push/pop and start/end, with their payload variants: event types
// 59, 60, 70 and 71) and ended. Written as ORs: SQLite tests an IN list on a column without an index
// by a look-up in a temporary b-tree per row.
inline constexpr const char* kNvtxRangeRows =
    "(eventType = 59 OR eventType = 60 OR eventType = 70 OR eventType = 71) AND \"end\" IS NOT NULL";

struct CapturedProcess {
  std::int64_t key = 0;
  Profile profile;
  std::unordered_map<std::int64_t, StringId> names;         // StringIds id -> interned name
  std::unordered_map<std::int64_t, StringId> api_names;     // the same, without "_v7000" suffixes
  std::unordered_map<std::int64_t, std::uint32_t> threads;  // globalTid -> thread index
  // CUDA context -> its kernels' device: the synchronisation rows' own deviceId is 0 for every
  // process of a 2-GPU nsys 2025/2026 export, the context is right.
  std::unordered_map<std::int64_t, std::int32_t> context_devices;
  // Rows grow here without a vector's doubling, then move into the profile at exact size.
  ChunkedAppender<RuntimeCall> runtime_calls;
  ChunkedAppender<GpuActivity> gpu_activities;
  ChunkedAppender<HostEvent> host_events;
  ChunkedAppender<OpDetails> op_details;
};

class Capture {
 public:
  Capture(const SqliteDb& db, std::int64_t process_key);

  const SqliteDb& db() const { return db_; }
  CapturedProcess& process() { return process_; }
  // "WHERE <the row belongs to this process>" for a table whose `column` is a globalTid or
  // globalPid; `and_also` is added as a further condition.
  std::string rows_of_process(const std::string& table, std::string_view column,
                              std::string_view and_also = {}) const;
  std::uint32_t thread(std::int64_t global_tid);
  // A StringIds entry interned in the process's pool; "" for an unknown id.
  StringId name(std::int64_t string_id);
  std::string text(std::int64_t string_id);  // a StringIds entry as text, valid UTF-8
  // `text` as valid UTF-8 (bad bytes as U+FFFD), counting the strings that were not.
  std::string valid_text(std::string_view text);
  // False, counting the row as skipped, when the row read has a value that is not an integer or
  // times out of range: start and end within [0, 2^62) ns, end not before start, at most 30 days
  // apart (the Kineto reader's limit), and the durations of the process's rows so far adding up to
  // less than 2^62 ns. Sums and differences of such times never overflow.
  bool usable(const Statement& row, std::string_view table, TimeNs start, TimeNs end);
  // "N rows of TABLE skipped: ..." for the profile's notes.
  std::vector<Note> skipped_notes() const;
  // Launch configurations repeat (one per kernel and grid): each distinct one is stored once.
  std::uint32_t launch_info(const KernelLaunchInfo& info);

 private:
  const SqliteDb& db_;
  std::unique_ptr<Statement> string_lookup_;  // null when the export has no StringIds
  std::unique_ptr<Statement> thread_name_lookup_;
  CapturedProcess process_;
  std::unordered_map<std::string, std::uint32_t> launch_infos_;  // keyed by a KernelLaunchInfo's bytes
  struct Skipped {
    std::size_t bad_value = 0, bad_time = 0, reversed = 0, beyond_total = 0;
  };
  std::map<std::string, Skipped, std::less<>> skipped_;  // by table
  std::size_t invalid_utf8_ = 0;                         // strings repaired by valid_text
  TimeNs durations_ = 0;                                 // of the rows read: below kMaxTimeNs
};

// The processes that are workers: those with GPU work; failing that, those with CUDA calls or
// NVTX ranges. Sorted by key.
std::vector<std::int64_t> worker_processes(const SqliteDb& db);

// The table readers, each one pass over its table (src/load/nsys/*.cpp).
void read_runtime_calls(Capture& capture);
void read_gpu_activities(Capture& capture);  // kernels, memcpy, memset
// CUPTI_ACTIVITY_KIND_SYNCHRONIZATION rows as GpuSync events (src/load/nsys/syncs.cpp).
void read_syncs(Capture& capture);
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
