// Profiles given as bytes (RunRequest::profile_bytes, the API's in_memory_profiles): read as files of
// their names would be, with no file on disk, named so in the report; never looked for on the disk,
// nor beside it for capture traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/errors.h"
#include "engine/engine.h"
#include "io/gzip.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

std::shared_ptr<const std::string> shared(std::string bytes) {
  return std::make_shared<const std::string>(std::move(bytes));
}

// `steps` steps of 100 us, each with a 50 us kernel: the GPU busy half of the window.
std::string half_busy(int steps) {
  TraceBuilder t;
  for (int i = 0; i < steps; ++i) {
    t.step(i + 1, 100.0 * i, 100);
    t.launch("gemm_kernel", 100.0 * i + 10, 100.0 * i + 20, 50);
  }
  return t.json();
}

TEST(ProfileBytes, ReadAsTheFileOfItsNameWouldBe) {
  std::string json = half_busy(3);
  ReportModel report = report_of_bytes({{"job/step.pt.trace.json", shared(json)}}, default_book());
  EXPECT_EQ(report.metric(Metric::StepsCount), 3);
  EXPECT_EQ(report.metric(Metric::StepsMedianUs), 100);
  ASSERT_EQ(report.inputs.size(), 1u);
  EXPECT_EQ(report.inputs[0].path, "job/step.pt.trace.json");
  EXPECT_EQ(report.inputs[0].bytes, json.size());
  EXPECT_EQ(report.inputs[0].worker, "step");
  EXPECT_EQ(report.inputs[0].format, "kineto-json");
}

// gzip bytes are inflated as a .gz file's are: the same steps as the plain bytes.
TEST(ProfileBytes, GzipBytesAreInflated) {
  std::string compressed = gzip_compress(half_busy(4));
  ReportModel report = report_of_bytes({{"r.json.gz", shared(compressed)}}, default_book());
  EXPECT_EQ(report.metric(Metric::StepsCount), 4);
  ASSERT_EQ(report.inputs.size(), 1u);
  EXPECT_EQ(report.inputs[0].format, "kineto-json.gz");
  EXPECT_EQ(report.inputs[0].bytes, compressed.size());
}

// The bytes are read, not the file of the same name: a trace of 2 steps on disk, 5 in the bytes.
TEST(ProfileBytes, TheBytesNotTheFileOfTheirName) {
  std::string path = write_text(temp_dir() + "/same.pt.trace.json", half_busy(2));
  EXPECT_EQ(report_of_files({path}, default_book()).metric(Metric::StepsCount), 2);
  EXPECT_EQ(report_of_bytes({{path, shared(half_busy(5))}}, default_book()).metric(Metric::StepsCount), 5);
}

// Four ranks given as bytes are one run, as the folder of their files is: the same collectives
// (six, each 400 us on three ranks and 100 us on the late one) and the same ranks.
TEST(ProfileBytes, RanksGivenAsBytesAreOneRun) {
  std::string dir = write_late_rank_run(temp_dir() + "/late-bytes");
  std::vector<ProfileBytes> ranks;
  for (int r = 0; r < 4; ++r) {
    std::string name = "rank-" + std::to_string(r) + ".json";
    ranks.push_back({name, shared(read_text(dir + "/" + name))});
  }
  ReportModel bytes = report_of_bytes(ranks, default_book());
  ReportModel files = report_of_files({dir}, default_book());
  EXPECT_EQ(bytes.metric(Metric::RanksCount), 4);
  EXPECT_EQ(bytes.metric(Metric::CommunicationCollectives), files.metric(Metric::CommunicationCollectives));
  EXPECT_EQ(bytes.metric(Metric::RanksEntrySkewUs), files.metric(Metric::RanksEntrySkewUs));
  ASSERT_EQ(bytes.workers.size(), 4u);
  for (const ReportWorker& worker : bytes.workers)
    EXPECT_EQ(worker.metrics.get(Metric::CommunicationCollectives), 6) << worker.name;
  EXPECT_EQ(bytes.workers[3].name, "rank-3");
  EXPECT_EQ(bytes.workers[3].input_path, "rank-3.json");
}

// No capture traces are looked for beside bytes: a capture_traces/ folder whose
// execution_details.json is not a list, which a file's load refuses, is not read.
TEST(ProfileBytes, NoCaptureTracesBesideThem) {
  std::string dir = temp_dir() + "/beside";
  std::filesystem::create_directories(dir + "/capture_traces");
  write_text(dir + "/capture_traces/execution_details.json", "{\"not\": \"a list\"}");
  std::string on_disk = write_text(dir + "/t.pt.trace.json", half_busy(3));
  EXPECT_THROW(report_of_files({on_disk}, default_book()), InputError);
  EXPECT_EQ(report_of_bytes({{on_disk, shared(half_busy(3))}}, default_book()).metric(Metric::StepsCount), 3);
}

TEST(ProfileBytes, RefusedBytesNameTheirProfile) {
  try {
    report_of_bytes({{"notes.json", shared("{\"hello\": 1}")}}, default_book());
    FAIL() << "not a profile, read";
  } catch (const InputError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("notes.json: ")) << e.what();
  }
  EXPECT_THROW(report_of_bytes({{"empty.json", shared("")}}, default_book()), InputError);
}

// Each profile given as bytes has a name of its own (field profile_bytes), checked before any work.
TEST(ProfileBytes, NamesAreGivenAndUnique) {
  auto refusal = [](std::vector<ProfileBytes> profiles) -> std::string {
    RunRequest request;
    request.profile_bytes = std::move(profiles);
    try {
      check_request(request);
    } catch (const RequestError& e) {
      EXPECT_EQ(e.field(), "profile_bytes");
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal({{"a.json", shared("{}")}, {"a.json", shared("{}")}}),
            "profile_bytes: two profiles given as bytes are named 'a.json'");
  EXPECT_EQ(refusal({{"", shared("{}")}}), "profile_bytes: a profile given as bytes needs a name");
  EXPECT_EQ(refusal({{"a.json", shared("{}")}, {"b.json", shared("{}")}}), "accepted");
}

// A prepared run reads no file for bytes: none is among the files an output may not name.
TEST(ProfileBytes, NotAmongTheFilesTheRunReads) {
  RunRequest request;
  request.paths = {"in-memory.pt.trace.json"};
  request.profile_bytes = {{"in-memory.pt.trace.json", shared(half_busy(3))}};
  PreparedRun prepared = prepare_run(request);
  for (const std::string& read : prepared.reads) EXPECT_NE(read, "in-memory.pt.trace.json");
  EXPECT_EQ(run_gated(prepared).report.metric(Metric::StepsCount), 3);
}

}  // namespace
}  // namespace perfgate::testing
