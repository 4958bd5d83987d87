// Issue 59: rocprofv3's JSON (`rocprofv3 --output-format json`) on a hand-built document whose
// answers are written out here: dispatches per agent and queue named from kernel_symbols, a copy,
// a HIP launch joined by correlation, an RCCL call, the GPU agents as devices; gzip found by what
// it holds; bad input refused (exit 3), and the shared MI350X file against an independent count
// (tests/real/rocprof_expected.py).
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <map>
#include <string>

#include "common/errors.h"
#include "io/gzip.h"
#include "load/reader.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string document(const std::string& dispatches_tail = "") {
  return R"({"rocprofiler-sdk-tool":[{"metadata":{"pid":908,"init_time":1,"fini_time":2},
 "agents":[{"id":{"handle":10},"type":1,"name":"CPU","product_name":"AMD EPYC","logical_node_type_id":0,"cu_count":128,"gfx_target_version":0,"caches":[1,2]},
   {"id":{"handle":11},"type":2,"name":"gfx950","product_name":"AMD Instinct MI350X","logical_node_type_id":0,"cu_count":256,"gfx_target_version":90500},
   {"id":{"handle":12},"type":2,"name":"gfx950","product_name":"AMD Instinct MI350X","logical_node_type_id":1,"cu_count":256,"gfx_target_version":90500},
   {"id":{"handle":13},"type":2,"name":"gfx950","product_name":"AMD Instinct MI350X","logical_node_type_id":2,"cu_count":256,"gfx_target_version":90500}],
 "strings":{"buffer_records":[{"kind":"NONE","operations":[]},{"kind":"HIP_RUNTIME_API","operations":["hipMalloc","hipLaunchKernel"]},
   {"kind":"MEMORY_COPY","operations":["MEMORY_COPY_NONE","MEMORY_COPY_HOST_TO_HOST","MEMORY_COPY_HOST_TO_DEVICE","MEMORY_COPY_DEVICE_TO_HOST","MEMORY_COPY_DEVICE_TO_DEVICE"]},
   {"kind":"KERNEL_DISPATCH","operations":["NONE","KERNEL_DISPATCH_ENQUEUE","KERNEL_DISPATCH_COMPLETE"]},{"kind":"RCCL_API","operations":["ncclAllReduce"]}]},
 "kernel_symbols":[{"kernel_id":1,"kernel_name":"gemm.kd","formatted_kernel_name":"gemm"},{"kernel_id":2,"kernel_name":"relu.kd","formatted_kernel_name":"relu"}],
 "buffer_records":{"kernel_dispatch":[
   {"kind":3,"operation":2,"thread_id":908,"correlation_id":{"internal":5,"external":0},"start_timestamp":2000,"end_timestamp":5000,
    "dispatch_info":{"agent_id":{"handle":11},"queue_id":{"handle":16},"kernel_id":1,"group_segment_size":1024,"workgroup_size":{"x":256,"y":1,"z":1},"grid_size":{"x":65536,"y":1,"z":1}}},
   {"kind":3,"operation":2,"thread_id":908,"correlation_id":{"internal":6,"external":0},"start_timestamp":6000,"end_timestamp":7000,
    "dispatch_info":{"agent_id":{"handle":12},"queue_id":{"handle":17},"kernel_id":2,"workgroup_size":{"x":64,"y":1,"z":1},"grid_size":{"x":64,"y":1,"z":1}}},
   {})" + dispatches_tail +
         R"(],
  "hip_api":[{"kind":1,"operation":1,"thread_id":908,"correlation_id":{"internal":5,"external":0},"start_timestamp":1000,"end_timestamp":1500}],
  "memory_copy":[{"kind":2,"operation":2,"thread_id":908,"correlation_id":{"internal":7},"start_timestamp":8000,"end_timestamp":9000,
    "src_agent_id":{"handle":10},"dst_agent_id":{"handle":12},"bytes":4096}],
  "rccl_api":[{"kind":4,"operation":0,"thread_id":909,"correlation_id":{"internal":8},"start_timestamp":9500,"end_timestamp":9900}]}}]})";
}

