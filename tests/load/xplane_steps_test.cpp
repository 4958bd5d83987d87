// Issue 75: TensorFlow's steps in an XSpace, on hand-built spaces whose answers are written out
// here: the "Steps" line XProf writes on each device plane (events named by their group id, with a
// group_id stat), steps marked on every device kept and others left out, host steps first; and a
// TraceMe name that encodes its step number ("train#step_num=3,_r=1#").
#include <gtest/gtest.h>

#include <string>

#include "analyse/analysis.h"
#include "analyse/metric_values.h"
#include "analyse/worker_analysis.h"
#include "load/load.h"
#include "load/xplane/xplane_reader.h"
#include "support/helpers.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

enum : std::int64_t { kGroupId = 1, kCorrelation, kStepNum };
const std::vector<std::pair<std::int64_t, std::string>> kStats = {
    {kGroupId, "group_id"}, {kCorrelation, "correlation_id"}, {kStepNum, "step_num"}};

// A V100 whose stream runs one kernel per step, and whose Steps line marks steps 4, 5 and (on
// GPU:0 only) 6: step 4 by its group_id stat, step 5 by its name alone, step 6 as "Step 6".
Plane gpu(std::int64_t id, bool with_step_6) {
  Plane g = plane(id, "/device:GPU:" + std::to_string(id));
  g.stat_names = kStats;
  g.event_names = {{1, "volta_sgemm_128x64_nn"}, {2, "4"}, {3, "5"}, {4, "Step 6"}};
  std::vector<std::string> steps = {
      event(2, 0, 10'000'000, {int_stat(kGroupId, 4)}),   // [0, 10,000) ns
      event(3, 12'000'000 + id * 1'000'000, 8'000'000)};  // [12,000+1,000id, +8,000)
  if (with_step_6) steps.push_back(event(4, 30'000'000, 5'000'000));
  g.lines = {line(1, "Stream #1(Compute)", 0,
                  {event(1, 1'000'000, 8'000'000, {int_stat(kCorrelation, 1 + id * 10)}),
                   event(1, 13'000'000 + id * 1'000'000, 6'000'000, {int_stat(kCorrelation, 2 + id * 10)})}),
             line(2, "Steps", 0, steps)};
  return g;
}

