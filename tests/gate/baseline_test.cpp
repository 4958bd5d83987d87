// Baselines: a JSON report read back equals the model it was written from; detection of reports;
// the warning when the baseline ran on other GPUs.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "common/errors.h"
#include "gate/gate.h"
#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

ReportModel healthy_report() {
  TrainingRun run;
  run.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  run.memory_peak_pct = 60;
  return report_of_json(training_trace(run), default_book());
}

TEST(Baseline, AJsonReportReadsBackAsTheModel) {
  ReportModel report = healthy_report();
  std::string path = write_text(temp_dir() + "/report.json", render_json(report));
  ASSERT_TRUE(is_report_file(path));
  Baseline read = read_baseline_report(path);
  Baseline direct = baseline_from_report(report, path, "report");
  EXPECT_EQ(read.info.kind, "report");
  EXPECT_EQ(read.info.gpu_names, direct.info.gpu_names);
  EXPECT_EQ(read.info.gpu_names, std::vector<std::string>{"NVIDIA A100-SXM4-40GB"});
  EXPECT_EQ(read.info.steps, 8u);
  EXPECT_EQ(read.info.inputs.size(), 1u);
  EXPECT_EQ(read.info.inputs[0].format, "kineto-json");
  ASSERT_EQ(read.step_durations_us.size(), direct.step_durations_us.size());
  for (std::size_t i = 0; i < read.step_durations_us.size(); ++i)
    EXPECT_NEAR(read.step_durations_us[i], direct.step_durations_us[i], 1e-3);
  ASSERT_EQ(read.metrics.size(), direct.metrics.size());
  for (std::size_t i = 0; i < read.metrics.size(); ++i) {
    std::string_view name = metric_catalog()[i].name;
    EXPECT_EQ(read.metrics.at(i).has_value(), direct.metrics.at(i).has_value()) << name;
    if (read.metrics.at(i)) {
      double expected = *direct.metrics.at(i);
      EXPECT_NEAR(*read.metrics.at(i), expected, 1e-6 * std::max(1.0, std::abs(expected))) << name;
    }
  }
  ASSERT_EQ(read.ops.size(), direct.ops.size());
  for (std::size_t i = 0; i < read.ops.size(); ++i) {
    EXPECT_EQ(read.ops[i].name, direct.ops[i].name);
    EXPECT_NEAR(read.ops[i].gpu_us, direct.ops[i].gpu_us, 1e-3);
    EXPECT_EQ(read.ops[i].calls, direct.ops[i].calls);
  }
  EXPECT_EQ(read.kernels.size(), direct.kernels.size());
}

TEST(Baseline, GzipReportsAndTracesAreToldApart) {
  ReportModel report = healthy_report();
  std::string gz = write_gzip(temp_dir() + "/report.json.gz", render_json(report));
  EXPECT_TRUE(is_report_file(gz));
  EXPECT_EQ(read_baseline_report(gz).info.steps, 8u);
  std::string trace = write_text(temp_dir() + "/t.json", training_trace(TrainingRun{}));
  EXPECT_FALSE(is_report_file(trace));
  EXPECT_FALSE(is_report_file(temp_dir()));
}

TEST(Baseline, WrongFieldsNameTheFileAndTheField) {
  auto error = [](const std::string& text) {
    std::string path = write_text(temp_dir() + "/bad.json", text);
    try {
      read_baseline_report(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("[1, 2]").find("bad.json: not a usable perfgate report: the top level must be an object"),
            std::string::npos);
  EXPECT_NE(error(R"({"schema": "x"})").find("no 'schema'"), std::string::npos);
  std::string steps =
      R"({"schema": "perfgate-report/1", "tool": {"name": "perfgate", "version": "1"}, "inputs": [], "gpus": [],
          "metrics": {}, "steps": [{}]})";
  EXPECT_NE(error(steps).find("a step needs a numeric 'duration_us'"), std::string::npos);
  std::string metric = R"({"schema": "perfgate-report/1", "tool": {"name": "perfgate", "version": "1"},
                           "inputs": [], "gpus": [], "metrics": {"a": "b"}})";
  EXPECT_NE(error(metric).find("metric 'a' must be a number or null"), std::string::npos);
}