TEST(RocprofReader, DispatchesCopiesAndCallsFromAHandBuiltDocument) {
  std::string path = write_text(temp_dir() + "/908_results.json", document());
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  EXPECT_EQ(p.info.format, "rocprofv3-json");
  EXPECT_EQ(p.info.family, DeviceFamily::Gpu);
  ASSERT_EQ(p.gpu_activities.size(), 3u);  // the empty dispatch record has no time: left out
  const GpuActivity& gemm = p.gpu_activities[0];
  EXPECT_EQ(p.str(gemm.name), "gemm");
  EXPECT_EQ(gemm.kind, GpuActivityKind::Kernel);
  EXPECT_EQ(gemm.start, 2000);
  EXPECT_EQ(gemm.end, 5000);
  EXPECT_EQ(gemm.device, 0);
  EXPECT_EQ(gemm.stream, 16u);  // the queue
  EXPECT_EQ(gemm.correlation, 5);
  ASSERT_NE(gemm.kernel_info, kNone);
  EXPECT_EQ(p.kernel_info[gemm.kernel_info].block[0], 256);
  EXPECT_EQ(p.kernel_info[gemm.kernel_info].grid[0], 256);  // 65,536 work-items / 256 per group
  EXPECT_EQ(p.kernel_info[gemm.kernel_info].shared_memory, 1024);
  const GpuActivity& relu = p.gpu_activities[1];
  EXPECT_EQ(p.str(relu.name), "relu");
  EXPECT_EQ(relu.device, 1);
  EXPECT_EQ(relu.stream, 17u);
  const GpuActivity& copy = p.gpu_activities[2];
  EXPECT_EQ(copy.kind, GpuActivityKind::Memcpy);
  EXPECT_EQ(copy.copy_kind, CopyKind::HostToDevice);
  EXPECT_EQ(copy.device, 1);  // the destination GPU
  EXPECT_EQ(copy.bytes, 4096u);
  ASSERT_EQ(p.runtime_calls.size(), 1u);
  EXPECT_EQ(p.str(p.runtime_calls[0].name), "hipLaunchKernel");
  EXPECT_EQ(p.runtime_calls[0].correlation, 5);
  EXPECT_EQ(p.runtime_calls[0].start, 1000);
  ASSERT_EQ(p.host_events.size(), 1u);
  EXPECT_EQ(p.str(p.host_events[0].name), "ncclAllReduce");
  ASSERT_EQ(p.threads.size(), 2u);
  EXPECT_EQ(p.threads[p.host_events[0].thread].tid, 909);
  EXPECT_EQ(p.threads[0].pid, 908);
  // The GPUs that ran something, as the file names them (the third ran nothing).
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[0].name, "AMD Instinct MI350X");
  EXPECT_EQ(p.devices[0].compute_major, 9);
  EXPECT_EQ(p.devices[0].compute_minor, 5);
  EXPECT_EQ(p.devices[0].sm_count, 256);
  EXPECT_TRUE(has_line(p.notes, "1 records without a start or end timestamp"));
}

