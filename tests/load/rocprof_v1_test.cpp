// Issue 75, item 3: rocprof v1 (`rocprof --hip-trace`, ROCm 5.x and 6.x), whose results.json has
// its times as strings and whose results.db is an SQLite file of tblextr.py's tables: kernels,
// copies and HIP calls per GPU and queue, as the rocprofv3 reader gives them. Both files are built
// here from one set of records, with the column names and pids of ROCm's rocprofiler
// (bin/tblextr.py, bin/sqlitedb.py, bin/dform.py); the database is also read by plain SQL, and the
// reader's numbers are compared with that reading.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "load/load.h"
#include "load/rocprof/rocprof_v1.h"
#include "support/helpers.h"
#include "support/nsys_builder.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kBase = 5'000'000'000;  // BeginNs as the profiler's clock gives them

struct Row {
  const char* table;  // HIP, OPS, COPY
  std::int64_t begin, end;
  std::int64_t device, queue, tid, index;
  const char* name;
};

// Three HIP calls on thread 77; hipLaunchKernel #1 runs gemm on GPU 0 (queue 0), hipMemcpy #2 a copy
// to GPU 0, hipLaunchKernel #3 relu on GPU 1 (queue 2).
const Row kRows[] = {
    {"HIP", kBase + 1000, kBase + 1500, -1, -1, 77, 1, "hipLaunchKernel"},
    {"HIP", kBase + 2000, kBase + 2600, -1, -1, 77, 2, "hipMemcpy"},
    {"HIP", kBase + 3000, kBase + 3400, -1, -1, 77, 3, "hipLaunchKernel"},
    {"OPS", kBase + 1600, kBase + 2600, 0, 0, 0, 1, "void gemm_kernel<float>(float*, int)"},
    {"COPY", kBase + 2100, kBase + 2500, 0, 0, 0, 2, "CopyHostToDevice"},
    {"OPS", kBase + 3500, kBase + 3800, 1, 2, 0, 3, "relu_kernel"},
};

// results.db as tblextr.py creates it: api_table_descr for HIP, ops_table_descr for OPS and COPY
// (--hip-trace: COPY holds the ops whose name has Memcpy, Copy or Fill), then post_process_data's
// DurationNs.
std::string results_db_sql() {
  std::string sql =
      "CREATE TABLE HIP (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"pid\" INTEGER, \"tid\" INTEGER, \"Name\" "
      "TEXT, \"args\" TEXT, \"Index\" INTEGER, \"Data\" TEXT, \"__section\" INTEGER, \"__lane\" INTEGER, "
      "\"DurationNs\" INTEGER);";
  for (const char* ops : {"OPS", "COPY"})
    sql += fmt::format(
        "CREATE TABLE {} (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"dev-id\" INTEGER, \"queue-id\" INTEGER, "
        "\"Name\" TEXT, \"pid\" INTEGER, \"tid\" INTEGER, \"roctx-range\" TEXT, \"stream-id\" INTEGER, "
        "\"Index\" INTEGER, \"Data\" TEXT, \"__section\" INTEGER, \"__lane\" INTEGER, \"DurationNs\" "
        "INTEGER);",
        ops);
  for (const Row& r : kRows) {
    if (std::string_view(r.table) == "HIP")
      sql +=
          fmt::format("INSERT INTO HIP VALUES ({}, {}, 4242, {}, '{}', '( stream(0))', {}, '', 2, {}, {});",
                      r.begin, r.end, r.tid, r.name, r.index, r.tid, r.end - r.begin);
    else
      sql +=
          fmt::format("INSERT INTO {} VALUES ({}, {}, {}, {}, '{}', 4242, {}, '', {}, {}, '', {}, {}, {});",
                      r.table, r.begin, r.end, r.device, r.queue, r.name, r.tid, r.queue, r.index,
                      std::string_view(r.table) == "COPY" ? 1 : 6 + r.device, r.queue, r.end - r.begin);
  }
  return sql;
}

