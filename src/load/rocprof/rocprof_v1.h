// rocprof v1 (ROCm 5.x and 6.x `rocprof --hip-trace`; ROCm's rocprofiler, bin/tblextr.py): its
// results.json (a Chrome trace whose numbers are strings: sqlitedb.py's dump_json) and its
// results.db (SQLite tables HIP, OPS, COPY, KERN, rocTX), read into the same model the rocprofv3
// reader gives: kernels per GPU and queue, copies, HIP API calls (linked to their kernels by the
// correlation id, the tables' "Index"), roctx ranges (docs/formats.md, "rocprof v1").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/byte_source.h"
#include "model/profile.h"

namespace perfgate::nsys {
class SqliteDb;
}

namespace perfgate::rocprof {

// What tblextr.py writes, by table (its JSON: by the event's pid, the table's __section).
enum class V1Table : std::uint8_t { Hip, Ops, Copy, Kern, Roctx };

// One row of a table, or one event of the JSON, as both give it.
struct V1Record {
  V1Table table = V1Table::Hip;
  std::int64_t begin = -1, end = -1;  // BeginNs, EndNs
  std::int64_t device = -1;           // OPS' dev-id, KERN's gpu-id
  std::int64_t queue = -1;            // queue-id
  std::int64_t tid = 0;               // the calling thread (HIP, rocTX; OPS and COPY: their HIP call's)
  std::int64_t correlation = 0;       // Index
  std::int64_t pid = -1;              // the profiled process (pid)
  std::int64_t stream = -1;           // OPS and COPY: stream-id, the index of the HIP call's stream
  std::string name;                   // Name (KERN: KernelName)
  std::string args;  // HIP: the call's arguments, "( dst(0x…) src(0x…) sizeBytes(24) kind(1))"
};

// The bytes a HIP copy or memset call moves, from its arguments as tblextr.py writes them
// (`name(value)`, or roctracer's `name=value`): sizeBytes; width × height for the 2D calls; count for
// the array calls, times 2 or 4 for hipMemsetD16 and hipMemsetD32. nullopt for another call or
// arguments that state none (hipMemcpy3D, hipMemcpyParam2D: a struct).
std::optional<std::uint64_t> v1_copy_bytes(std::string_view name, std::string_view args);

// Collects the records of one file into its profile.
class V1Builder {
 public:
  void add(V1Record&& record);
  std::uint64_t memory_bytes() const;
  // The profile (sorted, devices listed, notes); throws InputError naming `path` when it holds no
  // kernel, copy, HIP call or roctx range.
  Profile finish(const std::string& path, const std::string& format);

 private:
  Profile profile_;
  std::vector<V1Record> kern_;  // KERN's dispatches: read only where OPS has no kernel
  bool ops_kernels_ = false;
  std::uint64_t bad_times_ = 0;
  TimeNs durations_ = 0;
  std::unordered_map<std::int64_t, std::uint32_t> threads_;
  std::vector<std::int32_t> devices_;
  // The copies and memsets, and the HIP calls that state their bytes, matched in finish().
  struct CopyCall {
    std::int64_t pid, tid, stream, correlation, begin, end;
    std::uint64_t bytes;
    bool async;  // the call may return before its op runs (…Async, the memsets)
  };
  struct CopyOp {
    std::int64_t pid, tid, stream, correlation;
    std::size_t activity;
  };
  std::vector<CopyCall> copy_calls_;
  std::vector<CopyOp> copy_ops_;
  void size_copies();
};

// Whether a JSON document's start (from its '{') is results.json: tblextr.py opens its
// traceEvents with an empty object ('{ "traceEvents":[{}').
bool looks_like_v1_json(std::string_view json_head);

void read_v1_json(ByteSource& source, const std::string& path, std::uint64_t max_memory,
                  const std::function<void(std::uint64_t)>& on_progress,
                  const std::function<void(Profile&&)>& emit);

// Whether the database has rocprof v1's tables (OPS, HIP, COPY or KERN with BeginNs and EndNs).
bool is_v1_database(const nsys::SqliteDb& db);
Profile read_v1_database(const nsys::SqliteDb& db);

}  // namespace perfgate::rocprof
