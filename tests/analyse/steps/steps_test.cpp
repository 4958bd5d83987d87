#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}

// Steps host [100,200] [200,300] [300,400], each launching one kernel: k1 [160,260], k2 [270,280],
// k3 [390,500].
TraceBuilder three_steps() {
  TraceBuilder t;
  t.step(1, 100, 100).step(2, 200, 100).step(3, 300, 100);
  t.launch("k1", 110, 160, 100);
  t.launch("k2", 210, 270, 10);
  t.launch("k3", 310, 390, 110);
  return t;
}

// Issue 14, item 2: newer PyTorch also writes ProfilerStep#N on the GPU timeline
// (gpu_user_annotation). The TensorBoard plugin then counts every step twice; steps come from the
// host ranges only, so the same three steps with the same bounds as without the GPU copies.
TEST(Steps, GpuSideProfilerStepRangesAreNotMoreSteps) {
  TraceBuilder t = three_steps();
  WorkerAnalysis cpu_only = analyse_json(t.json());
  for (int n = 1; n <= 3; ++n)
    t.raw_event(
        fmt::format(R"({{"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#{}", "pid": 0,)"
                    R"( "tid": 7, "ts": {}, "dur": {}, "args": {{"device": 0, "stream": 7}}}})",
                    n, 60 + 100 * n, 100));
  WorkerAnalysis both = analyse_json(t.json());
  ASSERT_EQ(both.steps.steps.size(), 3u);
  ASSERT_EQ(cpu_only.steps.steps.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(both.steps.steps[i].name, "ProfilerStep#" + std::to_string(i + 1));
    EXPECT_EQ(both.steps.steps[i].start, cpu_only.steps.steps[i].start) << i;
    EXPECT_EQ(both.steps.steps[i].end, cpu_only.steps.steps[i].end) << i;
  }
  EXPECT_EQ(*both.metrics.get(Metric::StepsCount), 3);
  // [100, 260] (k1 ends at 260), [260, 300], [300, 500] (k3 ends at 500).
  EXPECT_DOUBLE_EQ(*both.metrics.get(Metric::StepsMeanUs), (160.0 + 40 + 200) / 3);
}

// Steps host [100,200] [200,300] [300,400]. A kernel launched before the first step runs until
// 150, so step 1 starts at 150; its own kernel ends at 260, so it ends there and step 2 starts at
// 260. Step 3's kernel ends at 500. A call straddling step 3's end does not count.
TEST(Steps, ExtendToTheirGpuWorkAndStartAfterThePreviousStep) {
  TraceBuilder t = three_steps();
  t.launch("before", 10, 20, 130);
  t.runtime("cudaLaunchKernel", 399, 2, 777);
  t.kernel("straddling", 600, 100, 777);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.steps.source, StepSource::ProfilerStep);
  ASSERT_EQ(w.steps.steps.size(), 3u);
  const auto& s = w.steps.steps;
  EXPECT_EQ(s[0].name, "ProfilerStep#1");
  EXPECT_EQ(s[0].number, 1);
  EXPECT_DOUBLE_EQ(us(s[0].start), 150);
  EXPECT_DOUBLE_EQ(us(s[0].end), 260);
  EXPECT_DOUBLE_EQ(us(s[1].start), 260);
  EXPECT_DOUBLE_EQ(us(s[1].end), 300);
  EXPECT_DOUBLE_EQ(us(s[2].start), 300);
  EXPECT_DOUBLE_EQ(us(s[2].end), 500);
  EXPECT_EQ(s[2].gpu_activities, 1u);
  EXPECT_TRUE(w.steps.dropped.empty());
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMeanUs), (110.0 + 40 + 200) / 3);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 350);
}

// 5, 5, 3 and 0 GPU activities: the last is dropped (no GPU work), and the third too
// (3 < 0.8 x 5: profiling cut it off).
TEST(Steps, DropCutOffTrailingSteps) {
  TraceBuilder t;
  int counts[4] = {5, 5, 3, 0};
  for (int step = 0; step < 4; ++step) {
    double base = 1000.0 * step;
    t.step(step, base, 1000);
    for (int k = 0; k < counts[step]; ++k) t.launch("k", base + 10 + k * 10, base + 100 + k * 10, 5);
  }
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.steps.steps.size(), 2u);
  ASSERT_EQ(w.steps.dropped.size(), 2u);
  EXPECT_EQ(w.steps.dropped[0].name, "ProfilerStep#2");
  EXPECT_NE(w.steps.dropped[0].reason.find("launched 3 GPU activities against 5"), std::string::npos);
  EXPECT_EQ(w.steps.dropped[1].name, "ProfilerStep#3");
  EXPECT_NE(w.steps.dropped[1].reason.find("no GPU work"), std::string::npos);
  EXPECT_EQ(*w.metrics.get(Metric::WindowStepsDropped), 2);
}

