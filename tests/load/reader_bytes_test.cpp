// Issue 73: every reader fed bytes in memory, plain and gzip, with no file on disk
// (support/read_bytes.h: the bytes sniffed once, inflated where gzip, and handed to the reader
// the sniff chose), each with what it parsed written out; and the refusals of bad bytes naming the
// input.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/gzip.h"
#include "load/reader.h"
#include "neuron/neuron_fixture.h"
#include "support/nsys_builder.h"
#include "support/read_bytes.h"
#include "support/snapshot_builder.h"
#include "support/trace_builder.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

const HostEvent* find_event(const Profile& p, std::string_view name) {
  auto at = std::find_if(p.host_events.begin(), p.host_events.end(),
                         [&](const HostEvent& e) { return p.str(e.name) == name; });
  return at == p.host_events.end() ? nullptr : &*at;
}

// Reads `bytes` plain and gzip'd; `check` gets each reading and whether it was the gzip one.
template <typename Check>
void plain_and_gzip(const std::string& bytes, const std::string& format, const Check& check) {
  for (bool gzip : {false, true}) {
    SCOPED_TRACE(gzip ? "gzip" : "plain");
    ReadBytes read = read_bytes(bytes, gzip);
    EXPECT_EQ(read.format, format);
    check(read, gzip);
  }
}