// results.json as dform.py and sqlitedb.py's dump_json write it: '{ "traceEvents":[{}', the lanes'
// process_name records, then each row an "X" event whose every value is a string (ts and dur in
// whole microseconds), with the table's columns in args. `numbers`: ts and dur as JSON numbers.
std::string results_json(bool numbers) {
  std::string json = "{ \"traceEvents\":[{}\n";
  json +=
      ",{\"args\":{\"name\":\"CPU HIP "
      "API\"},\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"sort_index\":0}\n";
  json +=
      ",{\"args\":{\"name\":\"COPY\"},\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"sort_index\":1}\n";
  json +=
      ",{\"args\":{\"name\":\"GPU0\"},\"ph\":\"M\",\"pid\":6,\"name\":\"process_name\",\"sort_index\":2}\n";
  auto number = [&](std::int64_t v) { return numbers ? std::to_string(v) : fmt::format("\"{}\"", v); };
  for (const Row& r : kRows) {
    bool hip = std::string_view(r.table) == "HIP";
    std::int64_t pid = hip ? 2 : std::string_view(r.table) == "COPY" ? 1 : 6 + r.device;
    // dump_json leaves out "Index", the correlation id, at both levels: the JSON links no launch.
    json += fmt::format(
        ",{{\"ph\":\"X\",\"name\":\"{}\",\"pid\":\"{}\",\"tid\":\"{}\",\"ts\":{},\"dur\":{}"
        ",",
        r.name, pid, hip ? r.tid : r.queue, number(r.begin / 1000), number((r.end - r.begin) / 1000));
    if (hip)
      json += fmt::format(
          "\n  \"args\":{{\n    \"BeginNs\":\"{}\",\n    \"EndNs\":\"{}\",\n    \"pid\":\"4242\",\n    "
          "\"tid\":\"{}\",\n    \"Name\":\"{}\",\n    \"args\":\"( stream(0))\",\n    \"Data\":\"\",\n    "
          "\"DurationNs\":\"{}\"\n  }}\n}}\n",
          r.begin, r.end, r.tid, r.name, r.end - r.begin);
    else
      json += fmt::format(
          "\n  \"args\":{{\n    \"BeginNs\":\"{}\",\n    \"EndNs\":\"{}\",\n    \"dev-id\":\"{}\",\n    "
          "\"queue-id\":\"{}\",\n    \"Name\":\"{}\",\n    \"pid\":\"4242\",\n    \"tid\":\"0\",\n    "
          "\"stream-id\":\"{}\",\n    \"Data\":\"\",\n    \"DurationNs\":\"{}\"\n  }}\n}}\n",
          r.begin, r.end, r.device, r.queue, r.name, r.queue, r.end - r.begin);
  }
  json += "],\n\"otherData\": {\n    \"ROCm version\": \"5.7.1\"\n  }\n}";
  return json;
}

// `correlated`: the HIP calls' correlation ids are in the file (results.db's Index; results.json
// has none).
void expect_the_rows(const Profile& p, bool correlated) {
  ASSERT_EQ(p.runtime_calls.size(), 3u);
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[0].id, 0);
  EXPECT_EQ(p.devices[1].id, 1);
  const GpuActivity* gemm = nullptr;
  const GpuActivity* relu = nullptr;
  const GpuActivity* copy = nullptr;
  for (const GpuActivity& a : p.gpu_activities) {
    std::string_view name = p.strings.view(a.name);
    if (name.starts_with("void gemm")) gemm = &a;
    if (name == "relu_kernel") relu = &a;
    if (name == "CopyHostToDevice") copy = &a;
  }
  ASSERT_TRUE(gemm && relu && copy);
  EXPECT_EQ(gemm->kind, GpuActivityKind::Kernel);
  EXPECT_EQ(gemm->device, 0);
  EXPECT_EQ(gemm->stream, 0u);
  EXPECT_EQ(gemm->start, kBase + 1600);
  EXPECT_EQ(gemm->end, kBase + 2600);
  EXPECT_EQ(gemm->correlation, correlated ? 1 : 0);
  EXPECT_EQ(relu->device, 1);
  EXPECT_EQ(relu->stream, 2u);
  EXPECT_EQ(relu->correlation, correlated ? 3 : 0);
  EXPECT_EQ(copy->kind, GpuActivityKind::Memcpy);
  EXPECT_EQ(copy->copy_kind, CopyKind::HostToDevice);
  EXPECT_EQ(copy->device, 0);
  // The launches: the HIP call with the kernel's correlation id.
  for (const RuntimeCall& c : p.runtime_calls) {
    if (!correlated) break;
    if (c.correlation == 1) {
      EXPECT_EQ(p.strings.view(c.name), "hipLaunchKernel");
    }
    if (c.correlation == 2) {
      EXPECT_EQ(p.strings.view(c.name), "hipMemcpy");
    }
    EXPECT_EQ(p.threads[c.thread].tid, 77);
  }
}

