// The report renderers on hostile input (names from a trace and text from a rule file that try to
// inject markup, formulas or workflow commands), their size budgets and their determinism.
#include <regex>

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "common/errors.h"
#include "common/units.h"
#include "gate/gate.h"
#include "neuron/neuron_fixture.h"
#include "render/cell_format.h"
#include "render/escape.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

constexpr const char* kScriptKernel = "<script>alert(1)</script>";
constexpr const char* kImageOp = "\"><img src=x onerror=alert(2)>";
constexpr const char* kFormulaKernel = "=HYPERLINK(\"http://evil.example\",\"click\")";

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A step whose op and kernels have hostile names, and a rule file whose texts are hostile too.
ReportModel hostile_report() {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  for (int i = 0; i < 4; ++i) {
    double s = 1000.0 * i;
    t.step(i + 1, s, 900);
    t.op(kImageOp, s + 10, 100, 10 + i);
    t.launch(kScriptKernel, s + 20, s + 30, 500, 10 + i);
    t.op("a|b`c`_*d*", s + 200, 50, 20 + i);
    t.launch(kFormulaKernel, s + 210, s + 600, 200, 20 + i);
    t.launch("+cmd|' /C calc'!A0", s + 220, s + 820, 40, 20 + i);
  }
  std::string rules = write_text(temp_dir() + "/hostile.yaml", R"YAML(
rules:
  - id: hostile.rule
    title: "<b>bold</b> & <i>title</i>"
    metric: gpu.utilization_pct
    better: higher
    fail: 101
    problem: "<script>alert(3)</script> {value} | `code`"
    recommendation: "::error title=x::injected%0A"
    docs: "javascript:alert(4)"
  # A warning for --fail-on warning to count (the 4 ms trace's chunks are too short for
  # gpu.low-utilization-chunk, which warned here before issue 53).
  - id: hostile.warning
    title: "<i>a warning</i>"
    metric: gpu.utilization_pct
    better: higher
    warn: 101
    problem: "<script>alert(5)</script> {value}"
    recommendation: "a warning"
)YAML");
  RuleBook set_book = load_rule_book({rules});
  RuleSet& set = set_book.rules;
  ReportModel report = report_of_json(t.json(), set_book);
  apply_gate(report, set, nullptr, {});
  return report;
}