// 20,000 ops, about 3 MB of JSON: pieces of 1 MiB for the parallel reader, lent where they lie in
// memory, or inflated by the thread that cuts them.
TEST(ReaderBytes, KinetoJsonOnOneThreadAndInPieces) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100", 9, 0, 85899345920, 132)
      .op("aten::mm", 10, 100, 7, 1, R"("Input Dims": [[32, 64], [64, 16]])")
      .runtime("cudaLaunchKernel", 20, 5, 55, 7)
      .kernel("sm90_gemm", 40, 30, 55, 0, 7);
  for (int i = 0; i < 20000; ++i) t.op("aten::add", 200 + i * 10.0, 5);
  std::string json = t.json();
  ASSERT_GT(json.size(), std::size_t{2} << 20);
  for (bool gzip : {false, true})
    for (unsigned threads : {1u, 2u}) {
      SCOPED_TRACE(fmt::format("gzip {}, {} threads", gzip, threads));
      ReadBytes read = read_bytes(json, gzip, {}, threads, "rank0.pt.trace.json");
      EXPECT_EQ(read.format, gzip ? "kineto-json.gz" : "kineto-json");
      ASSERT_EQ(read.profiles.size(), 1u);
      const Profile& p = read.profiles[0];
      EXPECT_EQ(p.worker, "rank0");
      EXPECT_EQ(p.source_path, "rank0.pt.trace.json");
      EXPECT_EQ(p.host_events.size(), 20001u);
      const HostEvent* mm = find_event(p, "aten::mm");
      ASSERT_NE(mm, nullptr);
      EXPECT_EQ(mm->start, 10'000);
      EXPECT_EQ(p.str(p.details(*mm).input_dims), "[[32,64],[64,16]]");
      ASSERT_EQ(p.gpu_activities.size(), 1u);
      EXPECT_EQ(p.str(p.gpu_activities[0].name), "sm90_gemm");
      EXPECT_EQ(p.gpu_activities[0].correlation, 55);
      ASSERT_EQ(p.runtime_calls.size(), 1u);
      EXPECT_EQ(p.runtime_calls[0].end - p.runtime_calls[0].start, 5'000);
      ASSERT_EQ(p.devices.size(), 1u);
      EXPECT_EQ(p.devices[0].sm_count, 132);
    }
}

// A legacy trace gzip'd is found by what it holds (the exporter writes plain files, but a user may
// compress one).
TEST(ReaderBytes, LegacyJson) {
  auto event = [](const std::string& name, double ts, double dur, int tid, const std::string& args = "{}") {
    return fmt::format(
        R"({{"name": "{}", "ph": "X", "ts": {}, "dur": {}, "tid": {}, "pid": "CPU functions", )"
        R"("args": {}}})",
        name, ts, dur, tid, args);
  };
  std::string trace = "[" + event("ProfilerStep#1", 100, 1000, 1) + ", " +
                      event("aten::linear", 110, 300, 1) + ", " +
                      event("aten::addmm", 120.5, 250.25, 1, R"({"Input Dims": [[16, 32], [32, 64]]})") +
                      ", " + event("AddmmBackward0", 450, 100, 2) + "]";
  plain_and_gzip(trace, "pytorch-legacy-json", [](const ReadBytes& read, bool) {
    ASSERT_EQ(read.profiles.size(), 1u);
    const Profile& p = read.profiles[0];
    EXPECT_EQ(p.info.format, "pytorch-legacy-json");
    ASSERT_EQ(p.host_events.size(), 4u);
    EXPECT_EQ(p.threads.size(), 2u);
    const HostEvent* addmm = find_event(p, "aten::addmm");
    ASSERT_NE(addmm, nullptr);
    EXPECT_EQ(addmm->start, 120'500);
    EXPECT_EQ(addmm->end, 120'500 + 250'250);
    EXPECT_EQ(p.str(p.host_events[addmm->parent].name), "aten::linear");
    EXPECT_EQ(p.str(p.details(*addmm).input_dims), "[[16,32],[32,64]]");
    EXPECT_EQ(find_event(p, "ProfilerStep#1")->kind, HostKind::Annotation);
  });
}

// An export with no file: SQLite opens the bytes where they lie (sqlite3_deserialize); a gzip'd
// one is inflated whole first, within the input memory limit.
TEST(ReaderBytes, NsysSqlite) {
  std::string db = sqlite_bytes(
      std::string(kNsysStringIds) + kNsysKernelTable + kNsysRuntimeTable + kNsysGpuTable +
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'gemm_kernel');"
      "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100', 85000000000, 132, 0, 9, 0);" +
      fmt::format(
          "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, "
          "nameId) VALUES (2000, 2500, 0, {}, 1, 1);",
          global_tid(10, 10)) +
      fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, "
                  "globalPid, demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ) VALUES "
                  "(3000, 5000, 0, 7, 1, {}, 2, 2, 128, 1, 1, 256, 1, 1);",
                  global_tid(10, 0)));
  plain_and_gzip(db, "nsys-sqlite", [](const ReadBytes& read, bool) {
    ASSERT_EQ(read.profiles.size(), 1u);
    const Profile& p = read.profiles[0];
    EXPECT_EQ(p.info.format, "nsys-sqlite");
    ASSERT_EQ(p.gpu_activities.size(), 1u);
    EXPECT_EQ(p.str(p.gpu_activities[0].name), "gemm_kernel");
    EXPECT_EQ(p.gpu_activities[0].end - p.gpu_activities[0].start, 2000);
    EXPECT_EQ(p.kernel_info[p.gpu_activities[0].kernel_info].grid[0], 128);
    ASSERT_EQ(p.runtime_calls.size(), 1u);
    EXPECT_EQ(p.str(p.runtime_calls[0].name), "cudaLaunchKernel");
    ASSERT_EQ(p.devices.size(), 1u);
    EXPECT_EQ(p.devices[0].name, "NVIDIA H100");
  });
  LoadOptions small;
  small.max_input_memory = db.size() - 1;  // its gzip is smaller; the database it inflates to is not
  ASSERT_LT(gzip_compress(db).size(), db.size() - 1);
  EXPECT_NE(read_bytes_error(db, true, small, "run.sqlite.gz").find("run.sqlite.gz: "), std::string::npos);
  EXPECT_NE(read_bytes_error(db, true, small).find("--max-input-memory"), std::string::npos);
  std::string not_a_database = std::string("SQLite format 3\0", 16) + "rest";
  std::string error = read_bytes_error(not_a_database, false, {}, "x.sqlite");
  EXPECT_EQ(error.rfind("x.sqlite: ", 0), 0u) << error;
  EXPECT_NE(error.find("not a database"), std::string::npos) << error;
}

