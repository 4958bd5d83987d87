// What the HTML page says about what it shows: which step the timeline is of, what a run without
// steps can and cannot show, and how its tables are sorted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "render/cell_format.h"
#include "render/format.h"
#include "render/html/table_view.h"
#include "render/render.h"
#include "render/templates.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Steps of the given lengths (us), one after the other, each launching a 100 us kernel.
std::string steps_of(const std::vector<double>& durations) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  double start = 0;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    t.step(static_cast<int>(i) + 1, start, durations[i]);
    t.launch("gemm", start + 10, start + 20, 100);
    start += durations[i];
  }
  return t.json();
}

// Of an odd count of steps the timeline shows the median one; of an even count the median is the
// mean of the two middle steps, which no step is: the timeline shows the shorter of the two and
// says so. Steps of 1.00, 1.10, 1.30 and 1.60 ms: the median is (1.10 + 1.30) / 2 = 1.20 ms, and
// the timeline is of ProfilerStep#2 (1.10 ms).
TEST(HtmlViews, TheTimelineSaysWhichMiddleStepItShows) {
  std::string even = render_html(report_of_json(steps_of({1000, 1100, 1300, 1600}), default_book())).page;
  EXPECT_TRUE(contains(even, "<h2 id=\"timeline-title\">Timeline of ProfilerStep#2</h2>"));
  EXPECT_TRUE(contains(even,
                       "<figcaption>ProfilerStep#2, 1.10 ms, the shorter of the two middle steps "
                       "(the median, 1.20 ms, is their mean):"))
      << even.substr(even.find("id=\"timeline\""), 4000);
  EXPECT_FALSE(contains(even, "<figcaption>The median step"));

  // 1.00, 1.10 and 1.30 ms: the median is ProfilerStep#2's 1.10 ms.
  std::string odd = render_html(report_of_json(steps_of({1000, 1100, 1300}), default_book())).page;
  EXPECT_TRUE(contains(odd, "<figcaption>The median step, ProfilerStep#2, 1.10 ms:"))
      << odd.substr(odd.find("id=\"timeline\""), 4000);
}

// Two workers whose traces have no steps and do not name their GPU, as nsys exports often have
// neither: four kernels each (of `kernel_us`), on GPU 0 of each.
std::string no_step_run(double kernel_us = 100) {
  std::string dir = temp_dir();
  for (const char* worker : {"a", "b"}) {
    TraceBuilder t;
    for (int i = 0; i < 4; ++i) {
      t.op("aten::mm", 1000.0 * i, 300, 1 + i);
      t.launch("gemm", 1000.0 * i + 10, 1000.0 * i + 20, kernel_us, 1 + i);
    }
    t.write(dir + "/" + worker + ".json");
  }
  return dir;
}

// A run without steps has no ranks chart to draw (no rank has a mean step), says what its gains
// are a share of (the window: there is no step time), and its system card counts the run's GPUs
// as the dashboard does (2), not the first worker's (1).
TEST(HtmlViews, ARunWithoutStepsSaysWhatItCovers) {
  ReportModel report = report_of_files({no_step_run()}, default_book());
  ASSERT_EQ(report.workers.size(), 2u);
  apply_gate(report, default_rules(), nullptr, {});
  ASSERT_FALSE(report.findings.empty());
  ReportFinding& f = report.findings.front();
  f.status = FindingStatus::Warn;
  f.gain_pct = 10;
  f.saves.clear();  // its own place in "What to fix first", whatever else fired
  std::string page = render_html(report).page;
  EXPECT_FALSE(contains(page, "aria-label=\"Ranks\"")) << "an empty ranks chart";
  EXPECT_TRUE(contains(page, "<span class=\"gain\">Up to 10.0% of the window.</span>"));
  EXPECT_TRUE(contains(page, "Estimated gain: up to 10.0% of the window."));
  EXPECT_FALSE(contains(page, "of the step time.</span>") || contains(page, "of the step time.</p>"));
  EXPECT_TRUE(contains(render_terminal(report), "estimated gain: up to 10.0% of the window"));
  std::size_t system = page.find("id=\"table-system\"");
  ASSERT_NE(system, std::string::npos);
  std::string card = page.substr(system, page.find("</table>", system) - system);
  EXPECT_TRUE(contains(card, "<td>GPUs of the run</td><td>2 x unknown model on 2 workers</td>")) << card;
  EXPECT_FALSE(contains(page, "1 x unknown<")) << "a worker's GPU says the model is unknown";
}

