// A profile's records written back as the Kineto trace events they were read from (categories,
// lanes and the args perfgate's Kineto reader reads: load/kineto/fields.h), into the traceEvents
// array of a Chrome/Perfetto JSON trace (perfgate analyze --annotated-trace). Read back by
// perfgate, the selected records are the same records: the same kernels, ops, launches and the
// same critical path.
#pragma once

#include <cstdint>
#include <string>

#include "model/profile.h"
#include "render/json_writer.h"

namespace perfgate::cli {

// Kineto's time: microseconds with the nanoseconds as three decimals, written exactly (a double
// would round a 2^50 ns clock).
std::string kineto_time(TimeNs t);

// The records written: those that overlap [from, to] (GPU activities also where their launch call
// is written), or all of them.
struct RecordSelection {
  bool all = true;
  TimeNs from = 0;
  TimeNs to = 0;
  bool holds(TimeNs start, TimeNs end) const { return all || (end >= from && start <= to); }
};

// The records `selection` holds (host events, runtime calls, GPU activities with those their
// launches started, GPU ranges and synchronisations, memory samples): what write_records writes of
// them, and what the --annotated-trace-max-events bound counts.
std::uint64_t count_records(const Profile& profile, const RecordSelection& selection);

// The lane of a GPU activity: Kineto's (pid: the device, tid: the stream) moved by `pid_base`,
// so that the GPUs of several workers in one file keep lanes of their own (the device and stream
// are also args, which the reader prefers).
struct GpuLanes {
  std::int64_t pid_base = 0;
  std::uint64_t flow_base = 0;  // the forward/backward arrows' ids start after it: unique in the file
  std::int64_t pid(std::int32_t device) const { return pid_base + device; }
};

// Writes the selected records into an open array. Returns how many were written.
std::uint64_t write_records(JsonWriter& out, const Profile& profile, const RecordSelection& selection,
                            const GpuLanes& lanes);

// The name Kineto gives a synchronisation of this kind ("Context Sync", ...).
const char* gpu_sync_name(GpuSyncKind kind);

}  // namespace perfgate::cli