TEST(ReaderBytes, NeuronJsonAndSummaryJson) {
  plain_and_gzip(neuron_full_json(), "neuron-json", [](const ReadBytes& read, bool) {
    ASSERT_EQ(read.profiles.size(), 1u);
    const Profile& p = read.profiles[0];
    ASSERT_TRUE(p.neuron.full_profile);
    ASSERT_EQ(p.neuron.instructions.size(), 5u);
    EXPECT_EQ(p.neuron.instructions[4].start, 4000);
    EXPECT_EQ(p.str(p.neuron.instructions[0].hlo_op), "%dot.1 = dot(%p0, %p1)");
    ASSERT_EQ(p.neuron.dmas.size(), 3u);
    EXPECT_EQ(p.neuron.dmas[1].bytes, 1096u);
  });
  plain_and_gzip(neuron_summary_json(), "neuron-summary-json", [](const ReadBytes& read, bool) {
    ASSERT_EQ(read.profiles.size(), 2u);  // one per node, named after the input's worker
    EXPECT_EQ(read.profiles[0].worker, "in-memory/n_fdc71a0b");
    EXPECT_EQ(read.profiles[1].worker, "in-memory/n_47cf9972");
    EXPECT_EQ(read.profiles[0].neuron.summary_value("total_time"), 0.002);
  });
}

