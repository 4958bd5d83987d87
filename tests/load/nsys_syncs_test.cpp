// Issue 52, item 2: an Nsight Systems export's synchronisation rows
// (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) read into the sync events a Kineto trace's cuda_sync events
// give, so that the export's critical path joins host and GPU. Hand-built exports with nsys
// 2026.x's table shapes; times in the SQL are nanoseconds, in the comments microseconds.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "engine/analyse_profiles.h"
#include "support/helpers.h"
#include "support/nsys_builder.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kPid = 100;
constexpr std::int64_t kInvalid = 4294967295;  // CUPTI's invalid stream or event id

std::string schema() {
  return std::string(kNsysStringIds) + kNsysKernelTable + kNsysRuntimeTable + kNsysSyncTable +
         kNsysCudaEventTable +
         "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'gemm_kernel'), "
         "(3, 'cudaStreamSynchronize_v3020'), (4, 'cudaEventRecord_v3020'), (5, "
         "'cudaEventSynchronize_v3020');";
}
// A kernel of the process's one CUDA context, 2, on GPU 1.
std::string kernel(double start_us, double end_us, std::int64_t correlation, int stream) {
  return fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, "
      "globalPid, demangledName, shortName) VALUES ({}, {}, 1, 2, {}, {}, {}, 2, 2);",
      start_us * 1000, end_us * 1000, stream, correlation, global_tid(kPid, 0));
}
std::string call(double start_us, double end_us, std::int64_t correlation, int name_id) {
  return fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId) "
      "VALUES ({}, {}, 0, {}, {}, {});",
      start_us * 1000, end_us * 1000, global_tid(kPid, 1), correlation, name_id);
}
// A synchronisation row of context 2 saying deviceId 0, as the 2-GPU nsys 2026 exports write it
// for the second GPU's process: the context says GPU 1.
std::string sync_row(double start_us, double end_us, std::int64_t correlation, std::int64_t stream,
                     int sync_type, std::int64_t event, std::int64_t event_sync_id) {
  return fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, "
      "correlationId, globalPid, syncType, eventId, eventSyncId) VALUES ({}, {}, 0, 2, {}, {}, {}, {}, {}, "
      "{});",
      start_us * 1000, end_us * 1000, stream, correlation, global_tid(kPid, 0), sync_type, event,
      event_sync_id);
}

CriticalPathStep only_path(const std::string& path) {
  LoadedRun run = load_run({path});
  EXPECT_EQ(run.workers.size(), 1u);
  WorkerAnalysis w = analyse_profile(run.workers.at(0), default_classification(), {});
  EXPECT_EQ(w.critical_path.steps.size(), 1u);
  return w.critical_path.steps.at(0);
}

TimeNs by(const CriticalPathStep& s, PathBound b) {
  return s.by[static_cast<std::size_t>(b)];
}