// Changes against a baseline are per window step only where both runs have steps; otherwise each
// run's whole window is compared, and every output says so. A run without steps (4 gemm kernels
// of 100 us: 400 us) against the same work in 4 steps: 400 us against 400 us, unchanged. Per step
// on one side only, it was 400 against 100 us, "+300 us" of a "regression".
TEST(HtmlViews, ChangesAreOverTheWholeWindowsWhereARunHasNoSteps) {
  TraceBuilder stepped;
  for (int i = 0; i < 4; ++i) {
    stepped.step(i + 1, 1000.0 * i, 1000);
    stepped.op("aten::mm", 1000.0 * i, 300, 1 + i);
    stepped.launch("gemm", 1000.0 * i + 10, 1000.0 * i + 20, 100, 1 + i);
  }
  ReportModel base = report_of_json(stepped.json(), default_book());
  ASSERT_EQ(base.steps.size(), 4u);
  ReportModel now = report_of_files({no_step_run() + "/a.json"}, default_book());
  std::vector<ReportTable> deltas = delta_tables(now, baseline_from_report(base, "base.json", "report"));
  const ReportTable* kernels = find_table(deltas, "kernel_deltas");
  ASSERT_TRUE(kernels);
  ASSERT_EQ(kernels->rows.size(), 1u);
  EXPECT_EQ(text_at(*kernels, 0, "change"), "unchanged");
  EXPECT_DOUBLE_EQ(number_at(*kernels, 0, "baseline_us_per_step"), 400);
  EXPECT_DOUBLE_EQ(number_at(*kernels, 0, "us_per_step"), 400);
  EXPECT_TRUE(contains(kernels->description, "each run's whole window")) << kernels->description;

  // The kernels 50 us longer: 200 us more over the window.
  std::string dir = temp_dir();
  write_text(dir + "/base.json", render_json(base));
  CommandResult r = run_perfgate("analyze --verbose " + no_step_run(150) + "/a.json --baseline " + dir +
                                 "/base.json --html " + dir + "/r.html");
  EXPECT_TRUE(contains(r.out, "Changes      over each run's whole window against the baseline")) << r.out;
  std::string page = read_text(dir + "/r.html");
  EXPECT_FALSE(contains(page, "per step against the baseline"));
}

// A table cut to its first rows sorts as the whole table would: each column header lists, for each
// direction, the rows the page shows first in that order (indices into the shown rows and the
// rows kept aside, as data: the page's texts' indices). Six ops in the table's order (most GPU time
// first), two shown:
//   a: 500 us, 1 call; b: 400 us, 2; c: 300 us, 9; b2: 250 us, 5; d: 200 us, 7; e: 100 us, no count.
// Largest first by calls: c, d; smallest first: a, b (an empty cell last either way). By name,
// z to a: e, d; a to z: a, b. By GPU time: a, b and e, d. So c, d and e are kept aside, in table
// order (page rows 2, 3 and 4); b2, first in no order, is not in the page.
TEST(HtmlViews, SortingATruncatedTableOrdersTheWholeTable) {
  ReportTable t{
      "ops", "Ops", "Ops by name", {{"name", "", ""}, {"calls", "count", ""}, {"gpu_us", "us", ""}}, {}};
  t.rows = {{std::string("a"), std::int64_t{1}, 500.0}, {std::string("b"), std::int64_t{2}, 400.0},
            {std::string("c"), std::int64_t{9}, 300.0}, {std::string("b2"), std::int64_t{5}, 250.0},
            {std::string("d"), std::int64_t{7}, 200.0}, {std::string("e"), std::monostate{}, 100.0}};
  AsideTexts texts;
  std::string html = render_template("table.html.mustache", table_view(t, 2, "ops", texts));
  EXPECT_TRUE(contains(html, "<th scope=\"col\" title=\"name\" data-desc=\"4 3\" data-asc=\"0 1\">Name</th>"))
      << html;
  EXPECT_TRUE(contains(html,
                       "<th scope=\"col\" title=\"calls\" class=\"num\" data-desc=\"2 3\" data-asc=\"0 1\" "
                       "data-td=\"n\">Calls</th>"));
  EXPECT_TRUE(contains(html,
                       "<th scope=\"col\" title=\"gpu_us\" class=\"num\" data-desc=\"0 1\" data-asc=\"4 3\" "
                       "data-td=\"n\">GPU time <span class=\"unit\">(µs)</span></th>"));
  EXPECT_TRUE(
      contains(html, "<script type=\"application/json\" class=\"aside\">[[0,1,2],[3,4,5],[6,7,8]]</script>"))
      << html;
  EXPECT_EQ(texts.json(), "[\"c\",\"9\",\"300.0\",\"d\",\"7\",\"200.0\",\"e\",\"–\",\"100.0\"]");
  // A table shown whole sorts in the page: no lists, nothing aside.
  std::string whole = render_template("table.html.mustache", table_view(t, 6, "ops", texts));
  EXPECT_FALSE(contains(whole, "data-desc") || contains(whole, "class=\"aside\""));
}

