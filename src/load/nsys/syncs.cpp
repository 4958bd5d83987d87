// CUPTI synchronisation records (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION): what the host or a stream
// waited for, read into the same GpuSync events a Kineto trace's cuda_sync events give, so that an
// export's critical path joins host and GPU as a Kineto trace's does.
#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "load/nsys/capture.h"

namespace perfgate::nsys {
namespace {

// CUPTI's invalid stream and event id (CUpti_ActivitySynchronization2: streamId is invalid for a
// context or event synchronise, cudaEventId for a context or stream synchronise).
constexpr std::int64_t kInvalidId = 0xFFFFFFFF;

// The kind from the fields CUPTI documents as valid for it, not from `syncType`: exports of nsys
// 2024.6 and 2026.1 write syncType 2 (stream wait event) for cudaStreamSynchronize rows.
GpuSyncKind sync_kind(bool has_event, bool has_stream) {
  if (has_event) return has_stream ? GpuSyncKind::StreamWaitEvent : GpuSyncKind::Event;
  return has_stream ? GpuSyncKind::Stream : GpuSyncKind::Context;
}

bool valid_id(const std::optional<std::int64_t>& id) {
  return id && *id >= 0 && *id != kInvalidId;
}

// The cudaEventRecord of each (eventId, eventSyncId): its correlation id and stream
// (CUPTI_ACTIVITY_KIND_CUDA_EVENT, written with --cuda-event-trace; often present but empty).
using EventKey = std::pair<std::int64_t, std::int64_t>;
struct EventRecord {
  std::int64_t correlation = -1;
  std::int32_t stream = -1;
};

std::map<EventKey, EventRecord> event_records(Capture& capture) {
  std::map<EventKey, EventRecord> out;
  const std::string table = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
  if (!capture.db().has_table(table)) return out;
  Statement row(capture.db(),
                select_columns(capture.db(), table, {"eventId", "eventSyncId", "correlationId", "streamId"},
                               capture.rows_of_process(table, "globalPid")));
  while (row.next()) {
    std::optional<std::int64_t> stream = row.optional_integer(3);
    if (row.is_null(2) || !valid_id(stream) || row.bad_value()) continue;
    out[{row.integer(0), row.optional_integer(1).value_or(-1)}] = {row.integer(2),
                                                                   static_cast<std::int32_t>(*stream)};
  }
  return out;
}

}  // namespace

void read_syncs(Capture& capture) {
  const SqliteDb& db = capture.db();
  const std::string table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  if (!db.has_table(table)) return;
  std::map<EventKey, EventRecord> records = event_records(capture);
  Statement row(db, select_columns(db, table,
                                   {"start", "end", "deviceId", "streamId", "correlationId", "eventId",
                                    "eventSyncId", "contextId"},
                                   capture.rows_of_process(table, "globalPid")));
  const auto& context_devices = capture.process().context_devices;
  Profile& p = capture.process().profile;
  std::size_t unmatched = 0;
  while (row.next()) {
    GpuSync s;
    s.start = row.integer(0);
    s.end = row.integer(1);
    s.device = static_cast<std::int32_t>(std::clamp<std::int64_t>(row.integer(2), -1, INT32_MAX));
    std::optional<std::int64_t> stream = row.optional_integer(3), event = row.optional_integer(5);
    if (row.is_null(4) || !capture.usable(row, table, s.start, s.end)) continue;
    s.correlation = row.integer(4);
    if (auto it = context_devices.find(row.optional_integer(7).value_or(-1)); it != context_devices.end())
      s.device = it->second;
    s.kind = sync_kind(valid_id(event), valid_id(stream));
    if (valid_id(stream)) s.stream = static_cast<std::int32_t>(std::min<std::int64_t>(*stream, INT32_MAX));
    if (valid_id(event)) {
      auto it = records.find({*event, row.optional_integer(6).value_or(-1)});
      if (it == records.end()) {
        ++unmatched;  // the record's stream is unknown: no edge, as HTA with an unmatched record
      } else {
        s.event_record_correlation = it->second.correlation;
        s.wait_on_stream = it->second.stream;
      }
    }
    p.gpu_syncs.push_back(s);
  }
  std::stable_sort(p.gpu_syncs.begin(), p.gpu_syncs.end(),
                   [](const GpuSync& x, const GpuSync& y) { return x.start < y.start; });
  if (unmatched > 0)
    capture.process().profile.notes.push_back(note<NoteId::nsys_sync_event_unrecorded>(
        arg<"unmatched">(unmatched), arg<"syncs">(p.gpu_syncs.size())));
}

}  // namespace perfgate::nsys