// One GPU stream with a kernel and its launch on the host plane.
TEST(ReaderBytes, XSpace) {
  using namespace pb;
  Plane gpu = plane(0, "/device:GPU:0");
  gpu.stat_names = {{1, "correlation_id"}, {2, "hlo_op"}};
  gpu.event_names = {{1, "loop_add_fusion"}};
  gpu.lines = {line(7, "Stream #7(Compute)", 1000,
                    {event(1, 500'000, 2'000'000, {int_stat(1, 11), str_stat(2, "add_fusion")})})};
  Plane host = plane(1, "/host:CPU");
  host.stat_names = {{1, "correlation_id"}};
  host.event_names = {{1, "cuLaunchKernel"}};
  host.lines = {line(42, "python3", 0, {event(1, 1'000'000, 200'000, {int_stat(1, 11)})})};
  plain_and_gzip(space({gpu, host}), "xplane", [](const ReadBytes& read, bool) {
    ASSERT_EQ(read.profiles.size(), 1u);
    const Profile& p = read.profiles[0];
    ASSERT_EQ(p.gpu_activities.size(), 1u);
    EXPECT_EQ(p.str(p.gpu_activities[0].name), "loop_add_fusion");
    EXPECT_EQ(p.gpu_activities[0].start, 1500);  // 1,000 ns + 500,000 ps
    EXPECT_EQ(p.gpu_activities[0].end, 3500);
    ASSERT_EQ(p.runtime_calls.size(), 1u);
    EXPECT_EQ(p.runtime_calls[0].correlation, 11);
  });
}

TEST(ReaderBytes, Rocprofv3Json) {
  std::string document = R"({"rocprofiler-sdk-tool":[{"metadata":{"pid":908,"init_time":1,"fini_time":2},
 "agents":[{"id":{"handle":11},"type":2,"name":"gfx950","product_name":"AMD Instinct MI350X","logical_node_type_id":0,"cu_count":256,"gfx_target_version":90500}],
 "strings":{"buffer_records":[{"kind":"NONE","operations":[]},{"kind":"HIP_RUNTIME_API","operations":["hipMalloc","hipLaunchKernel"]},
   {"kind":"MEMORY_COPY","operations":[]},{"kind":"KERNEL_DISPATCH","operations":["NONE","KERNEL_DISPATCH_ENQUEUE","KERNEL_DISPATCH_COMPLETE"]}]},
 "kernel_symbols":[{"kernel_id":1,"kernel_name":"gemm.kd","formatted_kernel_name":"gemm"}],
 "buffer_records":{"kernel_dispatch":[
   {"kind":3,"operation":2,"thread_id":908,"correlation_id":{"internal":5,"external":0},"start_timestamp":2000,"end_timestamp":5000,
    "dispatch_info":{"agent_id":{"handle":11},"queue_id":{"handle":16},"kernel_id":1,"workgroup_size":{"x":256,"y":1,"z":1},"grid_size":{"x":65536,"y":1,"z":1}}}],
  "hip_api":[{"kind":1,"operation":1,"thread_id":908,"correlation_id":{"internal":5,"external":0},"start_timestamp":1000,"end_timestamp":1500}]}}]})";
  plain_and_gzip(document, "rocprofv3-json", [](const ReadBytes& read, bool) {
    ASSERT_EQ(read.profiles.size(), 1u);
    const Profile& p = read.profiles[0];
    EXPECT_EQ(p.worker, "in-memory");
    ASSERT_EQ(p.gpu_activities.size(), 1u);
    EXPECT_EQ(p.str(p.gpu_activities[0].name), "gemm");
    EXPECT_EQ(p.gpu_activities[0].start, 2000);
    EXPECT_EQ(p.gpu_activities[0].stream, 16u);                              // the queue
    EXPECT_EQ(p.kernel_info[p.gpu_activities[0].kernel_info].grid[0], 256);  // 65,536 work-items / 256
    ASSERT_EQ(p.runtime_calls.size(), 1u);
    EXPECT_EQ(p.str(p.runtime_calls[0].name), "hipLaunchKernel");
  });
}

// Read in two passes, each a stream opened again from the bytes (inflated again where gzip).
TEST(ReaderBytes, MemorySnapshot) {
  constexpr std::uint64_t kMiB = 1 << 20;
  test::Snapshot s;
  s.segments.push_back({0, 0x100000, 4 * kMiB, {{0x100000, kMiB, "active_allocated", {}}}});
  s.device_traces.push_back({{"alloc", 0x100000, kMiB, 10, {}}});
  plain_and_gzip(test::snapshot_pickle(s), "pytorch-memory-snapshot", [&](const ReadBytes& read, bool) {
    ASSERT_EQ(read.profiles.size(), 1u);
    const Profile& p = read.profiles[0];
    ASSERT_NE(p.memory_snapshot, nullptr);
    // The totals entering the window (nothing allocated), then after the alloc: 1 MiB.
    ASSERT_EQ(p.memory_samples.size(), 2u);
    EXPECT_EQ(p.memory_samples[0].total_allocated, 0);
    EXPECT_EQ(p.memory_samples[1].total_allocated, static_cast<std::int64_t>(kMiB));
    EXPECT_EQ(p.memory_samples[1].total_reserved, static_cast<std::int64_t>(4 * kMiB));
  });
}

// The refusals name the input: no reader's bytes, an empty input, a gzip stream that inflates to
// what no reader reads, one cut short, one corrupt.
TEST(ReaderBytes, RefusalsNameTheInput) {
  std::string json = TraceBuilder().op("aten::add", 1, 2).json();
  EXPECT_EQ(read_bytes_error("notes", false, {}, "notes.txt").rfind("notes.txt: not a Kineto JSON trace", 0),
            0u);
  EXPECT_EQ(read_bytes_error("", false, {}, "zero.json"), "zero.json: empty file (0 bytes)");
  std::string garbage = read_bytes_error("hello, world", true, {}, "g.json.gz");
  EXPECT_EQ(garbage.rfind("g.json.gz: invalid JSON", 0), 0u) << garbage;
  std::string packed = gzip_compress(json + std::string(20000, ' '));
  SniffedInput cut =
      sniff_input(std::make_unique<MemoryInput>("cut.json.gz", packed.substr(0, packed.size() / 2)));
  ASSERT_NE(cut.reader, nullptr);
  EXPECT_STREQ(cut.reader->name, "kineto-json.gz");
  std::string corrupt = gzip_compress(json);
  corrupt[corrupt.size() / 2] ^= 0x55;
  SniffedInput bad = sniff_input(std::make_unique<MemoryInput>("bad.json.gz", corrupt));
  ASSERT_NE(bad.reader, nullptr);
  EXPECT_STREQ(bad.reader->name, "kineto-json.gz");
  auto message = [](const SniffedInput& in) {
    const std::string worker = "w";
    const LoadOptions options;
    const std::function<void(std::uint64_t)> no_progress;
    try {
      in.reader->read({*in.bytes, worker, options, 1, no_progress}, [](Profile&&) {});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(cut).rfind("cut.json.gz: truncated gzip stream", 0), 0u) << message(cut);
  EXPECT_NE(message(bad).find("bad.json.gz: "), std::string::npos) << message(bad);
}

}  // namespace
}  // namespace perfgate::testing