TEST(Steps, WithoutGpuWorkStepsAreTheirHostSpans) {
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 50).op("aten::add", 10, 5);
  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(us(w.steps.steps[1].duration()), 50);
  EXPECT_TRUE(w.steps.dropped.empty());
}

// No steps: one window over the CPU ops (not annotations), extended to the GPU work launched in it.
TEST(Steps, WithoutStepsTheWholeTraceIsOneWindow) {
  TraceBuilder t;
  t.annotation("setup", 0, 500).op("aten::mm", 10, 80, 1);
  t.launch("gemm", 20, 50, 70, 1);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(w.steps.source, StepSource::None);
  EXPECT_TRUE(w.steps.steps.empty());
  EXPECT_DOUBLE_EQ(us(w.window.start), 10);
  EXPECT_DOUBLE_EQ(us(w.window.end), 120);
  EXPECT_EQ(*w.metrics.get(Metric::StepsCount), 0);
  EXPECT_FALSE(w.metrics.get(Metric::StepsMeanUs));
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::WindowWallUs), 110);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::GpuUtilizationPct), 100.0 * 70 / 110);
}

TEST(Steps, KeyOpStartsAStepAtEachOccurrence) {
  TraceBuilder t;
  t.annotation("train_step", 0, 50).annotation("train_step", 10, 10);  // nested match: not a new step
  t.annotation("train_step", 100, 50).annotation("train_step", 200, 60);
  AnalysisOptions options;
  options.key_op = "^train_step$";
  WorkerAnalysis w = analyse_json(t.json(), options);
  ASSERT_EQ(w.steps.source, StepSource::KeyOp);
  ASSERT_EQ(w.steps.steps.size(), 3u);
  EXPECT_EQ(w.steps.steps[0].name, "train_step #0");
  EXPECT_DOUBLE_EQ(us(w.steps.steps[0].duration()), 100);
  EXPECT_DOUBLE_EQ(us(w.steps.steps[1].duration()), 100);
  EXPECT_DOUBLE_EQ(us(w.steps.steps[2].duration()), 60);
  EXPECT_EQ(w.steps.steps[2].number, 2);
}

TEST(Steps, KeyOpThatMatchesNothingWarnsAndUsesTheWholeTrace) {
  AnalysisOptions options;
  options.key_op = "nope";
  WorkerAnalysis w = analyse_json(TraceBuilder().op("aten::add", 0, 10).json(), options);
  EXPECT_EQ(w.steps.source, StepSource::None);
  ASSERT_FALSE(w.warnings.empty());
  EXPECT_EQ(w.warnings.back().id, NoteId::steps_key_op_unmatched);
  EXPECT_NE(note_text(w.warnings.back()).find("matched no op"), std::string::npos);
}