TEST(HtmlReport, EveryStringFromATraceOrARuleFileIsEscaped) {
  ReportModel report = hostile_report();
  std::string page = render_html(report).page;
  EXPECT_FALSE(contains(page, kScriptKernel));
  EXPECT_FALSE(contains(page, "<img src=x"));
  EXPECT_FALSE(contains(page, "<b>bold</b>"));
  EXPECT_FALSE(contains(page, "<script>alert(3)"));
  EXPECT_TRUE(contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;")) << "the kernel shows as text";
  EXPECT_TRUE(contains(page, "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;title&lt;/i&gt;"));
  EXPECT_FALSE(contains(page, "href=\"javascript:")) << "a rule's docs value is not trusted as a link";
  // The embedded data cannot close its <script> element.
  std::size_t data = page.find("id=\"perfgate-data\">");
  ASSERT_NE(data, std::string::npos);
  std::size_t end = page.find("</script>", data);
  std::string json = page.substr(data + 19, end - data - 19);
  EXPECT_FALSE(contains(json, "<"));
  EXPECT_EQ(boost::json::parse(json).at("schema").as_string(), "perfgate-report/2.7");
  // Exactly two script elements: the data and the sorting script.
  std::size_t scripts = 0;
  for (std::size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 2u);
}

// The page's data is in the JSON report's layout (perfgate-report/2.1): the run's device families and
// each worker's, as the JSON report states them, not those of a report built by hand (none known).
TEST(HtmlReport, TheEmbeddedDataStatesTheDeviceFamilies) {
  ReportModel report = report_of_json(neuron_full_json(), default_book());
  std::string page = render_html(report).page;
  std::size_t data = page.find("id=\"perfgate-data\">");
  ASSERT_NE(data, std::string::npos);
  std::size_t end = page.find("</script>", data);
  boost::json::value embedded = boost::json::parse(page.substr(data + 19, end - data - 19));
  boost::json::value json = boost::json::parse(render_json(report));
  EXPECT_EQ(embedded.at("families"), json.at("families"));
  EXPECT_EQ(embedded.at("families"), boost::json::parse(R"(["neuron"])"));
  ASSERT_EQ(embedded.at("workers").as_array().size(), 1u);
  EXPECT_EQ(embedded.at("workers").at(0).at("system").at("family"), "neuron");
}

TEST(HtmlReport, SelfContainedUnlessAskedForExternalAssets) {
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  HtmlOutput inline_page = render_html(report);
  for (const char* request : {"<link", "<img", "src=\"http", "@import", "url("})
    EXPECT_FALSE(contains(inline_page.page, request)) << request;
  EXPECT_TRUE(contains(inline_page.page, "<style>"));
  EXPECT_TRUE(contains(inline_page.page, "<svg"));
  HtmlOptions external;
  external.external_assets = true;
  HtmlOutput page = render_html(report, external);
  EXPECT_FALSE(contains(page.page, "<style>"));
  EXPECT_TRUE(contains(page.page, "<link rel=\"stylesheet\" href=\"report.css\">"));
  EXPECT_TRUE(contains(page.page, "<script src=\"report.js\" defer></script>"));
  EXPECT_FALSE(contains(page.page, " style=\"")) << "inline style attributes are blocked by a strict CSP too";
  EXPECT_EQ(page.css, inline_page.css);
  EXPECT_FALSE(page.js.empty());
}

TEST(HtmlReport, TablesShowTheirFirstRowsAndSayHowManyThereAre) {
  TrainingRun run;
  run.short_kernels = 1;  // a third op, aten::mul, beside aten::mm and aten::add_
  ReportModel report = report_of_json(training_trace(run), default_book());
  HtmlOptions o;
  o.max_rows = 2;
  std::string page = render_html(report, o).page;
  EXPECT_TRUE(contains(page, "the first 2 of")) << "a truncated table says so";
  EXPECT_EQ(render_html(report, o).page, page) << "same input, same bytes";
  EXPECT_FALSE(contains(page, " UTC")) << "no time unless asked";
  o.timestamp = "2026-11-22 10:00:00 UTC";
  EXPECT_TRUE(contains(render_html(report, o).page, "2026-11-22 10:00:00 UTC"));
}

// Every table of the JSON report with rows is in the page; long ones start collapsed.
TEST(HtmlReport, EveryTableOfTheJsonReportIsInThePage) {
  TrainingRun run;
  run.short_kernels = 30;
  ReportModel report = report_of_json(training_trace(run), default_book());
  std::string page = render_html(report).page;
  std::size_t long_tables = 0;
  for (const ReportTable& t : report.workers.front().tables) {
    if (t.rows.empty()) continue;
    bool dashboard = t.name == "system" || t.name == "top_gpu_ops";
    std::string id = dashboard ? "table-" + t.name : "table-0-" + t.name;
    std::size_t at = page.find("id=\"" + id + "\"");
    ASSERT_NE(at, std::string::npos) << t.name;
    const std::string opening = "<details class=\"long-table\" ";
    bool collapsed = page.compare(at - opening.size(), opening.size(), opening) == 0;
    EXPECT_EQ(collapsed, !dashboard && t.rows.size() > 20) << t.name << " (" << t.rows.size() << " rows)";
    long_tables += collapsed;
  }
  EXPECT_GT(long_tables, 0U) << "the trace has a table of more than 20 rows";
}

TEST(MarkdownReport, CellsAndTextAreEscaped) {
  ReportModel report = hostile_report();
  std::string md = render_markdown(report);
  EXPECT_FALSE(contains(md, "<script>"));
  EXPECT_TRUE(contains(md, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(contains(md, "a\\|b\\`c\\`\\_\\*d\\*")) << "a | in a cell does not split the table";
  EXPECT_FALSE(contains(md, "<b>bold</b>"));
  // Failures first: the hostile rule fails and leads the findings.
  std::size_t findings = md.find("### Findings");
  ASSERT_NE(findings, std::string::npos);
  EXPECT_TRUE(contains(md.substr(findings, 200), "❌"));
}

// A peak counted from the capture's start (the trace has no allocator totals) is shown as a lower
// bound; a recorded one as it is.
TEST(MarkdownReport, APeakWithoutRecordedTotalsIsALowerBound) {
  TrainingRun run;
  run.memory_peak_pct = 50;
  run.memory_totals = false;
  std::string rebuilt = render_markdown(report_of_json(training_trace(run), default_book()));
  EXPECT_TRUE(contains(rebuilt, "| Peak GPU memory | at least ")) << rebuilt;
  run.memory_totals = true;
  std::string recorded = render_markdown(report_of_json(training_trace(run), default_book()));
  EXPECT_TRUE(contains(recorded, "| Peak GPU memory | "));
  EXPECT_FALSE(contains(recorded, "at least"));
}

TEST(MarkdownReport, FitsItsBudget) {
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  std::string full = render_markdown(report);
  for (std::size_t budget : {std::size_t{1500}, std::size_t{3000}, std::size_t{6000}}) {
    std::string md = render_markdown(report, MarkdownOptions{false, budget});
    EXPECT_LE(md.size(), budget);
    EXPECT_TRUE(md.starts_with("## ✅ perfgate: PASS")) << md.substr(0, 80);
  }
  std::string comment = render_markdown(report, MarkdownOptions{true, kPrCommentBudget});
  EXPECT_LE(comment.size(), kPrCommentBudget);
  EXPECT_FALSE(contains(comment, "<details>"));
  EXPECT_TRUE(contains(full, "<details>"));
}

// GitHub continues a list item into the next line unless a blank line ends the list; a heading
// over a table cut by the budget says how many of its rows are shown.
TEST(MarkdownReport, ListsEndAndCutTablesSaySo) {
  TrainingRun run;
  run.dataloader_us = 1000;  // a finding fires
  ReportModel report = report_of_json(training_trace(run), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  std::string md = render_markdown(report, MarkdownOptions{true, 3000});
  std::size_t passed = md.find("<sub>Passed: ");
  ASSERT_NE(passed, std::string::npos) << md;
  EXPECT_EQ(md.substr(passed - 2, 2), "\n\n")
      << "the line after the last finding: " << md.substr(passed - 80, 80);
  const ReportTable* top = find_table(report.workers.front().tables, "top_gpu_ops");
  ASSERT_TRUE(top);
  std::size_t heading = md.find("### Top 10 GPU ops");
  ASSERT_NE(heading, std::string::npos) << md;
  std::string line = md.substr(heading, md.find('\n', heading) - heading);
  std::size_t rows = 0;
  for (std::size_t at = md.find("\n| ", heading);
       at != std::string::npos && at < md.find("\n\n", heading + line.size() + 2);
       at = md.find("\n| ", at + 1))
    ++rows;
  rows -= 1;  // the header row
  if (rows < top->rows.size()) {
    EXPECT_EQ(line, fmt::format("### Top 10 GPU ops (the first {} of {})", rows, top->rows.size()));
  } else {
    EXPECT_EQ(line, "### Top 10 GPU ops");
  }
}

// Iteration and gap starts are epoch microseconds in the JSON report; the page and the Markdown
// show them from the window start, and their headers say so.
TEST(HtmlReport, StartTimesFromTheWindowStart) {
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  const ReportWorker& w = report.workers.front();
  const ReportTable* iterations = find_table(w.tables, "iterations");
  ASSERT_TRUE(iterations && iterations->rows.size() > 2);
  double first = *cell_number(*find_cell(*iterations, 0, "start_us"));
  double third = *cell_number(*find_cell(*iterations, 2, "start_us"));
  ASSERT_GT(w.window.start_us, 0.0) << "the trace clock is not the window's";
  EXPECT_DOUBLE_EQ(first, w.window.start_us) << "the JSON keeps the trace clock";
  std::string relative = cell_text(ReportCell{third - w.window.start_us}, "us");
  std::string page = render_html(report).page;
  EXPECT_TRUE(contains(
      page, "title=\"start_us\" class=\"num\">Start <span class=\"unit\">(from the window start)</span>"));
  std::size_t table = page.find("id=\"table-0-iterations\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(page.find(">0.0</td>", table), std::string::npos);
  EXPECT_NE(page.find(">" + relative + "</td>", table), std::string::npos) << relative;
  std::string md = render_markdown(report);
  EXPECT_TRUE(contains(md, "| Start (from the window start) |"));
  EXPECT_TRUE(contains(md, "| " + relative + " |")) << relative;
}

// In the iterations chart, a step outside the window is a dashed outline, not a grey bar that reads
// as "no kernel running"; and the tallest bar stays under the plot's top.
TEST(HtmlReport, StepsOutsideTheWindowAreOutlines) {
  TrainingRun run;
  AnalysisOptions options;
  options.window.skip_first = 2;
  ReportModel report = report_of_json(training_trace(run), default_book(), options);
  std::size_t outside = 0;
  for (const ReportStep& s : report.workers.front().steps) outside += !s.in_window;
  ASSERT_EQ(outside, 2U);
  std::string page = render_html(report).page;
  std::size_t chart = page.find("aria-label=\"Iterations\"");
  ASSERT_NE(chart, std::string::npos);
  std::string svg = page.substr(chart, page.find("</svg>", chart) - chart);
  std::size_t outlines = 0;
  for (std::size_t at = svg.find("stroke-dasharray=\"3 2\""); at != std::string::npos;
       at = svg.find("stroke-dasharray=\"3 2\"", at + 1))
    ++outlines;
  EXPECT_EQ(outlines, outside);
  EXPECT_NE(svg.find("outside the window"), std::string::npos);
  EXPECT_TRUE(contains(page, "steps outside the aggregation window as dashed outlines"));
  // No bar (the rectangles of a step's <g>) reaches the top of the plot (y = 14).
  for (std::size_t g = svg.find("<g>"); g != std::string::npos; g = svg.find("<g>", g + 1)) {
    std::string bar = svg.substr(g, svg.find("</g>", g) - g);
    EXPECT_EQ(bar.find("y=\"14.00\""), std::string::npos) << bar;
  }
}

// Above the step's timeline, the whole window: a box per window step and a red box per GPU gap of
// the gpu_gaps table (the DataLoader's 1 ms at each step's start).
TEST(HtmlReport, TheWholeWindowStripShowsStepsAndGaps) {
  TrainingRun run;
  run.dataloader_us = 1000;
  ReportModel report = report_of_json(training_trace(run), default_book());
  const ReportWorker& w = report.workers.front();
  const ReportTable* gaps = find_table(w.tables, "gpu_gaps");
  ASSERT_TRUE(gaps);
  ASSERT_GE(gaps->rows.size(), 2u);
  std::size_t window_steps = 0;
  for (const ReportStep& s : w.steps) window_steps += s.in_window;
  std::string page = render_html(report).page;
  std::size_t strip = page.find("aria-label=\"The whole window: steps and GPU gaps\"");
  ASSERT_NE(strip, std::string::npos);
  std::string svg = page.substr(strip, page.find("</figure>", strip) - strip);
  auto count = [&](const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(part); at != std::string::npos; at = svg.find(part, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("fill=\"#d9534f\""), gaps->rows.size());
  EXPECT_EQ(count("<title>ProfilerStep#"), window_steps);
  // The median step is marked, its number in white; every text element stays well-formed.
  EXPECT_EQ(count("fill=\"#5b6b86\""), 1u);
  EXPECT_EQ(count("fill=\"#ffffff\""), count("fill=\"#5b6b86\"")) << svg;
  EXPECT_EQ(count("<text "), count("</text>"));
}

// The strip outlines the step with the least GPU busy time for its length: the middle step, with
// 3 ms of host-only work before its GEMM (its GPU work is the same as the others', so it is also
// the longest).
TEST(HtmlReport, TheWholeWindowStripOutlinesTheLeastBusyStep) {
  TrainingRun run;
  run.gap_us = 3000;
  ReportModel report = report_of_json(training_trace(run), default_book());
  const ReportStep* longest = nullptr;
  for (const ReportStep& s : report.workers.front().steps)
    if (s.in_window && (!longest || s.duration_us > longest->duration_us)) longest = &s;
  ASSERT_TRUE(longest);
  std::string page = render_html(report).page;
  std::size_t strip = page.find("aria-label=\"The whole window: steps and GPU gaps\"");
  ASSERT_NE(strip, std::string::npos);
  std::string svg = page.substr(strip, page.find("</figure>", strip) - strip);
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(svg, m, std::regex(R"(<title>([^:<]+): [^<]*\(the least busy step\)</title>)")))
      << svg;
  EXPECT_EQ(m[1].str(), longest->name);
  EXPECT_EQ(svg.find("stroke=\"#f08c3a\""), svg.rfind("stroke=\"#f08c3a\"")) << "one outline";
  EXPECT_NE(svg.find("stroke=\"#f08c3a\""), std::string::npos);

  // Steps alike: no outline.
  std::string even = render_html(report_of_json(training_trace(TrainingRun{}), default_book())).page;
  EXPECT_EQ(even.find("stroke=\"#f08c3a\""), std::string::npos);
}

// The memory section: the peak (20 MB of the GPU's 100 MB, in aten::conv2d, 30 us into the window
// [100,200] us), the reserved peak, and a chart with the allocated and reserved lines and the
// window's highest total marked. No section without [memory] events.
TEST(HtmlReport, TheMemorySectionShowsThePeakItsOpAndTheCurves) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100", 8, 0, 100'000'000, 108);
  t.step(1, 100, 50).step(2, 150, 50);
  t.op("aten::conv2d", 110, 40).op("aten::add", 160, 20);
  t.memory(120, 5'000'000, 15'000'000, 1, 0, 1, 30'000'000);
  t.memory(130, 5'000'000, 20'000'000, 1, 0, 1, 40'000'000);
  t.memory(170, -8'000'000, 12'000'000, 1, 0, 1, 40'000'000);
  ReportModel report = report_of_json(t.json(), default_book());
  std::string page = render_html(report).page;
  std::size_t section = page.find("<section id=\"memory\"");
  ASSERT_NE(section, std::string::npos);
  std::string memory = page.substr(section, page.find("</section>", section) - section);
  EXPECT_TRUE(contains(memory,
                       "Peak 20.0 MB allocated on GPU 0 (20.0% of its memory), in aten::conv2d, 30.0 us into "
                       "the window."))
      << memory.substr(0, 600);
  EXPECT_TRUE(contains(memory, "The caching allocator reserved at most 40.0 MB."));
  EXPECT_TRUE(contains(memory, "aria-label=\"GPU memory over the window\""));
  std::size_t lines = 0;
  for (std::size_t at = memory.find("<polyline"); at != std::string::npos;
       at = memory.find("<polyline", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2u) << "allocated and reserved";
  EXPECT_TRUE(contains(memory, "<title>window peak 20.0 MB</title>"));
  EXPECT_TRUE(contains(page, "<a href=\"#memory\">Memory</a>"));

  std::string without = render_html(report_of_json(training_trace(TrainingRun{}), default_book())).page;
  EXPECT_FALSE(contains(without, "<section id=\"memory\""));
}

// Headers are words with their unit after them (issue 93: ids, with units in a tooltip alone), but
// no unit on identifiers and counts ("rank", "calls"); the id stays in the tooltip.
TEST(HtmlReport, HeadersAreWordsWithTheirUnits) {
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  std::string page = render_html(report).page;
  EXPECT_TRUE(contains(page, ">Rank</th>"));
  EXPECT_TRUE(contains(page, ">Calls</th>"));
  EXPECT_TRUE(contains(page, "title=\"device_self_us\" class=\"num\""));
  EXPECT_TRUE(contains(page, ">Device self time <span class=\"unit\">(µs)</span></th>"));
  EXPECT_FALSE(contains(page, "(count)"));
  EXPECT_FALSE(contains(page, ">device_self_us"));
  std::string md = render_markdown(report);
  EXPECT_TRUE(contains(md, "Device self time (µs)")) << md;
  EXPECT_FALSE(contains(md, "device\\_self\\_us")) << "a Markdown header is no column id";
  // Microseconds and counts with thousands separators.
  EXPECT_EQ(cell_text(ReportCell{142461.0}, "us"), "142,461.0");
  EXPECT_EQ(cell_text(ReportCell{std::int64_t{1234567}}, "count"), "1,234,567");
  EXPECT_EQ(cell_text(ReportCell{-1234.5}, "us"), "-1,234.5");
  EXPECT_EQ(cell_text(ReportCell{999.0}, "us"), "999.0");
}

// The workbook formats a number only when it might widen its column: the bound must never be
// below the text's length, at any magnitude, sign, or rounding that carries (9.96 -> "10.0").
TEST(Reports, CellTextLengthBoundIsNeverBelowTheText) {
  std::vector<double> values = {0, 0.04, 0.05, 0.96, 9.95, 9.96, 99.96, 999.95, 999.96, 9999.999, 1e5};
  for (double scale = 1e-3; scale < 1e17; scale *= 7.3) values.push_back(scale);
  for (double p = 1; p < 1e17; p *= 10) {
    values.push_back(p);
    values.push_back(p - 0.04);
    values.push_back(p - 0.004);
  }
  for (double v : std::vector<double>(values)) values.push_back(-v);
  for (std::string_view unit : {"us", "%", "count"}) {
    for (double v : values) {
      std::size_t length = cell_text(ReportCell{v}, unit).size();
      ASSERT_TRUE(cell_text_length_bound(v, unit).has_value()) << unit;
      EXPECT_GE(*cell_text_length_bound(v, unit), length) << v << " " << unit;
    }
  }
  EXPECT_FALSE(cell_text_length_bound(1.5, "bytes").has_value());  // formatted by format_value
}

bool have_unzip() {
  return std::system("command -v unzip >/dev/null 2>&1") == 0;
}

// The worksheet file of the sheet named `name` ("xl/worksheets/sheet4.xml"), by its place in the
// workbook's list.
std::string sheet_file(const std::string& path, const std::string& name) {
  std::string book = unzip(path, "xl/workbook.xml");
  std::size_t at = book.find("<sheet name=\"" + name + "\"");
  if (at == std::string::npos) return "";
  int n = 0;
  for (std::size_t i = book.find("<sheet name="); i <= at; i = book.find("<sheet name=", i + 1)) ++n;
  return "xl/worksheets/sheet" + std::to_string(n) + ".xml";
}

TEST(XlsxReport, TextIsNeverAFormula) {
  if (!have_unzip()) GTEST_SKIP() << "unzip not installed (ci/setup.sh --tests installs it)";
  ReportModel report = hostile_report();
  std::string path = temp_dir() + "/hostile.xlsx";
  write_xlsx(report, path);
  std::string strings = unzip(path, "xl/sharedStrings.xml");
  EXPECT_TRUE(contains(strings, "=HYPERLINK(\"http://evil.example\",\"click\")") ||
              contains(strings, "=HYPERLINK(&quot;http://evil.example&quot;,&quot;click&quot;)"))
      << "kept as text";
  EXPECT_TRUE(contains(strings, "+cmd|&apos; /C calc&apos;!A0") || contains(strings, "+cmd|' /C calc'!A0"));
  for (int sheet = 1; sheet <= 9; ++sheet) {
    std::string xml = unzip(path, "xl/worksheets/sheet" + std::to_string(sheet) + ".xml");
    EXPECT_FALSE(xml.empty()) << sheet;
    EXPECT_FALSE(contains(xml, "<f>")) << "sheet " << sheet << " has a formula";
  }
  std::string workbook = unzip(path, "xl/workbook.xml");
  for (const char* sheet : {"Verdict",
                            "Summary",
                            "Findings",
                            "Iterations",
                            "System",
                            "GPUs",
                            "Top GPU ops",
                            "Step breakdown",
                            "Ops",
                            "Ops by input shapes",
                            "Op types",
                            "Kernels",
                            "Kernels by op",
                            "Kernels by step",
                            "Kernels by op (top)",
                            "Regions",
                            "TC shapes",
                            "GPU gaps",
                            "Step timeline",
                            "Rules"})
    // A table without rows is a row of the "No rows" sheet instead of a sheet of its own.
    EXPECT_TRUE(
        contains(workbook, std::string("name=\"") + sheet + "\"") ||
        (contains(workbook, "name=\"No rows\"") && contains(strings, std::string("<t>") + sheet + "</t>")))
        << sheet;
  EXPECT_TRUE(contains(unzip(path, "xl/styles.xml"), "formatCode=\"@\"") ||
              contains(unzip(path, "xl/styles.xml"), "numFmtId=\"49\""))
      << "text cells use the Text format";
  EXPECT_FALSE(unzip(path, "xl/charts/chart1.xml").empty()) << "the iterations chart";
  // The hostile rule's docs ("javascript:alert(4)") stay text: only web links become links.
  std::string findings_rels = sheet_file(path, "Findings");
  findings_rels.insert(findings_rels.rfind('/') + 1, "_rels/");
  EXPECT_FALSE(contains(unzip(path, findings_rels + ".rels"), "javascript"));
  EXPECT_TRUE(contains(strings, "javascript:alert(4)")) << "written as text";
}

// Readable in a spreadsheet: whole counts without a trailing point, the header row and the name
// column frozen, long text wrapped, documentation links clickable, fired findings first.
TEST(XlsxReport, FormatsFrozenNamesLinksAndFiredFindingsFirst) {
  if (!have_unzip()) GTEST_SKIP() << "unzip not installed (ci/setup.sh --tests installs it)";
  TrainingRun run;
  run.tensor_cores = false;  // tensor-cores.amp fires; it comes late in the rule order
  ReportModel report = report_of_json(training_trace(run), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  std::string path = temp_dir() + "/readable.xlsx";
  write_xlsx(report, path);
  std::string styles = unzip(path, "xl/styles.xml");
  EXPECT_TRUE(contains(styles, "formatCode=\"#,##0\""));
  EXPECT_FALSE(contains(styles, "#,##0.##")) << "Excel shows 318 as \"318.\"";
  EXPECT_TRUE(contains(styles, "wrapText=\"1\""));
  std::string findings = unzip(path, sheet_file(path, "Findings"));
  EXPECT_TRUE(contains(findings, "<hyperlink ref=\"Q")) << "docs links, column Q";
  std::string strings = unzip(path, "xl/sharedStrings.xml");
  // The first data row (row 2) is a fired finding: its status cell (after the id, the title and
  // the headline) reads "warn".
  std::size_t row2 = findings.find("<row r=\"2\"");
  ASSERT_NE(row2, std::string::npos);
  std::size_t status = findings.find("<c r=\"D2\"", row2);
  ASSERT_NE(status, std::string::npos);
  std::size_t index_at = findings.find("<v>", status) + 3;
  std::size_t index = std::stoul(findings.substr(index_at, findings.find("</v>", index_at) - index_at));
  std::size_t at = 0;
  for (std::size_t i = 0; i <= index; ++i) at = strings.find("<si>", at) + 4;
  EXPECT_EQ(strings.substr(at, strings.find("</si>", at) - at).find("warn"), 3U) << "<t>warn</t>";
  // The iterations chart colours each part as the HTML page does (kernel #2f6fde, data loader
  // #d9534f) and says its unit as the page does.
  std::string chart = unzip(path, "xl/charts/chart1.xml");
  EXPECT_TRUE(contains(chart, "<a:srgbClr val=\"2F6FDE\"/>")) << chart.substr(0, 400);
  EXPECT_TRUE(contains(chart, "<a:srgbClr val=\"D9534F\"/>"));
  EXPECT_TRUE(contains(chart, "µs"));
  // The Ops sheet keeps its header row and name column in view.
  EXPECT_TRUE(contains(unzip(path, sheet_file(path, "Ops")), "<pane xSplit=\"1\" ySplit=\"1\""));
}

TEST(XlsxReport, SameReportSameBytes) {
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  std::string a = temp_dir() + "/a.xlsx", b = temp_dir() + "/b.xlsx";
  write_xlsx(report, a);
  write_xlsx(report, b);
  EXPECT_EQ(read_text(a), read_text(b));
  EXPECT_THROW(write_xlsx(report, "/no/such/folder/x.xlsx"), OutputError);
}

// The DataLoader, a user_annotation, grows from 100 to 1100 us per step: +1.00 ms per step. Every
// output shows the region changes, and headers say that the figures are per step.
// The ops that changed most per step, as the plugin's diff view: aten::add_'s kernel grew by 1.5 ms
// a step (slower, red, to the right of the zero line); nothing got faster.
TEST(BaselineChanges, TheHtmlChartsTheOpsThatChangedMost) {
  TrainingRun before;
  TrainingRun after = before;
  after.extra_us.assign(static_cast<std::size_t>(after.steps), 1500);
  Baseline base =
      baseline_from_report(report_of_json(training_trace(before), default_book()), "base.json", "report");
  ReportModel report = report_of_json(training_trace(after), default_book());
  apply_gate(report, default_rules(), &base, {});
  std::string html = render_html(report).page;
  std::size_t chart = html.find("aria-label=\"Op changes per step against the baseline\"");
  ASSERT_NE(chart, std::string::npos);
  std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  EXPECT_TRUE(contains(svg, ">aten::add_</text>")) << svg;
  EXPECT_TRUE(contains(svg, ">+1.50 ms</text>")) << svg;
  EXPECT_TRUE(contains(svg, "fill=\"#d9534f\"")) << "slower in red";
  EXPECT_FALSE(contains(svg, "fill=\"#1f8a4c\"")) << "nothing faster";
}

// A run whose DataLoader region (a user annotation) grew from 100 to 1100 us a step, gated
// against the report of the run before.
struct DataLoaderGrowth {
  TrainingRun before;
  Baseline base;
  ReportModel report;
};

DataLoaderGrowth dataloader_growth() {
  DataLoaderGrowth g;
  g.before.dataloader_us = 100;
  g.before.dataloader_annotation = true;
  TrainingRun after = g.before;
  after.dataloader_us = 1100;
  g.base =
      baseline_from_report(report_of_json(training_trace(g.before), default_book()), "base.json", "report");
  g.report = report_of_json(training_trace(after), default_book());
  apply_gate(g.report, default_rules(), &g.base, {});
  return g;
}

TEST(BaselineChanges, EveryOutputShowsRegionsPerStep) {
  DataLoaderGrowth g = dataloader_growth();
  const TrainingRun& before = g.before;
  const Baseline& base = g.base;
  ReportModel& report = g.report;
  const char* loader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  std::string md = render_markdown(report);
  EXPECT_TRUE(contains(md, "Region changes against the baseline")) << md;
  EXPECT_TRUE(contains(md, R"(| Delta CPU time per step (µs) |)")) << md;
  std::string html = render_html(report).page;
  EXPECT_TRUE(contains(html, "Region changes against the baseline"));
  // Each gated metric with its value, the baseline's and the change: the data loader's share went
  // from the baseline's to this run's, and the page says both.
  const ReportFinding* loader_rule = find_finding(report, "regression.dataloader");
  ASSERT_TRUE(loader_rule && loader_rule->baseline && loader_rule->value);
  std::size_t gated = html.find("id=\"table-gated_metrics\"");
  ASSERT_NE(gated, std::string::npos);
  std::string row = html.substr(html.find(">regression.dataloader<", gated), 400);
  EXPECT_TRUE(contains(row, ">" + format_value(loader_rule->value, "%") + "<")) << row;
  EXPECT_TRUE(contains(row, ">" + format_value(loader_rule->baseline, "%") + "<")) << row;
  EXPECT_TRUE(contains(row, fmt::format(">{:+.1f} pts<", *loader_rule->value - *loader_rule->baseline)))
      << row;
  // The dashboard's cards carry the change beside the value.
  std::size_t card = html.find("<dt>Data loader, of the step</dt><dd>");
  ASSERT_NE(card, std::string::npos);
  EXPECT_TRUE(contains(html.substr(card, 200), fmt::format("<span class=\"change\">{:+.1f} pts</span>",
                                                           *loader_rule->value - *loader_rule->baseline)))
      << html.substr(card, 200);
  EXPECT_TRUE(contains(html,
                       "title=\"delta_cpu_us_per_step\" class=\"num\">Delta CPU time per step <span "
                       "class=\"unit\">(µs)</span></th>"));
  std::string json = render_json(report);
  EXPECT_TRUE(contains(json, "\"region_deltas\"")) << "in the JSON report";
  EXPECT_TRUE(contains(json, "\"delta_cpu_us_per_step\"")) << "column names carry the label";
  std::string terminal = render_terminal(report);
  EXPECT_TRUE(contains(terminal, "Changes      per step against the baseline")) << terminal;
  // Issue 56: a slower and a faster line per kind, each entry with its calls (ranges) before and after.
  EXPECT_TRUE(contains(terminal, fmt::format("  regions    slower  {} +1.00 ms (1 → 1 ranges)\n", loader)))
      << terminal;
  // Against itself nothing got slower: no "Changes" block of +0.0 us rows.
  ReportModel same = report_of_json(training_trace(before), default_book());
  apply_gate(same, default_rules(), &base, {});
  EXPECT_FALSE(contains(render_terminal(same), "Changes ")) << render_terminal(same);
  if (!have_unzip()) GTEST_SKIP() << "unzip not installed: the workbook is not checked";
  std::string path = temp_dir() + "/changes.xlsx";
  write_xlsx(report, path);
  EXPECT_TRUE(contains(unzip(path, "xl/workbook.xml"), "name=\"Baseline regions\""));
  EXPECT_TRUE(contains(unzip(path, "xl/sharedStrings.xml"), "Delta CPU time per step (µs)"));
}

// Issue 29, item 2: with a baseline, every output that lists the baseline tables has "What the
// step time grew by": here the DataLoader region grew by 1000 us a step.
TEST(BaselineChanges, EveryOutputShowsWhatTheStepTimeGrewBy) {
  DataLoaderGrowth g = dataloader_growth();
  ReportModel& report = g.report;
  std::string region = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ (region)";
  std::string md = render_markdown(report);
  EXPECT_TRUE(contains(md, "What the step time grew by")) << md;
  EXPECT_TRUE(contains(md, "| GPU idle | GPU idle |")) << md;
  std::string html = render_html(report).page;
  EXPECT_TRUE(contains(html, "id=\"table-step_time_deltas\""));
  EXPECT_TRUE(contains(html, ">" + region + "</td>"));
  EXPECT_TRUE(contains(render_json(report), "\"step_time_deltas\""));
  const ReportFinding* f = find_finding(report, "regression.step-time");
  ASSERT_TRUE(f && !f->offenders.empty());
  EXPECT_EQ(f->offenders[0].label, region);
  if (!have_unzip()) GTEST_SKIP() << "unzip not installed: the workbook is not checked";
  std::string path = temp_dir() + "/step_time.xlsx";
  write_xlsx(report, path);
  EXPECT_TRUE(contains(unzip(path, "xl/workbook.xml"), "name=\"Baseline step time\""));
  EXPECT_TRUE(contains(unzip(path, "xl/sharedStrings.xml"), region));
}

// Long names that differ only in their middle are cut so that they still differ, in the page and
// in Markdown: 100 'k', then A or B, then 99 'z'. Cut at the end both read as the k's, cut in the
// middle as k's and z's.
TEST(BaselineChanges, LongNamesCutInTablesStillDiffer) {
  std::string a = std::string(100, 'k') + "A" + std::string(99, 'z');
  std::string b = std::string(100, 'k') + "B" + std::string(99, 'z');
  ReportModel report;
  report.baseline = ReportBaseline{};
  report.tables.push_back(
      {"op_deltas", "Op changes against the baseline", "", {{"name", "", ""}}, {{a}, {b}}});
  // The page cuts at 96 bytes: 22 bytes of the start, then 68 from byte 83 (17 before where they
  // differ), each part followed by an ellipsis.
  std::string html = render_html(report).page;
  for (const std::string& name : {a, b})
    EXPECT_TRUE(contains(html, ">" + std::string(22, 'k') + "…" + name.substr(83, 68) + "…</td>")) << name;
  // Markdown cuts at 80 bytes: 18 bytes of the start, then 56 from byte 86.
  std::string md = render_markdown(report);
  for (const std::string& name : {a, b})
    EXPECT_TRUE(contains(md, "| " + std::string(18, 'k') + "…" + name.substr(86, 56) + "… |")) << md;
}

// Issue 74, item 6: a step-time failure carries its confidence into every output a reviewer reads
// — the interval, the p-value and the smallest change the run could see — not only the terminal,
// the HTML page and the JSON. The GEMM 6000 us -> 7200 us a step (+13%, a FAIL).
TEST(StepTimeConfidence, EveryReviewOutputStatesIt) {
  TrainingRun before, after;
  after.gemm_us = 7200;
  after.extra_us = before.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  Baseline base =
      baseline_from_report(report_of_json(training_trace(before), default_book()), "base.json", "report");
  ReportModel report = report_of_json(training_trace(after), default_book());
  apply_gate(report, default_rules(), &base, {});
  const ReportFinding* f = find_finding(report, "regression.step-time");
  ASSERT_TRUE(f && f->step_test);
  ASSERT_EQ(f->status, FindingStatus::Fail);
  // The interval as the step test states it, from its own numbers.
  std::string interval = fmt::format("95% interval {:+.1f}% to {:+.1f}%", 100 * (f->step_test->ci_low - 1),
                                     100 * (f->step_test->ci_high - 1));
  std::string sees = fmt::format("can see changes of about {:.1f}% or more", *f->step_test->mdc_pct);
  for (const std::string& out : {render_markdown(report), render_markdown(report, {.compact = true}),
                                 render_gitlab_code_quality(report)}) {
    EXPECT_TRUE(contains(out, interval)) << interval << "\n" << out;
    EXPECT_TRUE(contains(out, "p = ")) << out;
    EXPECT_TRUE(contains(out, sees)) << sees << "\n" << out;
  }
  // A workflow command's data has its % encoded (%25).
  auto encoded = [](std::string text) {
    for (std::size_t at = text.find('%'); at != std::string::npos; at = text.find('%', at + 3))
      text.replace(at, 1, "%25");
    return text;
  };
  std::string github = render_github_annotations(report);
  EXPECT_TRUE(contains(github, encoded(interval))) << github;
  EXPECT_TRUE(contains(github, encoded(sees))) << github;
}

TEST(JunitReport, ATestCasePerRule) {
  ReportModel report = hostile_report();
  std::string xml = render_junit(report);
  EXPECT_TRUE(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
  EXPECT_TRUE(contains(xml, fmt::format("tests=\"{}\"", report.findings.size())));
  EXPECT_TRUE(contains(xml, "<testcase classname=\"perfgate.hostile\" name=\"hostile.rule\""));
  EXPECT_TRUE(contains(xml, "<failure message=\"&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;title&lt;/i&gt;"));
  EXPECT_TRUE(contains(xml, "failures=\"1\""));
  EXPECT_TRUE(contains(xml, "<skipped message=\"no baseline to compare with"));
  EXPECT_FALSE(contains(xml, "<script>"));
  // With --fail-on warning, warnings are failures too.
  EXPECT_FALSE(contains(render_junit(report, true), "failures=\"1\""));
}

TEST(GithubAnnotations, PropertiesAndDataAreEscaped) {
  EXPECT_EQ(github_data_escape("50% done\r\nnext"), "50%25 done%0D%0Anext");
  EXPECT_EQ(github_property_escape("a:b,c%"), "a%3Ab%2Cc%25");
  ReportModel report = hostile_report();
  std::string out = render_github_annotations(report);
  EXPECT_TRUE(contains(out, "::error title=perfgate hostile.rule::"));
  EXPECT_FALSE(contains(out, "\n::error title=x::injected")) << "a message cannot start a command";
  EXPECT_TRUE(contains(out, "%0A::error title=x::injected%250A")) << "it stays inside one line";
  for (std::size_t at = 0; (at = out.find('\n', at)) != std::string::npos; ++at)
    EXPECT_TRUE(at + 1 == out.size() || out.compare(at + 1, 2, "::") == 0) << "every line is a command";
}

TEST(GithubAnnotations, AtMostTenPerLevel) {
  ReportModel report;
  for (int i = 0; i < 13; ++i) {
    ReportFinding f;
    f.id = "r" + std::to_string(i);
    f.title = "t";
    f.status = FindingStatus::Warn;
    f.counts_as = "warning";
    report.findings.push_back(f);
  }
  std::string out = render_github_annotations(report);
  std::size_t warnings = 0;
  for (std::size_t at = out.find("::warning"); at != std::string::npos; at = out.find("::warning", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 11u);  // ten, and the line that counts the rest
  EXPECT_TRUE(contains(out, "3 more warning findings"));
}

TEST(GitlabReports, CodeQualityAndOpenMetrics) {
  ReportModel report = hostile_report();
  boost::json::value quality = boost::json::parse(render_gitlab_code_quality(report));
  ASSERT_TRUE(quality.is_array());
  bool found = false;
  for (const auto& issue : quality.as_array()) {
    const auto& o = issue.as_object();
    EXPECT_EQ(o.at("fingerprint").as_string().size(), 16u);
    EXPECT_TRUE(o.at("location").at("lines").at("begin").is_int64());
    if (o.at("check_name").as_string() == "perfgate.hostile.rule") {
      found = true;
      EXPECT_EQ(o.at("severity").as_string(), "major");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(render_gitlab_code_quality(report), render_gitlab_code_quality(report));
  std::string metrics = render_openmetrics(report);
  EXPECT_TRUE(metrics.ends_with("# EOF\n"));
  EXPECT_TRUE(contains(metrics, "# TYPE perfgate_gpu_utilization_pct gauge\nperfgate_gpu_utilization_pct "));
  EXPECT_FALSE(contains(metrics, "perfgate_memory_peak_pct")) << "a metric with no value is left out";
}

// Issue 76: the plots draw the report's tables as they are: the top kernels chart has the kernels
// table's first rows, in its order, each with its total time as the table has it; each plot is an
// SVG with a viewBox in a card of the dashboard.
TEST(HtmlReport, PlotsDrawTheTablesRows) {
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  std::string page = render_html(report).page;
  std::size_t chart = page.find("<h3>Top kernels</h3>");
  ASSERT_NE(chart, std::string::npos);
  std::string svg = page.substr(chart, page.find("</svg>", chart) - chart);
  EXPECT_NE(svg.find("viewBox=\"0 0 600 "), std::string::npos) << svg;
  const ReportTable* kernels = find_table(report.workers.front().tables, "kernels");
  ASSERT_TRUE(kernels && !kernels->rows.empty());
  std::size_t at = 0;
  for (std::size_t i = 0; i < std::min<std::size_t>(kernels->rows.size(), 10); ++i) {
    std::string value = ">" + format_duration_us(number_at(*kernels, i, "total_us")) + "</text>";
    at = svg.find(value, at);
    ASSERT_NE(at, std::string::npos) << "row " << i << ": " << value << " in order";
  }
}

}  // namespace
}  // namespace perfgate::testing