// K1 [5,1005) on stream 7, launched at [0,2); cudaStreamSynchronize [3,1006) waits for it; K2
// [1015,2015) launched at [1010,1012). The row says syncType 2 (stream wait event), as nsys 2024.6
// and 2026.1 write a stream synchronise, but its event id is invalid and its stream valid: a Stream
// Sync, of GPU 1 (its context's), whatever its deviceId says. Its edge from K1's end to the call's
// end chains the kernels: 5 (launch delay) + 1,000 + 0
// (the call blocks; the idle host to the next call is off the path) + 5 (launch delay) + 1,000 =
// 2,010. Without the row the GPU work joins no host work after it: the longest chain is the host's
// 2 + 0 + 2 up to K2's launch, + 5 + 1,000 = 1,007.
TEST(NsysSyncs, AStreamSynchronizeJoinsTheKernelsThroughTheHost) {
  std::string body = kernel(5, 1005, 1, 7) + call(0, 2, 1, 1) + call(3, 1006, 2, 3) +
                     kernel(1015, 2015, 3, 7) + call(1010, 1012, 3, 1);
  std::string with = make_sqlite(temp_dir() + "/nsys_stream_sync.sqlite",
                                 schema() + body + sync_row(1005, 1006, 2, 7, 2, kInvalid, 0));
  Profile p = std::move(load_run({with}).workers.at(0));
  ASSERT_EQ(p.gpu_syncs.size(), 1u);
  EXPECT_EQ(p.gpu_syncs[0].kind, GpuSyncKind::Stream);
  EXPECT_EQ(p.gpu_syncs[0].device, 1);
  EXPECT_EQ(p.gpu_syncs[0].stream, 7);
  EXPECT_EQ(p.gpu_syncs[0].correlation, 2);
  CriticalPathStep s = only_path(with);
  EXPECT_EQ(s.length, 2010'000);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 2000'000);
  EXPECT_EQ(by(s, PathBound::LaunchOverhead), 10'000);

  std::string without = make_sqlite(temp_dir() + "/nsys_no_sync.sqlite", schema() + body);
  EXPECT_EQ(only_path(without).length, 1007'000);
}

// The Kineto test's shape (CriticalPath.EventSyncWaitsForTheKernelBeforeTheRecord): K1 [5,305) on
// stream 7 launched at [0,2); cudaEventRecord [3,4) records event 9 after it (the CUDA_EVENT row:
// its correlation 11 and stream 7); K2 [10,20) on stream 8; cudaEventSynchronize [8,310) waits for
// event 9 (no stream: an Event Sync); then K3 [325,425) launched at [320,322). The edge from K1's
// end to the call's end: 5 + 300 + 0 + 5 + 100 = 410. Without the record (an export made without
// --cuda-event-trace) the row joins nothing and a note says so: K1's chain, 5 + 300 = 305, is the
// longest (the host's: 2 + 1 + 2 + 0 up to K3's launch, + 5 + 100 = 110).
TEST(NsysSyncs, AnEventSynchronizeNeedsTheEventsRecord) {
  std::string body = call(0, 2, 1, 1) + kernel(5, 305, 1, 7) + call(3, 4, 11, 4) + call(5, 7, 2, 1) +
                     kernel(10, 20, 2, 8) + call(8, 310, 12, 5) + call(320, 322, 3, 1) +
                     kernel(325, 425, 3, 8) + sync_row(305, 310, 12, kInvalid, 1, 9, 1);
  std::string record = fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId, contextId, streamId, correlationId, globalPid, "
      "eventId, eventSyncId) VALUES (1, 2, 7, 11, {}, 9, 1);",
      global_tid(kPid, 0));
  std::string with = make_sqlite(temp_dir() + "/nsys_event_sync.sqlite", schema() + body + record);
  Profile p = std::move(load_run({with}).workers.at(0));
  ASSERT_EQ(p.gpu_syncs.size(), 1u);
  EXPECT_EQ(p.gpu_syncs[0].kind, GpuSyncKind::Event);
  EXPECT_EQ(p.gpu_syncs[0].event_record_correlation, 11);
  EXPECT_EQ(p.gpu_syncs[0].wait_on_stream, 7);
  CriticalPathStep s = only_path(with);
  EXPECT_EQ(s.length, 410'000);
  EXPECT_EQ(by(s, PathBound::GpuCompute), 400'000);

  std::string without = make_sqlite(temp_dir() + "/nsys_event_unrecorded.sqlite", schema() + body);
  Profile q = std::move(load_run({without}).workers.at(0));
  ASSERT_EQ(q.gpu_syncs.size(), 1u);
  EXPECT_EQ(q.gpu_syncs[0].event_record_correlation, -1);
  bool noted = false;
  for (const std::string& note : note_texts(q.notes))
    noted |= note.starts_with("1 of the process's 1 synchronisations wait on a CUDA event");
  EXPECT_TRUE(noted);
  EXPECT_EQ(only_path(without).length, 305'000);
}

}  // namespace
}  // namespace perfgate::testing