TEST(RocprofV1, ResultsJsonWithStringNumbers) {
  for (bool numbers : {false, true}) {
    SCOPED_TRACE(numbers ? "numbers" : "strings");
    Profile p = load_json(results_json(numbers), "results.json");
    EXPECT_EQ(p.info.format, "rocprof-v1-json");
    expect_the_rows(p, false);
  }
}

TEST(RocprofV1, ResultsJsonWithoutArgsTakesTsAndDurInMicroseconds) {
  std::string json =
      "{\"traceEvents\":[{},{\"ph\":\"X\",\"name\":\"k\",\"pid\":\"6\",\"tid\":\"1\",\"ts\":\"12\",\"dur\":"
      "\"3\"},"
      "{\"ph\":\"X\",\"name\":\"hipLaunchKernel\",\"pid\":\"2\",\"tid\":\"9\",\"ts\":\"10\",\"dur\":\"1\"},"
      "{\"ph\":\"X\",\"name\":\"hsa_queue_create\",\"pid\":\"3\",\"tid\":\"9\",\"ts\":\"1\",\"dur\":\"1\"}]}";
  Profile p = load_json(json, "results.json");
  ASSERT_EQ(p.gpu_activities.size(), 1u);  // the HSA API call is not read
  EXPECT_EQ(p.gpu_activities[0].start, 12'000);
  EXPECT_EQ(p.gpu_activities[0].end, 15'000);
  EXPECT_EQ(p.gpu_activities[0].device, 0);  // pid 6: GPU 0
  ASSERT_EQ(p.runtime_calls.size(), 1u);
}

TEST(RocprofV1, ResultsDbEqualsItsOwnSqlReading) {
  std::string path = make_sqlite(temp_dir() + "/results.db", results_db_sql());
  Profile p = load_json(sqlite_bytes(results_db_sql()), "results.db");
  EXPECT_EQ(p.info.format, "rocprof-v1-db");
  expect_the_rows(p, true);
  // The same numbers by plain SQL: kernel time per GPU, copies, HIP calls, and the run's report.
  ReportModel r = report_of_files({path}, default_book());
  for (std::int64_t device : {0, 1}) {
    double busy_ns =
        query_number(path, fmt::format("SELECT sum(EndNs - BeginNs) FROM OPS WHERE \"dev-id\" = {}", device));
    TimeNs ours = 0;
    for (const GpuActivity& a : p.gpu_activities)
      if (a.kind == GpuActivityKind::Kernel && a.device == device) ours += a.end - a.start;
    EXPECT_EQ(static_cast<double>(ours), busy_ns) << device;
  }
  EXPECT_EQ(query_number(path, "SELECT count(*) FROM HIP"), static_cast<double>(p.runtime_calls.size()));
  EXPECT_EQ(query_number(path, "SELECT count(*) FROM COPY"), 1.0);
  EXPECT_EQ(r.inputs[0].format, "nsys-sqlite");  // the SQLite reader's name; the profile's format says which
  EXPECT_EQ(r.metric(Metric::GpuCount), 2.0);
}

TEST(RocprofV1, ResultsDbAndJsonOfOneRunAgree) {
  Profile db = load_json(sqlite_bytes(results_db_sql()), "results.db");
  Profile json = load_json(results_json(false), "results.json");
  ASSERT_EQ(db.gpu_activities.size(), json.gpu_activities.size());
  for (std::size_t i = 0; i < db.gpu_activities.size(); ++i) {
    EXPECT_EQ(db.gpu_activities[i].start, json.gpu_activities[i].start) << i;
    EXPECT_EQ(db.gpu_activities[i].end, json.gpu_activities[i].end) << i;
    EXPECT_EQ(db.gpu_activities[i].device, json.gpu_activities[i].device) << i;
    EXPECT_EQ(db.gpu_activities[i].stream, json.gpu_activities[i].stream) << i;
  }
}

// Issue 91, item 5: a copy's bytes are its HIP call's arguments (tblextr.py's args column,
// "( dst(0x…) src(0x…) sizeBytes(24) kind(1))"), where before every v1 copy was "copied 0 B". As
// tblextr.py writes them: a copy's row has the pid, the tid and the stream index of its HIP call,
// its JSON event the stream as its lane and the thread in its args, and no Index.
struct CopyRun {
  const char* call;  // the HIP call
  const char* args;
  std::int64_t tid, stream, index;
  std::int64_t call_begin, call_end;
  const char* op;  // the copy, "" where the trace holds none
  std::int64_t begin, end;
};
const CopyRun kCopies[] = {
    {"hipMemcpy", "( dst(0x7f1200000000) src(0x55d0c0a0b000) sizeBytes(24) kind(1))", 77, 0, 11, kBase + 1000,
     kBase + 3000, "CopyHostToDevice", kBase + 2000, kBase + 2400},
    // Two queued on stream 1 before either runs.
    {"hipMemcpyAsync", "( dst(0x55d0c0c00000) src(0x7f1200100000) sizeBytes(1048576) kind(2) stream(1))", 77,
     1, 12, kBase + 4000, kBase + 4500, "CopyDeviceToHost", kBase + 5000, kBase + 7000},
    {"hipMemsetD32Async", "( dst(0x7f1200200000) value(0) count(256) stream(1))", 77, 1, 13, kBase + 4600,
     kBase + 4800, "FillBuffer", kBase + 7100, kBase + 7200},
    {"hipMemcpy2D",
     "( dst(0x7f1200300000) dpitch(1024) src(0x7f1200400000) spitch(1024) width(256) height(8) kind(3))", 78,
     0, 14, kBase + 8000, kBase + 9000, "CopyDeviceToDevice", kBase + 8200, kBase + 8600},
    // A copy of nothing: no op recorded; the next call's copy is still its own.
    {"hipMemcpy", "( dst(0x7f1200000000) src(0x55d0c0a0b000) sizeBytes(0) kind(1))", 77, 0, 15, kBase + 9500,
     kBase + 9600, "", 0, 0},
    {"hipMemcpy", "( dst(0x7f1200000000) src(0x55d0c0a0b000) sizeBytes(4096) kind(1))", 77, 0, 16,
     kBase + 10000, kBase + 11000, "CopyHostToDevice", kBase + 10100, kBase + 10500},
};

std::string copies_db_sql() {
  std::string sql =
      "CREATE TABLE HIP (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"pid\" INTEGER, \"tid\" INTEGER, \"Name\" "
      "TEXT, \"args\" TEXT, \"Index\" INTEGER, \"Data\" TEXT, \"__section\" INTEGER, \"__lane\" INTEGER, "
      "\"DurationNs\" INTEGER);"
      "CREATE TABLE COPY (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"dev-id\" INTEGER, \"queue-id\" INTEGER, "
      "\"Name\" TEXT, \"pid\" INTEGER, \"tid\" INTEGER, \"roctx-range\" TEXT, \"stream-id\" INTEGER, "
      "\"Index\" INTEGER, \"Data\" TEXT, \"__section\" INTEGER, \"__lane\" INTEGER, \"DurationNs\" INTEGER);";
  for (const CopyRun& c : kCopies) {
    sql +=
        fmt::format("INSERT INTO HIP VALUES ({}, {}, 4242, {}, '{}', '{}', {}, '', 2, {}, {});", c.call_begin,
                    c.call_end, c.tid, c.call, c.args, c.index, c.tid, c.call_end - c.call_begin);
    if (*c.op)
      sql +=
          fmt::format("INSERT INTO COPY VALUES ({}, {}, 0, 0, '{}', 4242, {}, '{}', {}, {}, '', 1, {}, {});",
                      c.begin, c.end, c.op, c.tid, c.op, c.stream, c.index, c.stream, c.end - c.begin);
  }
  return sql;
}

std::string copies_json() {
  std::string json = "{ \"traceEvents\":[{}\n";
  for (const CopyRun& c : kCopies) {
    json += fmt::format(
        ",{{\"ph\":\"X\",\"name\":\"{}\",\"pid\":\"2\",\"tid\":\"{}\",\"ts\":\"{}\",\"dur\":\"{}\",\n  "
        "\"args\":{{\n    \"BeginNs\":\"{}\",\n    \"EndNs\":\"{}\",\n    \"pid\":\"4242\",\n    "
        "\"tid\":\"{}\",\n"
        "    \"Name\":\"{}\",\n    \"args\":\"{}\",\n    \"Data\":\"\",\n    \"DurationNs\":\"{}\"\n  "
        "}}\n}}\n",
        c.call, c.tid, c.call_begin / 1000, (c.call_end - c.call_begin) / 1000, c.call_begin, c.call_end,
        c.tid, c.call, c.args, c.call_end - c.call_begin);
    if (*c.op)
      json += fmt::format(
          ",{{\"ph\":\"X\",\"name\":\"{}\",\"pid\":\"1\",\"tid\":\"{}\",\"ts\":\"{}\",\"dur\":\"{}\",\n  "
          "\"args\":{{\n    \"BeginNs\":\"{}\",\n    \"EndNs\":\"{}\",\n    \"dev-id\":\"0\",\n    "
          "\"queue-id\":\"0\",\n    \"Name\":\"{}\",\n    \"pid\":\"4242\",\n    \"tid\":\"{}\",\n    "
          "\"stream-id\":\"{}\",\n    \"Data\":\"\",\n    \"DurationNs\":\"{}\"\n  }}\n}}\n",
          c.op, c.stream, c.begin / 1000, (c.end - c.begin) / 1000, c.begin, c.end, c.op, c.tid, c.stream,
          c.end - c.begin);
  }
  json += "],\n\"otherData\": {\n    \"ROCm version\": \"5.7.1\"\n  }\n}";
  return json;
}

TEST(RocprofV1, CopyBytesAreTheirHipCallsSizeArguments) {
  // By hand: 24 B and 4,096 B host to device, 1 MiB back, 256 32-bit words set, 256 x 8 device to device.
  const std::pair<const char*, std::uint64_t> expected[] = {
      {"CopyDeviceToHost", 1048576}, {"FillBuffer", 1024}, {"CopyDeviceToDevice", 2048}};
  for (const auto& [name, bytes] :
       {std::pair{"results.db", sqlite_bytes(copies_db_sql())}, std::pair{"results.json", copies_json()}}) {
    SCOPED_TRACE(name);
    Profile p = load_json(bytes, name);
    std::vector<std::uint64_t> h2d;
    for (const GpuActivity& a : p.gpu_activities) {
      std::string_view op = p.strings.view(a.name);
      if (op == "CopyHostToDevice") h2d.push_back(a.bytes);
      for (const auto& [other, b] : expected) {
        if (op == other) {
          EXPECT_EQ(a.bytes, b) << op;
        }
      }
    }
    EXPECT_EQ(h2d, (std::vector<std::uint64_t>{24, 4096}));
    // The report: 4,120 B host to device in 800 ns, 5.15 GB/s; 1 MiB back in 2 µs, 524.288 GB/s.
    ReportModel r = report_of_bytes({{name, std::make_shared<const std::string>(bytes)}}, default_book());
    EXPECT_EQ(r.metric(Metric::MemcpyH2dBytes), 4120.0);
    ASSERT_TRUE(r.metric(Metric::MemcpyH2dGbps));
    EXPECT_NEAR(*r.metric(Metric::MemcpyH2dGbps), 5.15, 1e-9);
    EXPECT_EQ(r.metric(Metric::MemcpyD2hBytes), 1048576.0);
    EXPECT_NEAR(r.metric(Metric::MemcpyD2hGbps).value_or(0), 524.288, 1e-9);
    EXPECT_EQ(r.metric(Metric::MemcpyD2dBytes), 2048.0);
  }
}

TEST(RocprofV1, CopySizeArgumentsOfEachCall) {
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemcpy", "( dst(0x1) src(0x2) sizeBytes(24) kind(1))"), 24u);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemcpyHtoDAsync", "dst=0x1, src=0x2, sizeBytes=4096, stream=0x3"),
            4096u);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemcpyPeer",
                                   "( dst(0x1) dstDeviceId(1) src(0x2) srcDeviceId(0) sizeBytes(8))"),
            8u);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemset", "( dst(0x1) value(0) sizeBytes(512))"), 512u);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemsetD16", "( dst(0x1) value(0) count(10))"), 20u);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemsetD8Async", "( dst(0x1) value(0) count(10) stream(2))"), 10u);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemset2D", "( dst(0x1) pitch(64) value(0) width(3) height(5))"), 15u);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemcpyToArray",
                                   "( dst(0x1) wOffset(0) hOffset(0) src(0x2) count(100) kind(1))"),
            100u);
  // No size stated, or another call: none.
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemcpy3D", "( p(0x7ffd))"), std::nullopt);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipLaunchKernel", "( sizeBytes(24))"), std::nullopt);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemcpy", "( dst(0x1) mysizeBytes(24))"), std::nullopt);
  EXPECT_EQ(rocprof::v1_copy_bytes("hipMemcpy", "( dst(0x1) sizeBytes(0x18))"), std::nullopt);
}