// roctx: rocprofv3 writes a push/pop (or start/stop) range as one marker_api record from its start
// to its end and keeps its message in strings.marker_api by the record's correlation id (its tool's
// marker callback; generateJSON.cpp); a mark (roctxMarkA) has its end equal to its start. Here:
// "train_step" 500-9,900 ns around "forward" 900-1,800 ns (which holds the hipLaunchKernel at
// 1,000-1,500) on thread 908; a mark at 3,000; a roctx call without a message at 4,000-4,100.
std::string with_roctx() {
  std::string doc = document();
  auto insert_after = [&](const std::string& anchor, const std::string& text) {
    std::size_t at = doc.find(anchor);
    EXPECT_NE(at, std::string::npos) << anchor;
    doc.insert(at + anchor.size(), text);
  };
  insert_after(
      R"("strings":{)",
      R"("marker_api":[{"key":20,"value":"train_step"},{"key":21,"value":"forward"},{"key":22,"value":"checkpoint"}],)");
  insert_after(R"("buffer_records":{)", R"("marker_api":[
    {"size":48,"kind":6,"operation":2,"thread_id":908,"correlation_id":{"internal":21,"external":0},"start_timestamp":900,"end_timestamp":1800},
    {"size":48,"kind":6,"operation":2,"thread_id":908,"correlation_id":{"internal":20,"external":0},"start_timestamp":500,"end_timestamp":9900},
    {"size":48,"kind":6,"operation":1,"thread_id":908,"correlation_id":{"internal":22,"external":0},"start_timestamp":3000,"end_timestamp":3000},
    {"size":48,"kind":6,"operation":7,"thread_id":908,"correlation_id":{"internal":23,"external":0},"start_timestamp":4000,"end_timestamp":4100}],)");
  return doc;
}

TEST(RocprofReader, RoctxRangesAreRegionsNamedByTheirMessages) {
  std::string path = write_text(temp_dir() + "/908_results.json", with_roctx());
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  std::map<std::string, const HostEvent*> ranges;
  for (const HostEvent& h : p.host_events)
    if (h.kind == HostKind::Annotation) ranges[std::string(p.str(h.name))] = &h;
  ASSERT_EQ(ranges.size(), 2u);  // the mark and the nameless call are not regions
  const HostEvent& step = *ranges.at("train_step");
  const HostEvent& forward = *ranges.at("forward");
  EXPECT_EQ(step.start, 500);
  EXPECT_EQ(step.end, 9900);
  EXPECT_EQ(p.threads[step.thread].tid, 908);
  EXPECT_EQ(forward.start, 900);
  EXPECT_EQ(forward.end, 1800);
  ASSERT_NE(forward.parent, kNone);  // nested in train_step on its thread
  EXPECT_EQ(p.str(p.host_events[forward.parent].name), "train_step");
  EXPECT_EQ(p.host_events.size(), 3u);  // with ncclAllReduce on thread 909
  EXPECT_TRUE(has_line(p.notes, "1 roctx marks (roctxMarkA) are points in time"));
  EXPECT_TRUE(has_line(p.notes, "1 roctx records carry no message"));

  // In the report: the user regions, 9.4 us and 0.9 us of host time, once each.
  std::string out = temp_dir() + "/roctx.json";
  ASSERT_LE(run_perfgate("analyze " + path + " -q --json " + out).exit_code, 1);
  boost::json::object report = boost::json::parse(read_text(out)).as_object();
  const boost::json::array& rows =
      report.at("workers").as_array().at(0).at("tables").at("regions").at("rows").as_array();
  std::map<std::string, std::pair<double, double>> regions;  // name -> (calls, cpu_total_us)
  for (const auto& row : rows) {
    const boost::json::array& r = row.as_array();
    regions[std::string(r.at(0).as_string())] = {r.at(1).to_number<double>(), r.at(2).to_number<double>()};
  }
  ASSERT_EQ(regions.count("train_step"), 1u);
  ASSERT_EQ(regions.count("forward"), 1u);
  EXPECT_EQ(regions["train_step"].first, 1);
  EXPECT_NEAR(regions["train_step"].second, 9.4, 1e-9);
  EXPECT_EQ(regions["forward"].first, 1);
  EXPECT_NEAR(regions["forward"].second, 0.9, 1e-9);
}