// Issue 30, item 7: the step ranges of a Kineto trace are the rules' profiler_step_ranges, which a
// user rule file replaces or extends; nvtx_step_ranges (nsys exports) does not apply to it.
TEST(Steps, KinetoStepRangesComeFromTheRules) {
  TraceBuilder t;
  t.annotation("Iteration 4", 0, 100).annotation("Iteration 5", 100, 100).step(9, 300, 50);
  std::string json = t.json();
  auto numbers = [](const WorkerAnalysis& w) {
    std::vector<std::int64_t> out;
    for (const Step& s : w.steps.steps) out.push_back(s.number.value_or(-1));
    return out;
  };
  WorkerAnalysis by_default = analyse_json(json);
  EXPECT_EQ(by_default.steps.source, StepSource::ProfilerStep);
  EXPECT_EQ(numbers(by_default), std::vector<std::int64_t>{9});

  std::string dir = temp_dir();
  auto rules = [&](const std::string& name, const std::string& list, const std::string& entries) {
    return write_text(dir + "/" + name + ".yaml", "classification:\n  " + list + ":\n    " + entries + "\n");
  };
  std::string nvtx = rules("nvtx_iterations", "nvtx_step_ranges", "patterns: ['Iteration (\\d+)']");
  EXPECT_EQ(numbers(analyse_json(json, {}, {nvtx})), std::vector<std::int64_t>{9});

  std::string replaced = rules("kineto_iterations", "profiler_step_ranges", "patterns: ['Iteration (\\d+)']");
  WorkerAnalysis iterations = analyse_json(json, {}, {replaced});
  EXPECT_EQ(iterations.steps.source, StepSource::ProfilerStep);  // the steps profiler_step_ranges finds
  EXPECT_EQ(numbers(iterations), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(iterations.steps.steps[0].name, "Iteration 4");

  std::string added = rules("kineto_added", "profiler_step_ranges", "add: ['Iteration (\\d+)']");
  EXPECT_EQ(numbers(analyse_json(json, {}, {added})), (std::vector<std::int64_t>{4, 5, 9}));

  // --step-pattern overrides the rules for one run.
  AnalysisOptions profiler_steps;
  profiler_steps.step_pattern = R"(ProfilerStep#(\d+))";
  EXPECT_EQ(numbers(analyse_json(json, profiler_steps, {replaced})), std::vector<std::int64_t>{9});

  // An empty list: no range is a step, the whole trace is one window.
  std::string none = rules("kineto_none", "profiler_step_ranges", "patterns: []");
  EXPECT_EQ(analyse_json(json, {}, {none}).steps.source, StepSource::None);
}

// Issue 78: a step pattern is compiled once for every worker that uses it (it cost more than
// analysing a rank of a few events). Each pattern still finds its own steps, past the most the
// cache keeps, and an invalid one is refused every time, naming its option.
TEST(Steps, EachStepPatternFindsItsOwnStepsAndABadOneIsRefusedEachTime) {
  TraceBuilder t;
  t.annotation("Iteration 4", 0, 100).annotation("Iteration 5", 100, 100).step(9, 300, 50);
  std::string json = t.json();
  auto count = [&](const std::string& pattern) {
    AnalysisOptions options;
    options.step_pattern = pattern;
    return analyse_json(json, options).steps.steps.size();
  };
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(count(R"(Iteration (\d+))"), 2u);
    EXPECT_EQ(count(R"(ProfilerStep#(\d+))"), 1u);
    for (int n = 0; n < 70; ++n) EXPECT_EQ(count(fmt::format("Iteration {}", n)), n == 4 || n == 5 ? 1u : 0u);
    AnalysisOptions bad;
    bad.step_pattern = "Iteration (";
    try {
      analyse_json(json, bad);
      ADD_FAILURE() << "an invalid --step-pattern was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("invalid --step-pattern pattern 'Iteration ('"), std::string::npos)
          << e.what();
    }
  }
}

std::string five_steps() {
  TraceBuilder t;
  for (int i = 0; i < 5; ++i) t.step(10 + i, 100.0 * i, 10.0 * (i + 1));
  return t.json();
}

TEST(Window, IterStartStopSelectStepNumbersAndSkipFirstDropsWarmUp) {
  AnalysisOptions options;
  options.window.iter_start = 11;
  options.window.iter_stop = 13;
  WorkerAnalysis w = analyse_json(five_steps(), options);
  EXPECT_EQ(w.window.steps.size(), 3u);
  EXPECT_EQ(*w.metrics.get(Metric::WindowIterStart), 11);
  EXPECT_EQ(*w.metrics.get(Metric::WindowIterStop), 13);
  EXPECT_DOUBLE_EQ(*w.metrics.get(Metric::StepsMeanUs), 30);  // 20, 30, 40
  EXPECT_EQ(*w.metrics.get(Metric::WindowStepsTotal), 5);

  options.window.skip_first = 2;
  WorkerAnalysis skipped = analyse_json(five_steps(), options);
  EXPECT_EQ(skipped.window.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(*skipped.metrics.get(Metric::StepsMeanUs), 40);
  EXPECT_FALSE(skipped.steps.steps[0].in_window);
  EXPECT_TRUE(skipped.steps.steps[3].in_window);
}

TEST(Window, SelectionsThatLeaveNoStepAreUsageErrors) {
  AnalysisOptions options;
  options.window.iter_start = 50;
  EXPECT_THROW(analyse_json(five_steps(), options), ConfigError);
  AnalysisOptions skip_all;
  skip_all.window.skip_first = 5;
  EXPECT_THROW(analyse_json(five_steps(), skip_all), ConfigError);
  AnalysisOptions no_steps;
  no_steps.window.iter_start = 1;
  EXPECT_THROW(analyse_json(TraceBuilder().op("a", 0, 1).json(), no_steps), ConfigError);
}

}  // namespace
}  // namespace perfgate::testing