// Issue 76: headers a reader reads (the id, as the JSON report and rules call the column, in the
// tooltip), and the kernels' tc_rule as what decided rather than the pattern (in the tooltip).
TEST(HtmlViews, HeadersAreWordsAndTcRuleSaysWhatDecided) {
  EXPECT_EQ(column_label("gpu_busy_pct", "%"), "GPU busy");
  EXPECT_EQ(column_label("kernel_us", "us"), "Kernel time");
  EXPECT_EQ(column_label("duration_us", "us"), "Duration");
  EXPECT_EQ(column_label("memory_bytes", "bytes"), "Memory");
  EXPECT_EQ(column_label("tc_rule", ""), "Tensor Core rule");
  EXPECT_EQ(column_label("sm_count", "count"), "SM count");
  // With the unit after the label (issue 93: units were in a tooltip alone).
  EXPECT_EQ(column_header(ReportColumn{"device_self_us", "us", ""}), "Device self time (µs)");
  EXPECT_EQ(column_header(ReportColumn{"gpu_busy_pct", "%", ""}), "GPU busy (%)");
  EXPECT_EQ(column_header(ReportColumn{"duration_us", "us", ""}), "Duration (µs)");
  EXPECT_EQ(column_header(ReportColumn{"memory_bytes", "bytes", ""}), "Memory (bytes)");
  EXPECT_EQ(column_header(ReportColumn{"calls", "count", ""}), "Calls");
  EXPECT_EQ(column_header(ReportColumn{"bytes", "bytes", ""}), "Bytes");
  EXPECT_EQ(column_header(ReportColumn{"start_us", "us", ""}, kFromWindowStart),
            "Start (from the window start)");
  ReportTable t{"kernels", "Kernels", "", {{"name", "", ""}, {"tc_rule", "", ""}}, {}};
  t.rows = {{std::string("sm80_xmma_gemm_bf16"), std::string("h884|s884|xmma_gemm")},
            {std::string("sgemm_128"), std::string("simt: ^[sdcz]gemm_")},
            {std::string("elementwise"), std::string()}};
  AsideTexts texts;
  std::string html = render_template("table.html.mustache", table_view(t, 10, "kernels", texts));
  EXPECT_TRUE(contains(html, "<th scope=\"col\" title=\"tc_rule\">Tensor Core rule</th>")) << html;
  EXPECT_TRUE(contains(
      html, "<td title=\"h884|s884|xmma_gemm\">Tensor Core kernel (rules: tensor_core_kernels)</td>"))
      << html;
  EXPECT_TRUE(
      contains(html, "<td title=\"simt: ^[sdcz]gemm_\">SIMT kernel (rules: non_tensor_core_kernels)</td>"))
      << html;
  EXPECT_TRUE(contains(html, "<td>elementwise</td><td></td>")) << html;
}

