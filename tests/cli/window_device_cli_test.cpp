// Issue 76, item 5: a run restricted to a time range of the trace's clock or to one GPU, as
// `compare` needs to compare two windows or one GPU of each run. Before, the window was a range of
// steps only and every GPU of a process counted.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <filesystem>
#include <string>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

json::object report_of(const std::string& path) {
  return json::parse(read_text(path)).as_object();
}

double metric(const json::object& report, const char* id) {
  return report.at("metrics").as_object().at(id).to_number<double>();
}

// Steps 10 to 14 at 0, 100, ... 400 us, lasting 10, 20, ... 50 us, each with a kernel of half its length.
std::string five_steps(const std::string& dir) {
  TraceBuilder t;
  for (int i = 0; i < 5; ++i) {
    double start = 100.0 * i, length = 10.0 * (i + 1);
    t.step(10 + i, start, length);
    t.launch("gemm_kernel", start + 1, start + 2, length / 2);
  }
  return t.write(dir + "/five.json");
}

TEST(WindowDeviceCli, ATimeRangeKeepsTheStepsWhollyInsideIt) {
  std::string dir = temp_dir();
  std::string trace = five_steps(dir);
  std::string out = dir + "/r.json";
  // Steps 11 [100, 120], 12 [200, 230] and 13 [300, 340] lie inside [100, 340]; 14 ends at 450.
  CommandResult r = run_perfgate("analyze -q " + trace + " --time-start 100 --time-stop 340 --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json::object report = report_of(out);
  EXPECT_EQ(metric(report, "window.steps_in_window"), 3);
  EXPECT_DOUBLE_EQ(metric(report, "steps.mean_us"), 30);  // (20 + 30 + 40) / 3
  const json::object& settings = report.at("settings").as_object();
  EXPECT_EQ(settings.at("time_start_us").to_number<double>(), 100);
  EXPECT_EQ(settings.at("time_stop_us").to_number<double>(), 340);
  EXPECT_TRUE(contains(read_text(out),
                       "the window is limited to the trace's time from 100.000 us to 340.000 us: "
                       "the 3 steps wholly inside it"))
      << read_text(out);

  CommandResult none = run_perfgate("analyze -q " + trace + " --time-start 101 --time-stop 119");
  EXPECT_EQ(none.exit_code, 2) << none.out;
  EXPECT_TRUE(contains(none.out,
                       "--time-start/--time-stop (101.000 us to 119.000 us) hold no whole step: the "
                       "profile has steps 10 to 14, from 0.000 us to 450.000 us"))
      << none.out;
  CommandResult reversed = run_perfgate("analyze -q " + trace + " --time-start 300 --time-stop 200");
  EXPECT_EQ(reversed.exit_code, 2) << reversed.out;
  EXPECT_TRUE(contains(reversed.out, "--time-start 300.000 us is not before --time-stop 200.000 us"))
      << reversed.out;
  CommandResult past = run_perfgate("analyze -q " + trace + " --time-stop 1e16");  // past any trace's clock
  EXPECT_EQ(past.exit_code, 2) << past.out;
  EXPECT_TRUE(contains(past.out, "--time-stop 1e+16: not a time of the trace's clock in microseconds"))
      << past.out;
}

TEST(WindowDeviceCli, WithoutStepsATimeRangeIsThePartOfTheTraceInsideIt) {
  std::string dir = temp_dir();
  TraceBuilder t;
  t.op("aten::head", 0, 5);               // a trace without steps is its CPU ops' span: [0, 300]
  t.launch("early_kernel", 0, 10, 40);    // [10, 50]
  t.launch("late_kernel", 100, 200, 50);  // [200, 250]
  t.op("aten::tail", 280, 20);            // the trace ends at 300
  std::string trace = t.write(dir + "/nosteps.json");
  std::string whole = dir + "/whole.json", part = dir + "/part.json";
  ASSERT_EQ(run_perfgate("analyze -q " + trace + " --json " + whole).exit_code, 0);
  CommandResult r = run_perfgate("analyze -q " + trace + " --time-start 150 --json " + part);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // The part from 150 to 300 us holds the late kernel alone: 50 of 150 us busy (JSON: 6 decimals).
  EXPECT_NEAR(metric(report_of(part), "gpu.utilization_pct"), 100.0 * 50 / 150, 1e-6);
  EXPECT_NEAR(metric(report_of(whole), "gpu.utilization_pct"), 100.0 * 90 / 300, 1e-9);
  CommandResult outside = run_perfgate("analyze -q " + trace + " --time-start 400");
  EXPECT_EQ(outside.exit_code, 2) << outside.out;
  EXPECT_TRUE(contains(outside.out, "hold none of the trace: it runs from 0.000 us to 300.000 us"))
      << outside.out;
}

TEST(WindowDeviceCli, OneDeviceKeepsThatGpusWorkAndNamesTheOthersWhenAbsent) {
  std::string dir = temp_dir();
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.launch("gemm_on_0", 10, 100, 200, 0, 0);  // 200 us on GPU 0
  t.launch("gemm_on_1", 20, 100, 600, 0, 1);  // 600 us on GPU 1
  std::string trace = t.write(dir + "/two_gpus.json");
  std::string both = dir + "/both.json", one = dir + "/one.json";
  ASSERT_EQ(run_perfgate("analyze -q " + trace + " --json " + both).exit_code, 0);
  CommandResult r = run_perfgate("analyze -q " + trace + " --device 1 --json " + one);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json::object all = report_of(both), gpu1 = report_of(one);
  EXPECT_EQ(metric(all, "gpu.count"), 2);
  EXPECT_NEAR(metric(all, "gpu.utilization_pct"), (20.0 + 60.0) / 2, 1e-9);
  EXPECT_EQ(metric(gpu1, "gpu.count"), 1);
  EXPECT_NEAR(metric(gpu1, "gpu.utilization_pct"), 60.0, 1e-9);
  EXPECT_EQ(gpu1.at("settings").as_object().at("device").to_number<int>(), 1);
  std::string text = read_text(one);
  EXPECT_TRUE(contains(text, "gemm_on_1"));
  EXPECT_FALSE(contains(text, "gemm_on_0")) << "GPU 0's kernel is not in the report";
  EXPECT_TRUE(contains(text, "only GPU 1's work is analysed: 1 of 2 GPU activities")) << text;

  CommandResult absent = run_perfgate("analyze -q " + trace + " --device 3");
  EXPECT_EQ(absent.exit_code, 2) << absent.out;
  EXPECT_TRUE(contains(absent.out, "--device 3: " + trace + " ran no GPU work on GPU 3 (GPUs 0, 1)"))
      << absent.out;
}

// Two workers, each on its own GPU (as two processes of an nsys export, or two ranks' files): the one
// that ran nothing on the GPU asked for is left out of the run, and the note says so.
TEST(WindowDeviceCli, AWorkerThatRanNothingOnTheGpuIsLeftOut) {
  std::string dir = temp_dir() + "/run";
  std::filesystem::create_directories(dir);
  for (int rank = 0; rank < 2; ++rank) {
    TraceBuilder t;
    t.step(1, 0, 1000);
    t.launch("gemm_kernel", 10, 100, 300 + 400 * rank, 0, rank);  // 300 us on GPU 0, 700 us on GPU 1
    t.write(dir + "/rank" + std::to_string(rank) + ".json");
  }
  std::string out = temp_dir() + "/r.json";
  CommandResult r = run_perfgate("analyze -q " + dir + " --device 1 --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json::object report = report_of(out);
  EXPECT_EQ(report.at("workers").as_array().size(), 1u);
  EXPECT_NEAR(metric(report, "gpu.utilization_pct"), 70.0, 1e-9);
  EXPECT_TRUE(contains(read_text(out),
                       "only GPU 1's work is analysed: 1 of 2 GPU activities, and 1 worker that ran "
                       "nothing on it left out of the run"))
      << read_text(out);
}

}  // namespace
}  // namespace perfgate::testing