// A document whose only records are roctx ranges holds activity: the ranges.
TEST(RocprofReader, ADocumentOfRoctxRangesAlone) {
  std::string path =
      write_text(temp_dir() + "/1_results.json", R"({"rocprofiler-sdk-tool":[{"metadata":{"pid":1},
 "strings":{"buffer_records":[],"marker_api":[{"key":1,"value":"epoch"}]},
 "buffer_records":{"marker_api":[{"thread_id":1,"correlation_id":{"internal":1},"start_timestamp":10,"end_timestamp":70}]}}]})");
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.at(0).host_events.size(), 1u);
  EXPECT_EQ(run.workers[0].str(run.workers[0].host_events[0].name), "epoch");
  EXPECT_EQ(run.workers[0].host_events[0].end - run.workers[0].host_events[0].start, 60);
}

TEST(RocprofReader, GzipIsFoundByWhatItHolds) {
  std::string dir = temp_dir();
  std::string gz = dir + "/908_results.json.gz";
  write_text(gz, gzip_compress(document()));
  EXPECT_EQ(detect_format(gz), "rocprofv3-json");
  EXPECT_EQ(load_run({gz}).workers.at(0).gpu_activities.size(), 3u);
  // A gzip Kineto trace is still Kineto's.
  std::string kineto = dir + "/trace.json.gz";
  write_text(kineto, gzip_compress(R"({"traceEvents":[]})"));
  EXPECT_EQ(detect_format(kineto), "kineto-json.gz");
}