// Issue 76: the entry that decided whether a kernel is Tensor Core work names its source (the rule
// file's `source:`), escaped in every output: the page's tc_rule tooltip (pattern, then source) and
// the tc_rule_source column of the page, Markdown, JSON and the workbook.
TEST(HtmlViews, TheTensorCoreRuleNamesItsSourceEscapedInEveryOutput) {
  std::string rules = write_text(temp_dir() + "/tc_source.yaml",
                                 "classification:\n  tensor_core_kernels:\n    add:\n"
                                 "      - pattern: '^my_tc_kernel'\n"
                                 "        source: \"<b>Lab & co</b> | measured\"\n");
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  t.step(1, 0, 1000);
  t.launch("my_tc_kernel_128x128", 10, 20, 100);
  t.launch("elementwise_kernel", 200, 210, 50);
  ReportModel report = report_of_json(t.json(), load_rule_book({rules}));
  ASSERT_FALSE(report.workers.empty());
  const ReportTable* kernels = find_table(report.workers.front().tables, Table::Kernels);
  ASSERT_TRUE(kernels);
  std::size_t tc = text_at(*kernels, 0, "name") == "my_tc_kernel_128x128" ? 0 : 1;
  EXPECT_EQ(text_at(*kernels, tc, "tc_rule"), "^my_tc_kernel");
  EXPECT_EQ(text_at(*kernels, tc, "tc_rule_source"), "<b>Lab & co</b> | measured");
  EXPECT_EQ(text_at(*kernels, 1 - tc, "tc_rule_source"), "");  // no entry decided

  std::string html = render_html(report).page;
  EXPECT_TRUE(contains(html,
                       "<td title=\"^my_tc_kernel\nsource: &lt;b&gt;Lab &amp; co&lt;/b&gt; | measured\">"
                       "Tensor Core kernel (rules: tensor_core_kernels)</td>"))
      << html;
  EXPECT_TRUE(contains(html, "<td>&lt;b&gt;Lab &amp; co&lt;/b&gt; | measured</td>"));
  EXPECT_FALSE(contains(html, "<b>Lab"));
  std::string md = render_markdown(report);
  EXPECT_TRUE(contains(md, "| &lt;b&gt;Lab &amp; co&lt;/b&gt; \\| measured |")) << md;
  // JSON writes "</" as "<\/", so that no "</script>" ends a page the JSON is put in.
  EXPECT_TRUE(contains(render_json(report), "\"<b>Lab & co<\\/b> | measured\""));
  if (std::system("command -v unzip >/dev/null 2>&1") != 0) GTEST_SKIP() << "unzip not installed";
  std::string path = temp_dir() + "/tc_source.xlsx";
  write_xlsx(report, path);
  EXPECT_TRUE(contains(unzip(path, "xl/sharedStrings.xml"), "&lt;b&gt;Lab &amp; co&lt;/b&gt; | measured"));
}

// Issue 93, item 4: inputs named relative to the working folder (a run of 8 ranks listed four
// absolute paths), those of one folder after the folder said once; absolute where ".." would climb
// past the working folder's parent.
TEST(HtmlViews, InputsAreNamedFromTheWorkingFolder) {
  namespace fs = std::filesystem;
  fs::path here = fs::current_path();
  ASSERT_NE(here.parent_path(), here.root_path()) << "the test runs two folders down at least";
  EXPECT_EQ(shown_path((here / "traces" / "a.json").string()), "traces/a.json");
  EXPECT_EQ(shown_path("traces/./x/../a.json"), "traces/a.json");
  EXPECT_EQ(shown_path((here.parent_path() / "shared" / "b.json").string()), "../shared/b.json");
  std::string far = (here.parent_path().parent_path() / "c.json").lexically_normal().string();
  EXPECT_EQ(shown_path(far), far);
  ReportModel r;
  for (const char* name : {"run/rank-0.json", "run/rank-1.json", "other.json"})
    r.inputs.push_back(ReportInput{(here / name).string(), 1200, "kineto", "", ""});
  EXPECT_EQ(inputs_text(r, 4), "run/: rank-0.json (1.2 kB), rank-1.json (1.2 kB), other.json (1.2 kB)");
  EXPECT_EQ(inputs_text(r, 1), "run/rank-0.json (1.2 kB) and 2 more");
  // A baseline file the same way; a history, pooled baselines and URIs as given.
  ReportBaseline baseline;
  baseline.kind = "report";
  baseline.path = (here / "base.json").string();
  EXPECT_EQ(shown_baseline(baseline), "base.json");
  baseline.kind = "history";
  EXPECT_EQ(shown_baseline(baseline), baseline.path);
  baseline.kind = "report";
  baseline.path = "a.json, b.json";
  EXPECT_EQ(shown_baseline(baseline), "a.json, b.json");
}

}  // namespace
}  // namespace perfgate::testing