Plane host(const std::vector<std::string>& extra_events,
           std::vector<std::pair<std::int64_t, std::string>> names) {
  Plane h = plane(9, "/host:CPU");
  h.stat_names = kStats;
  names.emplace_back(100, "cuLaunchKernel");
  h.event_names = names;
  std::vector<std::string> events = extra_events;
  for (std::int64_t id = 0; id < 2; ++id) {
    events.push_back(event(100, 500'000, 100'000, {int_stat(kCorrelation, 1 + id * 10)}));
    events.push_back(event(100, 12'200'000, 100'000, {int_stat(kCorrelation, 2 + id * 10)}));
  }
  h.lines = {line(5, "python", 0, events)};
  return h;
}

std::vector<std::string> step_names(const Profile& p) {
  std::vector<std::string> out;
  for (const HostEvent& h : p.host_events)
    if (h.kind == HostKind::Annotation) out.push_back(std::string(p.str(h.name)));
  return out;
}

TEST(XplaneSteps, DeviceStepsLinesAreTheStepsWhereTheHostMarksNone) {
  Profile p = xplane::read_space(space({gpu(0, true), gpu(1, false), host({}, {})}), "tf.xplane.pb", {});
  // Steps 4 and 5 are marked on both GPUs; step 6 on GPU:0 alone is left out.
  EXPECT_EQ(step_names(p), (std::vector<std::string>{"Steps (step 4)", "Steps (step 5)"}));
  ASSERT_EQ(p.threads.size(), 2u);
  EXPECT_EQ(p.str(p.threads[1].name), "Steps (devices)");
  // Step 5 spans both devices' marks: GPU:0 [12,000, 20,000), GPU:1 [13,000, 21,000).
  const HostEvent* five = nullptr;
  for (const HostEvent& h : p.host_events)
    if (p.str(h.name) == "Steps (step 5)") five = &h;
  ASSERT_NE(five, nullptr);
  EXPECT_EQ(five->start, 12000);
  EXPECT_EQ(five->end, 21000);
  // The "Steps" lines are read, not left out as derived lines.
  for (const Note& n : p.notes) EXPECT_EQ(note_text(n).find("'Steps'"), std::string::npos) << note_text(n);

  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_EQ(w.steps.steps[0].number.value_or(-1), 4);
  EXPECT_EQ(w.steps.steps[1].number.value_or(-1), 5);
}

TEST(XplaneSteps, HostStepNumbersComeFirst) {
  // tf.profiler.experimental.Trace("train", step_num=7, _r=1): a host event with the stat.
  Profile p =
      xplane::read_space(space({gpu(0, true), gpu(1, false),
                                host({event(1, 0, 25'000'000, {int_stat(kStepNum, 7)})}, {{1, "train"}})}),
                         "tf.xplane.pb", {});
  EXPECT_EQ(step_names(p), (std::vector<std::string>{"train (step 7)"}));
  EXPECT_EQ(p.threads.size(), 1u);
}

TEST(XplaneSteps, ATraceMeNameThatEncodesItsStepIsAStep) {
  Profile p = xplane::read_space(
      space(
          {gpu(0, false),
           host({event(1, 0, 11'000'000), event(2, 11'000'000, 14'000'000), event(3, 26'000'000, 1'000'000)},
                {{1, "train#step_num=3,_r=1#"}, {2, "train#_r=1,step_num=4#"}, {3, "parse#step_num=x#"}})}),
      "tf.xplane.pb", {});
  EXPECT_EQ(step_names(p), (std::vector<std::string>{"train (step 3)", "train (step 4)"}));
  bool kept = false;
  for (const HostEvent& h : p.host_events) kept = kept || p.str(h.name) == "parse#step_num=x#";
  EXPECT_TRUE(kept);  // not a number: an op under its own name
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_EQ(w.steps.steps[1].number.value_or(-1), 4);
}

// Issue 91, item 2: TensorFlow's workers in one process, each on its own GPU, mark step 0 on their
// GPUs' Steps lines 647 ms apart. GPU 4: step 0 over [1, 21) ms, kernels [2, 10) and [11, 18) ms
// (15 of 20 ms: 75%), launched from thread "worker-0"; GPU 6: step 0 over [648, 670) ms, a kernel
// [650, 661) ms (11 of 22 ms: 50%), launched from "worker-1". Each GPU is a worker with its own
// step; read as one worker, step 0 was [1, 670) ms with the GPUs (15 + 11) / (2 x 669) = 1.9% busy.
constexpr std::int64_t kMs = 1'000'000'000;  // picoseconds

Plane apart_gpu(std::int64_t id, std::int64_t step_start, std::int64_t step_ms,
                const std::vector<std::pair<std::int64_t, std::int64_t>>& kernels) {
  Plane g = plane(id, "/device:GPU:" + std::to_string(id));
  g.stat_names = kStats;
  g.event_names = {{1, "volta_sgemm_128x64_nn"}, {2, "0"}};
  std::vector<std::string> stream;
  std::int64_t correlation = id * 100;
  for (const auto& [start, ms] : kernels)
    stream.push_back(event(1, start * kMs, ms * kMs, {int_stat(kCorrelation, ++correlation)}));
  g.lines = {line(1, "Stream #1(Compute)", 0, stream),
             line(2, "Steps", 0, {event(2, step_start * kMs, step_ms * kMs, {int_stat(kGroupId, 0)})})};
  return g;
}

Plane apart_host() {
  Plane h = plane(9, "/host:CPU");
  h.stat_names = kStats;
  h.event_names = {{100, "cuLaunchKernel"}};
  auto launch = [](std::int64_t at_us, std::int64_t correlation) {
    return event(100, at_us * 1'000'000, 100'000'000, {int_stat(kCorrelation, correlation)});
  };
  h.lines = {line(5, "worker-0", 0, {launch(1'500, 401), launch(10'500, 402)}),
             line(6, "worker-1", 0, {launch(649'000, 601)})};
  return h;
}

std::string apart_space() {
  return space({apart_gpu(4, 1, 20, {{2, 8}, {11, 7}}), apart_gpu(6, 648, 22, {{650, 11}}), apart_host()});
}

TEST(XplaneSteps, DevicesThatStepApartAreAWorkerEach) {
  LoadOptions options;
  options.given = {{"tf.xplane.pb", std::make_shared<const std::string>(apart_space())}};
  LoadedRun run = load_run({"tf.xplane.pb"}, options);
  ASSERT_EQ(run.workers.size(), 2u);
  const Profile& four = run.workers[0];
  const Profile& six = run.workers[1];
  EXPECT_EQ(four.worker, "tf-gpu4");
  EXPECT_EQ(six.worker, "tf-gpu6");
  ASSERT_EQ(four.devices.size(), 1u);
  EXPECT_EQ(four.devices[0].id, 4);
  ASSERT_EQ(six.devices.size(), 1u);
  EXPECT_EQ(six.devices[0].id, 6);
  EXPECT_EQ(four.gpu_activities.size(), 2u);
  EXPECT_EQ(six.gpu_activities.size(), 1u);
  // Each worker keeps the thread that launched onto its GPU, and its own step thread.
  ASSERT_EQ(four.runtime_calls.size(), 2u);
  ASSERT_EQ(six.runtime_calls.size(), 1u);
  EXPECT_EQ(four.str(four.threads[four.runtime_calls[0].thread].name), "worker-0");
  EXPECT_EQ(six.str(six.threads[six.runtime_calls[0].thread].name), "worker-1");
  EXPECT_EQ(step_names(four), (std::vector<std::string>{"Steps (step 0)"}));
  EXPECT_EQ(step_names(six), (std::vector<std::string>{"Steps (step 0)"}));
  bool noted = false;
  for (const Note& n : four.notes)
    noted = noted || (note_text(n).find("GPU 4; GPU 6") != std::string::npos &&
                      note_text(n).find("step 0 begins 647.000 ms apart") != std::string::npos);
  EXPECT_TRUE(noted);

  RunAnalysis r = analyse_run(run, default_classification(), {});
  ASSERT_EQ(r.workers.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.workers[0].metrics.get(Metric::StepsMeanUs), 20'000);
  EXPECT_DOUBLE_EQ(*r.workers[1].metrics.get(Metric::StepsMeanUs), 22'000);
  EXPECT_NEAR(*r.workers[0].metrics.get(Metric::GpuUtilizationPct), 75.0, 1e-9);
  EXPECT_NEAR(*r.workers[1].metrics.get(Metric::GpuUtilizationPct), 50.0, 1e-9);
  // The run's step 0 is matched by number across the workers: one step, not their union.
  auto steps = run_steps(r.workers);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].first, "Steps (step 0)");
  EXPECT_DOUBLE_EQ(steps[0].second, 22'000);  // the longer of 20 and 22 ms
  EXPECT_NEAR(*r.metrics.get(Metric::GpuUtilizationPct), (75.0 + 50.0) / 2, 1e-9);
  // The engine analyses them as one run, as the loader does.
  ReportModel report = report_of_bytes(options.given, default_book(), {});
  EXPECT_NEAR(*report.metric(Metric::GpuUtilizationPct), (75.0 + 50.0) / 2, 1e-9);
}

// Devices whose steps of the same number overlap step together: one worker, as before.
TEST(XplaneSteps, DevicesThatStepTogetherStayOneWorker) {
  LoadOptions options;
  options.given = {{"tf.xplane.pb",
                    std::make_shared<const std::string>(space({gpu(0, true), gpu(1, false), host({}, {})}))}};
  LoadedRun run = load_run({"tf.xplane.pb"}, options);
  ASSERT_EQ(run.workers.size(), 1u);
  EXPECT_EQ(run.workers[0].worker, "tf");
  EXPECT_EQ(run.workers[0].devices.size(), 2u);
}

}  // namespace

}  // namespace perfgate::testing