TEST(RocprofV1, AnotherDatabaseIsRefusedNamingBoth) {
  std::string bytes = sqlite_bytes("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  try {
    load_json(bytes, "other.db");
    FAIL() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nor a rocprof v1 results.db"), std::string::npos) << e.what();
  }
}

// Item 7: a format perfgate knows and does not read is refused naming it and what to give instead.
TEST(RocprofV1, KnownFormatsNotReadAreRefusedNamingWhatToGive) {
  std::string dir = temp_dir();
  const std::pair<std::string, std::string> cases[] = {
      {write_text(dir + "/results.csv", "\"Index\",\"KernelName\",\"gpu-id\"\n0,\"k\",0\n"),
       "a rocprof v1 CSV (results.csv or a *stats.csv), which perfgate does not read: give it the same run's "
       "results.json or results.db"},
      {write_text(dir + "/kernel_trace.csv",
                  "\"Kind\",\"Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\"\n"),
       "a rocprofv3 CSV, which perfgate does not read: give it rocprofv3's JSON"},
      {write_text(dir + "/run.nsys-rep", "binary"),
       "an Nsight Systems report, which perfgate does not read: give it its SQLite export"},
      {write_text(dir + "/events.out.tfevents.1.host", "binary"), "a TensorBoard event file"},
  };
  for (const auto& [path, said] : cases) {
    try {
      load_run({path});
      ADD_FAILURE() << path << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(said), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace perfgate::testing