std::string baseline_error(const std::string& text) {
  std::string path = write_text(temp_dir() + "/bad.json", text);
  try {
    read_baseline_report(path);
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

std::string replace_first(std::string s, const std::string& from, const std::string& to) {
  std::size_t at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// The first value of `key` in `json` (written "key": value) replaced by `value`.
std::string replace_value(std::string json, const std::string& key, const std::string& value) {
  std::size_t at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return json;
  std::size_t start = json.find_first_not_of(" ", json.find(':', at) + 1);
  std::size_t end = json.find_first_of(",}\n", start);
  return json.replace(start, end - start, value);
}

// Issue 13: a BOM is accepted; absurd values, other tools and other versions are not taken silently.
TEST(Baseline, BomValuesToolAndVersionAreChecked) {
  ReportModel report = healthy_report();
  std::string json = render_json(report);
  std::string bom = write_text(temp_dir() + "/bom.json", "\xEF\xBB\xBF" + json);
  EXPECT_TRUE(is_report_file(bom));
  EXPECT_EQ(read_baseline_report(bom).info.steps, 8u);

  std::string negative = replace_value(json, "duration_us", "-5");
  EXPECT_NE(baseline_error(negative).find("step 1 has a duration of -5 us: it must be positive"),
            std::string::npos)
      << baseline_error(negative);
  std::string huge = replace_value(json, "window.wall_us", "1e308");
  EXPECT_NE(baseline_error(huge).find("metric 'window.wall_us' is 1e+308, beyond any real measurement"),
            std::string::npos)
      << baseline_error(huge);

  std::string other = replace_first(json, "\"perfgate\"", "\"othertool\"");
  EXPECT_NE(baseline_error(other).find("written by 'othertool' " + report.tool_version + ", not by perfgate"),
            std::string::npos)
      << baseline_error(other);

  std::string old = replace_first(json, "\"" + report.tool_version + "\"", "\"0.0.1\"");
  Baseline base = read_baseline_report(write_text(temp_dir() + "/old.json", old));
  EXPECT_EQ(base.info.tool_version, "0.0.1");
  apply_gate(report, default_rules(), &base, {});
  bool noted = false;
  for (const std::string& w : note_lines(report.warnings))
    noted |= w.find("the baseline report was written by perfgate 0.0.1 (this is " + report.tool_version) == 0;
  EXPECT_TRUE(noted);
}

// Issue 13: steps are read without a DOM of them (a 100,000-step report cost 150 MB); nested values
// inside a step and the steps outside the window are handled as before.
TEST(Baseline, ManyStepsAreReadCompactly) {
  std::string steps;
  for (int i = 0; i < 100000; ++i)
    steps += fmt::format(
        R"({}{{"name": "s{}", "breakdown": {{"duration_us": 1e9, "x": [1, {{"in_window": true}}]}},
                             "in_window": {}, "duration_us": {}}})",
        i ? "," : "", i, i % 10 ? "true" : "false", 1000 + i % 7);
  std::string json = R"({"schema": "perfgate-report/1", "tool": {"name": "perfgate", "version": "1"},
                         "inputs": [], "gpus": [], "metrics": {"steps.mean_us": 1003.0}, "steps": [)" +
                     steps + R"(], "workers": []})";
  Baseline b = read_baseline_report(write_text(temp_dir() + "/many.json", json));
  ASSERT_EQ(b.step_durations_us.size(), 90000u);  // every tenth step is outside the window
  EXPECT_EQ(b.step_durations_us[0], 1001);        // step 1 (step 0 is outside)
  EXPECT_EQ(b.info.steps, 90000u);
  EXPECT_EQ(*b.metric(Metric::StepsMeanUs), 1003.0);
}