std::string refusal(const std::string& text, std::uint64_t max_memory = 0) {
  std::string path = write_text(temp_dir() + "/bad_results.json", text);
  try {
    LoadOptions options;
    options.max_input_memory = max_memory;
    load_run({path}, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "not refused";
}

TEST(RocprofReader, BadInputIsRefused) {
  std::string good = document();
  EXPECT_NE(refusal(good.substr(0, good.size() - 40)).find("the document ends early"), std::string::npos);
  EXPECT_NE(refusal(R"({"rocprofiler-sdk-tool":[{"buffer_records":{"kernel_dispatch":[]}}]})")
                .find("holds no profiled activity"),
            std::string::npos);
  // A million empty dispatch records: nothing is kept of them, so the memory stays within 1 MiB
  // of records, and the document holds no activity.
  std::string empties = R"({"rocprofiler-sdk-tool":[{"buffer_records":{"kernel_dispatch":[)";
  for (int i = 0; i < 1000000; ++i) empties += i ? ",{}" : "{}";
  empties += "]}}]}";
  EXPECT_NE(refusal(empties, std::uint64_t{1} << 20).find("holds no profiled activity"), std::string::npos);
  // The memory bound.
  std::string many;
  for (int i = 0; i < 20000; ++i)
    many +=
        R"(,{"start_timestamp":1,"end_timestamp":2,"dispatch_info":{"agent_id":{"handle":11},"kernel_id":1}})";
  EXPECT_NE(refusal(document(many), 64 * 1024).find("--max-input-memory"), std::string::npos);
}

// Issue 78, item 7: a 4 MiB kernel name was "invalid JSON: string too large"; now the refusal names
// the format, the record and its field. A long string perfgate does not read (4 MiB in the
// metadata) was refused the same way and is now passed over; a name of 100 KiB, under the 1 MiB
// that every reader keeps, became an empty name and is now kept whole.
TEST(RocprofReader, LongStringsAreKeptPassedOverOrRefusedByName) {
  std::string doc = document();
  std::string huge(std::size_t{4} << 20, 'k');
  std::string named = doc;
  named.replace(named.find("\"gemm.kd\""), 9, '"' + huge + '"');
  named.replace(named.find("\"gemm\""), 6, '"' + huge + '"');
  std::string said = refusal(named);
  EXPECT_TRUE(said.find("bad_results.json: a rocprofv3 JSON document whose kernel_symbols record #0 has a "
                        "'kernel_name' longer than 1048576 bytes") != std::string::npos)
      << said.substr(0, 300);
  std::string unread = doc;
  unread.replace(unread.find("\"init_time\""), 0, "\"command\":\"" + huge + "\",");
  std::string path = write_text(temp_dir() + "/1_results.json", unread);
  EXPECT_EQ(load_run({path}).workers.at(0).gpu_activities.size(), 3u);
  std::string long_name(100 * 1024, 'g');
  std::string kept = doc;
  kept.replace(kept.find("\"gemm\""), 6, '"' + long_name + '"');
  path = write_text(temp_dir() + "/2_results.json", kept);
  LoadedRun run = load_run({path});
  EXPECT_EQ(run.workers.at(0).str(run.workers[0].gpu_activities.at(0).name), long_name);
}

// Issue 78, item 7: a record whose timestamps are written but negative is a corrupt time, not a
// missing one (it was counted as "without a start or end timestamp").
TEST(RocprofReader, NegativeTimestampsAreBadTimesNotMissingOnes) {
  std::string negative =
      R"(,{"start_timestamp":-4000,"end_timestamp":-3000,"dispatch_info":{"agent_id":{"handle":11},"kernel_id":1}})"
      R"(,{"start_timestamp":-10,"end_timestamp":3000,"dispatch_info":{"agent_id":{"handle":11},"kernel_id":1}})";
  std::string path = write_text(temp_dir() + "/908_results.json", document(negative));
  LoadedRun run = load_run({path});
  const Profile& p = run.workers.at(0);
  EXPECT_EQ(p.gpu_activities.size(), 3u);
  EXPECT_TRUE(has_line(p.notes, "2 records were left out: a negative time")) << p.notes.size();
  EXPECT_TRUE(has_line(p.notes, "1 records without a start or end timestamp"));  // document()'s empty one
}

// The shared MI350X run (rocprofv3 --output-format json of PyTorch training on eight MI350X, pid
// 908) against rocprof_expected.py: 43,915 dispatches on the first GPU agent, kernel time
// 4,441,741,378 ns summed and 4,233,112,334 ns as a union; ncclDevKernel_Generic_1 1,310 times,
// 4,158,756,678 ns; every kernel_id named by the 9,889 symbols; HIP API, copies and RCCL empty.
TEST(RocprofReader, SharedMi350xRunMatchesAnIndependentCount) {
  std::string path = shared_reference("rocprofv3/mi350x_908_results.json.gz");
  if (path.empty()) GTEST_SKIP() << "../shared/references/rocprofv3 is absent";
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  ASSERT_EQ(p.gpu_activities.size(), 43915u);
  TimeNs sum = 0;
  std::map<std::string, std::pair<int, TimeNs>> by_name;
  std::vector<std::pair<TimeNs, TimeNs>> spans;
  for (const GpuActivity& a : p.gpu_activities) {
    EXPECT_EQ(a.device, 0);
    sum += a.end - a.start;
    auto& [n, t] = by_name[std::string(p.str(a.name))];
    ++n;
    t += a.end - a.start;
    spans.emplace_back(a.start, a.end);
  }
  EXPECT_EQ(sum, 4'441'741'378);
  TimeNs busy = 0, open_start = 0, open_end = -1;
  for (auto [s, e] : spans) {  // sorted by start (sort_by_start)
    if (s > open_end) {
      if (open_end >= 0) busy += open_end - open_start;
      open_start = s;
      open_end = e;
    } else {
      open_end = std::max(open_end, e);
    }
  }
  busy += open_end - open_start;
  EXPECT_EQ(busy, 4'233'112'334);
  auto nccl = by_name["ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)"];
  EXPECT_EQ(nccl.first, 1310);
  EXPECT_EQ(nccl.second, 4'158'756'678);
  EXPECT_FALSE(has_line(p.notes, "kernel_symbols does not list"));
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "AMD Instinct MI350X");
  EXPECT_TRUE(p.runtime_calls.empty());
}

}  // namespace
}  // namespace perfgate::testing