// Issue 28, item 7: a baseline was parsed into a whole DOM, so a gzip bomb of zeros reached 6.3 GB
// and one of keys 10.5 GB. The reader now streams and keeps only what the gate reads, counted
// against the input memory limit: values it does not read cost nothing, a key given again replaces
// its value, and what it keeps stops at the limit.
TEST(Baseline, ReportsAreReadWithinTheInputMemoryLimit) {
  std::string head = R"({"schema": "perfgate-report/1", "tool": {"name": "perfgate", "version": "1"},
                         "inputs": [], "gpus": [], "steps": [{"duration_us": 100}], "workers": [], )";
  std::string zeros = "[0";
  for (int i = 0; i < 2'000'000; ++i) zeros += ",0";  // 4 MB of text, 32 MB as a DOM
  std::string repeated;
  for (int i = 0; i < 200'000; ++i) repeated += fmt::format(R"("steps.mean_us": {}, )", i);
  std::string path =
      write_gzip(temp_dir() + "/bomb.json.gz",
                 head + R"("x": )" + zeros + R"(], "metrics": {)" + repeated + R"("gpu.count": 1}})");
  const std::uint64_t limit = 1 << 20;
  Baseline b = read_baseline_report(path, limit);
  EXPECT_EQ(b.metric(Metric::StepsMeanUs), 199999);  // the last value given
  EXPECT_EQ(b.metric(Metric::GpuCount), 1);
  EXPECT_EQ(b.step_durations_us, std::vector<double>{100});

  std::string distinct;
  for (int i = 0; i < 100'000; ++i) distinct += fmt::format(R"("m{}": 1, )", i);
  std::string many =
      write_text(temp_dir() + "/many.json", head + R"("metrics": {)" + distinct + R"("n": 1}})");
  Baseline unlimited = read_baseline_report(many, 0);  // 0: no limit
  // Read, and not kept: none of those names is a catalog metric.
  for (std::size_t i = 0; i < kMetricCount; ++i) EXPECT_FALSE(unlimited.metrics.at(i));
  try {
    read_baseline_report(many, limit);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              many +
                  ": holding this input needs more than 1 MiB of memory, the limit for one input; raise it "
                  "with --max-input-memory or PERFGATE_MAX_INPUT_MEMORY if this is a real profile (0: no "
                  "limit)");
  }
}

// The columns of a table may follow its rows (a tool that sorts keys, reversed): the same sums.
TEST(Baseline, RowsBeforeColumnsAreReadAlike) {
  std::string head = R"({"schema": "perfgate-report/1", "tool": {"name": "perfgate", "version": "1"},
                         "inputs": [], "gpus": [], "metrics": {}, "steps": [], "workers": [], "tables": {)";
  std::string columns = R"("columns": [{"name": "calls"}, {"name": "x"}, {"name": "name"},
                                      {"name": "host_self_us"}, {"name": "device_self_us"}])";
  std::string rows = R"("rows": [[2, "s", "aten::mm", 5, 7.5], [1, [0], "aten::mm", 1], ["x"]])";
  for (const std::string& table : {"{" + columns + ", " + rows + "}", "{" + rows + ", " + columns + "}"}) {
    Baseline b = read_baseline_report(
        write_text(temp_dir() + "/t.json", head + R"("run_ops": )" + table +
                                               R"(, "run_regions": {"columns": [], "rows": []},
                                                                                  "run_kernels": {"columns": [], "rows": []}}})"));
    ASSERT_EQ(b.ops.size(), 1u) << table;
    EXPECT_EQ(b.ops[0].name, "aten::mm");
    EXPECT_EQ(b.ops[0].calls, 3);     // 2 + 1
    EXPECT_EQ(b.ops[0].cpu_us, 6);    // 5 + 1
    EXPECT_EQ(b.ops[0].gpu_us, 7.5);  // the second row stops before its device column
  }
}

TEST(Baseline, OtherHardwareIsNoted) {
  ReportModel report = healthy_report();
  Baseline base = baseline_from_report(report, "b.json", "report");
  base.info.gpu_names = {"Tesla V100-SXM2-16GB"};
  apply_gate(report, default_rules(), &base, {});
  ASSERT_TRUE(report.baseline);
  EXPECT_TRUE(report.baseline->hardware_differs);
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_NE(note_line(report.warnings.back())
                .find("the baseline ran on other GPUs (Tesla V100-SXM2-16GB) than this run "
                      "(NVIDIA A100-SXM4-40GB)"),
            std::string::npos)
      << note_line(report.warnings.back());
}

// Every output says so, the compact ones included (issue 15: only the HTML and terminal did).
TEST(Baseline, EveryOutputSaysTheBaselineRanOnOtherGpus) {
  ReportModel report = healthy_report();
  Baseline base = baseline_from_report(report, "b.json", "report");
  base.info.gpu_names = {"Tesla V100-SXM2-16GB"};
  apply_gate(report, default_rules(), &base, {});
  const std::string said =
      "The baseline ran on other GPUs (Tesla V100-SXM2-16GB against NVIDIA A100-SXM4-40GB)";
  std::string markdown = render_markdown(report);
  EXPECT_NE(markdown.find("\n\n> ⚠️ " + said), std::string::npos) << markdown.substr(0, 400);
  std::string comment = render_markdown(report, MarkdownOptions{true, kPrCommentBudget});
  EXPECT_NE(comment.find("> ⚠️ " + said), std::string::npos);
  EXPECT_NE(render_junit(report).find("<system-out>" + said), std::string::npos);
  EXPECT_NE(render_terminal(report).find(said), std::string::npos);
  EXPECT_NE(render_html(report).page.find(said), std::string::npos);
  EXPECT_NE(render_github_annotations(report).find("::warning title=perfgate baseline mismatch::" + said),
            std::string::npos);
  // The same GPUs: nothing to say.
  ReportModel same = healthy_report();
  Baseline same_base = baseline_from_report(same, "b.json", "report");
  apply_gate(same, default_rules(), &same_base, {});
  EXPECT_EQ(render_markdown(same).find("other GPUs"), std::string::npos);
  EXPECT_EQ(render_junit(same).find("<system-out>"), std::string::npos);
}

// Two steps of 5 ms, each starting with the DataLoader as a user_annotation (PyTorch 2.x: not an op,
// so not in the op table) of `loader_us`, then a 100 us kernel.
std::string loader_trace(double loader_us) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  for (int i = 0; i < 2; ++i) {
    double s = 5000.0 * i;
    t.step(i + 1, s, 5000);
    t.annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s + 10, loader_us);
    t.launch("k", s + loader_us + 20, s + loader_us + 30, 100);
  }
  return t.json();
}

const std::vector<ReportCell>* row_named(const ReportTable& t, std::string_view name) {
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    if (const auto* n = find_cell(t, r, "name"); n && std::get<std::string>(*n) == name) return &t.rows[r];
  return nullptr;
}

// The DataLoader grew from 1000 to 3000 us per step (2 steps each: 2000 and 6000 us in all). Read
// back from the baseline's JSON report, the region_deltas table has it: +2000 us per step.
TEST(Baseline, RegionsAreComparedPerStep) {
  ReportModel before = report_of_json(loader_trace(1000), default_book());
  std::string path = write_text(temp_dir() + "/before.json", render_json(before));
  Baseline base = read_baseline_report(path);
  ASSERT_EQ(base.regions.size(), 1u);
  EXPECT_NEAR(base.regions[0].cpu_us, 2000, 1e-6);
  ReportModel after = report_of_json(loader_trace(3000), default_book());
  apply_gate(after, default_rules(), &base, {});
  const ReportTable* regions = find_table(after.tables, "region_deltas");
  ASSERT_TRUE(regions);
  const auto* loader = row_named(*regions, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  ASSERT_TRUE(loader);
  auto cell = [&](std::string_view column) {
    for (std::size_t c = 0; c < regions->columns.size(); ++c)
      if (regions->columns[c].name == column) return (*loader)[c];
    return ReportCell{};
  };
  EXPECT_EQ(std::get<std::string>(cell("change")), "regression");
  EXPECT_NEAR(std::get<double>(cell("baseline_cpu_us_per_step")), 1000, 1e-6);
  EXPECT_NEAR(std::get<double>(cell("cpu_us_per_step")), 3000, 1e-6);
  EXPECT_NEAR(std::get<double>(cell("delta_cpu_us_per_step")), 2000, 1e-6);
  EXPECT_NEAR(std::get<double>(cell("calls_per_step")), 1, 1e-9);
  // Every measure of every delta table says it is per step, in its name and its description.
  for (const char* name : {"op_deltas", "region_deltas", "kernel_deltas"}) {
    const ReportTable* t = find_table(after.tables, name);
    ASSERT_TRUE(t) << name;
    for (const ReportColumn& c : t->columns) {
      if (c.name == "name" || c.name == "change") continue;
      EXPECT_TRUE(c.name.ends_with("_per_step")) << name << ": " << c.name;
      EXPECT_NE(c.description.find("per step"), std::string::npos) << name << ": " << c.description;
    }
  }
}

}  // namespace
}  // namespace perfgate::testing
