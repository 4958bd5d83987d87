// The HTML report in a real browser (headless Chromium): no request with the network off, readable
// with scripts blocked and without its style sheet, screenshots at desktop and phone widths in light
// and dark schemes, and A4 print with no column clipped. Skipped when Chromium (or, for the PDF's
// text, pdftotext) is not installed (ci/setup.sh --tests installs them).
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "history/history_runs.h"
#include "render/browser.h"
#include "render/render.h"
#include "report_model/trend.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

// The example's report, written once for all the tests here.
const std::string& report_page() {
  static const std::string page = [] {
    std::string dir = temp_dir();
    std::string example = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
    run_perfgate("analyze " + example + " -q --html " + dir + "/report.html");
    return dir + "/report.html";
  }();
  return page;
}

// Requests the page made (the browser's own, "not an origin", aside) in a net log.
std::size_t page_requests(const std::string& net_log) {
  boost::json::value log = boost::json::parse(read_text(net_log));
  std::int64_t start_job = -1;
  for (const auto& [name, id] : log.at("constants").at("logEventTypes").as_object())
    if (name == "URL_REQUEST_START_JOB") start_job = id.as_int64();
  std::size_t n = 0;
  for (const auto& e : log.at("events").as_array()) {
    const auto& event = e.as_object();
    if (event.at("type").as_int64() != start_job || !event.contains("params")) continue;
    const auto& params = event.at("params").as_object();
    if (params.contains("url") &&
        (!params.contains("initiator") || params.at("initiator").as_string() != "not an origin"))
      ++n;
  }
  return n;
}

TEST(Browser, NoRequestWithTheNetworkOff) {
  REQUIRE_CHROMIUM();
  std::string log = temp_dir() + "/net.json";
  CommandResult r = browse(report_page(), "--dump-dom --log-net-log=" + log);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("class=\"filter\""), std::string::npos) << "the script ran: filter boxes were added";
  EXPECT_EQ(page_requests(log), 0u);
  // The detector itself: a page that loads an image makes a request it counts.
  std::string control =
      write_text(temp_dir() + "/control.html", R"(<img src="http://perfgate.invalid/x.png">)");
  std::string control_log = temp_dir() + "/control.json";
  browse(control, "--dump-dom --log-net-log=" + control_log);
  EXPECT_GE(page_requests(control_log), 1u);
}

// Jenkins' default Content-Security-Policy blocks inline style and script: the page keeps its
// content (headings, tables, charts) and the scripts do not run.
TEST(Browser, ReadableUnderJenkinsContentSecurityPolicy) {
  REQUIRE_CHROMIUM();
  std::string page = read_text(report_page());
  page.replace(
      page.find("<head>") + 6, 0,
      R"(<meta http-equiv="Content-Security-Policy" content="sandbox allow-same-origin; default-src 'none'; img-src 'self'; style-src 'self';">)");
  std::string locked = write_text(temp_dir() + "/locked.html", page);
  CommandResult r = browse(locked, "--dump-dom");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find("class=\"filter\""), std::string::npos) << "scripts were blocked";
  for (const char* content :
       {"PASS with warnings", "dataloader.bottleneck", "aten::convolution_backward", "<svg"})
    EXPECT_NE(r.out.find(content), std::string::npos) << content;
}

TEST(Browser, ReadableWithoutItsStyleSheet) {
  REQUIRE_CHROMIUM();
  std::string page = read_text(report_page());
  std::size_t open = page.find("<style>"), close = page.find("</style>");
  ASSERT_NE(open, std::string::npos);
  page.erase(open, close + 8 - open);
  std::string bare = write_text(temp_dir() + "/bare.html", page);
  std::string shot = temp_dir() + "/bare.png";
  EXPECT_EQ(browse(bare, "--window-size=1280,2000 --screenshot=" + shot).exit_code, 0);
  EXPECT_GT(fs::file_size(shot), 20'000u);
  // Without CSS the charts keep their size (width and height attributes) and carry their numbers
  // in text.
  EXPECT_NE(
      page.find(
          "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 120 120\" width=\"120\" height=\"120\""),
      std::string::npos);
  EXPECT_NE(page.find("<figcaption>Kernel time over the window"), std::string::npos);
}

TEST(Browser, ScreenshotsLightDarkDesktopPhone) {
  REQUIRE_CHROMIUM();
  std::string dir = temp_dir();  // ci/screenshots.sh makes the README's pictures the same way
  std::map<std::string, std::uintmax_t> sizes;
  for (const auto& [name, width, height] :
       {std::tuple{"desktop", 1280, 2400}, std::tuple{"phone", 390, 2400}})
    for (const char* scheme : {"light", "dark"}) {
      std::string shot = fmt::format("{}/report-{}-{}.png", dir, name, scheme);
      std::string flags = fmt::format("--window-size={},{} --screenshot={}{}", width, height, shot,
                                      std::string(scheme) == "dark" ? " --force-dark-mode" : "");
      EXPECT_EQ(browse(report_page(), flags).exit_code, 0);
      ASSERT_TRUE(fs::exists(shot)) << shot;
      sizes[shot] = fs::file_size(shot);
      EXPECT_GT(sizes[shot], 20'000u) << shot;
    }
  EXPECT_NE(read_text(dir + "/report-desktop-light.png"), read_text(dir + "/report-desktop-dark.png"));
}

TEST(Browser, PrintsOnA4) {
  REQUIRE_CHROMIUM();
  std::string pdf = temp_dir() + "/report.pdf";
  EXPECT_EQ(browse(report_page(), "--no-pdf-header-footer --print-to-pdf=" + pdf).exit_code, 0);
  std::string text = read_text(pdf);
  ASSERT_TRUE(text.starts_with("%PDF"));
  // A4 is 210 x 297 mm, 595.3 x 841.9 points (Chromium rounds to whole device pixels).
  // The first pages (dashboard, findings) are portrait; the tables print on landscape pages, where
  // their columns fit.
  std::regex media_box(R"(/MediaBox \[0 0 ([\d.]+) ([\d.]+)\])");
  std::size_t portrait = 0, landscape = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), media_box); it != std::sregex_iterator();
       ++it) {
    double w = std::stod((*it)[1]), h = std::stod((*it)[2]);
    if (std::fabs(w - 595.3) < 1.0 && std::fabs(h - 841.9) < 1.0) ++portrait;
    if (std::fabs(w - 841.9) < 1.0 && std::fabs(h - 595.3) < 1.0) ++landscape;
  }
  EXPECT_GT(portrait, 0u);
  EXPECT_GT(landscape, 0u) << "the tables' pages";
}

#define REQUIRE_PDFTOTEXT()                                     \
  if (std::system("command -v pdftotext >/dev/null 2>&1") != 0) \
  GTEST_SKIP() << "pdftotext not installed (poppler-utils; ci/setup.sh --tests installs it)"

// The lines of the page printed on A4, as pdftotext lays them out (columns of a row on one line;
// text past a page's edge is not in the PDF's text).
std::vector<std::string> printed_lines(const std::string& page) {
  std::string dir = temp_dir();
  browse(page, "--no-pdf-header-footer --print-to-pdf=" + dir + "/report.pdf");
  std::string command = fmt::format("pdftotext -layout {0}/report.pdf {0}/report.txt", dir);
  if (std::system(command.c_str()) != 0) return {};
  std::vector<std::string> lines;
  std::istringstream text(read_text(dir + "/report.txt"));
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// The text of some HTML: tags dropped, the entities the report writes decoded.
std::string page_text(std::string html) {
  html = std::regex_replace(html, std::regex("<[^>]*>"), "");
  for (const auto& [entity, c] : {std::pair{"&lt;", "<"},
                                  {"&gt;", ">"},
                                  {"&quot;", "\""},
                                  {"&apos;", "'"},
                                  {"&#39;", "'"},
                                  {"&amp;", "&"}})
    html = std::regex_replace(html, std::regex(entity), c);
  return html;
}

// A table of the HTML page, as the page says it: its column names (without units), the text of its
// first row's last cell, and whether it sits in a collapsed <details>.
struct PageTable {
  std::vector<std::string> columns;
  std::string last_cell;
  bool collapsed = false;
};

PageTable table_in(const std::string& html, const std::string& id) {
  PageTable t;
  std::size_t at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return t;
  std::size_t tag = html.rfind('<', at);
  t.collapsed =
      html.compare(tag, 8, "<details") == 0 && html.substr(tag, at - tag).find(" open") == std::string::npos;
  std::string table = html.substr(at, html.find("</table>", at) - at);
  std::regex th(R"(<th\b[^>]*>([^<]*))");  // not <thead>; the name, before the unit's <span>
  // Each header's first word: a header of several words ("Device self time") may wrap in print, its
  // first line at the top of the header row (vertical-align: top).
  for (auto it = std::sregex_iterator(table.begin(), table.end(), th); it != std::sregex_iterator(); ++it)
    if (std::vector<std::string> words = words_of(page_text((*it)[1])); !words.empty())
      t.columns.push_back(words.front());
  std::size_t body = table.find("<tbody>");
  std::string row = table.substr(body, table.find("</tr>", body) - body);
  std::size_t cell = row.rfind("<td");
  if (cell != std::string::npos) t.last_cell = page_text(row.substr(cell, row.find("</td>", cell) - cell));
  return t;
}

// The first line from `from` on with the words `names` in order (others, such as units, between).
std::size_t line_with(const std::vector<std::string>& lines, const std::vector<std::string>& names,
                      std::size_t from) {
  for (std::size_t i = from; i < lines.size(); ++i) {
    std::size_t next = 0;
    for (const std::string& word : words_of(lines[i]))
      if (next < names.size() && word == names[next]) ++next;
    if (next == names.size()) return i;
  }
  return lines.size();
}

// The first line of the row under a header line: pdftotext puts a blank line between rows, and a
// header cell that wraps (a unit) continues on the next line.
std::string row_under(const std::vector<std::string>& lines, std::size_t header) {
  std::size_t i = header;
  while (i < lines.size() && !words_of(lines[i]).empty()) ++i;
  while (i < lines.size() && words_of(lines[i]).empty()) ++i;
  return i < lines.size() ? lines[i] : "";
}

// Whether `line` ends with `text`, or with the words of it that come before a wrap.
bool ends_with_start_of(const std::string& line, const std::string& text) {
  std::vector<std::string> got = words_of(line), want = words_of(text);
  for (std::size_t n = want.size(); n > 0; --n)
    if (got.size() >= n && std::equal(want.begin(), want.begin() + n, got.end() - n)) return true;
  return false;
}

std::size_t width_of(const std::string& text) {  // in characters of UTF-8 text
  return std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

// Whether the last word of `row` lies under `name` in `header` (pdftotext -layout keeps a table's
// columns aligned, to a character or so).
bool under(const std::string& row, const std::string& header, const std::string& name) {
  std::size_t at = header.rfind(name);
  std::string trimmed = row.substr(0, row.find_last_not_of(' ') + 1);
  if (at == std::string::npos || trimmed.empty()) return false;
  std::size_t word = trimmed.rfind(' ') + 1;  // 0 when the line is one word
  // The header's text on this line: its first word and those after it up to a gap of two spaces
  // (the next column), as a header of several words ("Tensor core kernel time") prints.
  std::size_t end = header.find("  ", at);
  if (end == std::string::npos) end = header.size();
  std::size_t left = width_of(header.substr(0, at)), right = width_of(header.substr(0, end));
  // pdftotext sets proportional text on a grid of characters: a header line of many short words
  // ("Host self time" wrapped) drifts from its rows by up to a dozen characters.
  constexpr std::size_t drift = 16;
  return width_of(trimmed.substr(0, word)) <= right + drift && width_of(trimmed) + drift >= left;
}

// The page without its scripts (as a server that blocks inline script shows it).
std::string without_scripts(std::string html) {
  for (std::size_t at = html.find("<script"); at != std::string::npos; at = html.find("<script", at)) {
    std::size_t end = html.find("</script>", at);
    if (end == std::string::npos) break;
    html.erase(at, end + 9 - at);
  }
  return html;
}

// Nothing clipped in print: the widest tables (14 to 18 columns, in page order) print with every
// column header on one line of the PDF's text and their first row's last cell at the end of the
// row's line, under its header; the tables of collapsed sections too (printing opens them, with the
// page's script or without it). On the shared A100 trace or the example. Text past a page's edge
// would be missing from the PDF's text.
void expect_printed_tables(const std::string& page, const std::string& html) {
  std::vector<std::string> lines = printed_lines(page);
  ASSERT_GT(lines.size(), 100u) << "the PDF's text";
  std::size_t from = 0, collapsed = 0;
  for (const char* id : {"table-0-gpus", "table-0-iterations", "table-0-ops", "table-0-ops_by_shape",
                         "table-0-kernels", "table-0-kernels_by_op"}) {
    PageTable table = table_in(html, id);
    ASSERT_GT(table.columns.size(), 10u) << id << " in the page";
    collapsed += table.collapsed;
    std::size_t header = line_with(lines, table.columns, from);
    if (header == lines.size()) {
      ADD_FAILURE() << id << ": no line of the PDF has every column header, up to " << table.columns.back()
                    << (table.collapsed ? " (a collapsed section: did printing open it?)" : "");
      continue;
    }
    std::string row = row_under(lines, header);
    EXPECT_TRUE(ends_with_start_of(row, table.last_cell) && under(row, lines[header], table.columns.back()))
        << id << ": the first row's line does not end with its last cell \"" << table.last_cell << "\" under "
        << table.columns.back() << ":\n"
        << lines[header] << "\n"
        << row;
    from = header + 1;
  }
  EXPECT_GT(collapsed, 0u) << "a table of a collapsed section was checked";
}

TEST(Browser, PrintedTablesKeepEveryColumn) {
  REQUIRE_CHROMIUM();
  REQUIRE_PDFTOTEXT();
  std::string page = page_of("a100_80g_5steps_rank0.json.gz");
  std::string html = read_text(page);
  {
    SCOPED_TRACE("with the page's script");
    expect_printed_tables(page, html);
  }
  SCOPED_TRACE("with its scripts blocked");
  expect_printed_tables(write_text(temp_dir() + "/no-script.html", without_scripts(html)), html);
}

// The first screen says what is wrong: the diagnosis's first finding is within the first 900 px at
// desktop and phone widths, on the shared ResNet-50 trace (the DataLoader finding) or the example.
TEST(Browser, TheDiagnosisIsOnTheFirstScreen) {
  REQUIRE_CHROMIUM();
  std::string page = page_of("resnet50_v100_workers0.pt.trace.json.gz");
  for (int width : {1400, 390}) {
    std::map<std::string, double> at = layout(page, width, 900, {".diagnosis li", "#findings"});
    ASSERT_TRUE(at.count(".diagnosis li")) << "no layout measured at " << width;
    EXPECT_GE(at[".diagnosis li"], 0) << "no diagnosis at " << width;
    EXPECT_LT(at[".diagnosis li"], 900 - 60)
        << "the first finding starts below the first screen at " << width;
    EXPECT_GT(at["#findings"], 900) << "the diagnosis, not the findings section, is what fits at " << width;
  }
}

// Chart and timeline text is at least 11 CSS px on a desktop and on a phone: every chart is laid
// out for its card's width (issue 93; issue 76 scaled them to it, and their text with them, to
// 4.3 px on a phone). ChartFit checks every shared input's page at six widths.
TEST(Browser, ChartTextIsReadableAtBothWidths) {
  REQUIRE_CHROMIUM();
  std::string page = page_of("resnet50_v100_workers0.pt.trace.json.gz");
  for (int width : {1400, 390}) {
    std::map<std::string, double> at = measure(page, width, 900, R"(
  out.texts = 0; out.smallest = 1000;
  document.querySelectorAll(".card.chart svg, .timeline svg, .memory svg").forEach(function (svg) {
    var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    svg.querySelectorAll("text").forEach(function (t) {
      out.texts += 1;
      out.smallest = Math.min(out.smallest, parseFloat(t.getAttribute("font-size")) * scale);
    });
  });)");
    ASSERT_TRUE(at.count("texts")) << "nothing measured at " << width;
    EXPECT_GT(at["texts"], 10) << "charts with text at " << width;
    EXPECT_GE(at["smallest"], 10.95) << "the smallest chart text at " << width << " px";
  }
}

// A long table scrolled inside its frame keeps its header row at the frame's top and its name
// column at the frame's left (the kernels table of the shared A100 trace: the example's has 12 rows,
// too few to scroll).
TEST(Browser, ALongTableKeepsItsHeaderAndNameColumnInView) {
  REQUIRE_CHROMIUM();
  if (shared_traces_dir().empty()) GTEST_SKIP() << "../shared/traces not found (needs a table of 40+ rows)";
  std::string page = page_of("a100_80g_5steps_rank0.json.gz", "--html-rows 500");
  std::map<std::string, double> at = measure(page, 1400, 900, R"(
  var details = document.getElementById("table-0-kernels_by_op");
  if (details && details.tagName === "DETAILS") details.open = true;
  var table = details.tagName === "TABLE" ? details : details.querySelector("table");
  var frame = table.closest(".table-wrap");
  out.rows = table.tBodies[0].rows.length;
  frame.scrollTop = frame.scrollHeight;
  frame.scrollLeft = frame.scrollWidth;
  out.scrolled_down = frame.scrollTop;
  out.scrolled_right = frame.scrollLeft;
  var top = frame.getBoundingClientRect().top + frame.clientTop;
  var left = frame.getBoundingClientRect().left + frame.clientLeft + parseFloat(getComputedStyle(frame).paddingLeft);
  out.header_offset = table.tHead.rows[0].cells[1].getBoundingClientRect().top - top;
  var last = table.tBodies[0].rows[table.tBodies[0].rows.length - 1];
  out.name_offset = last.cells[0].getBoundingClientRect().left - left;
  out.frame_height = frame.getBoundingClientRect().height;)");
  ASSERT_TRUE(at.count("rows")) << "nothing measured";
  EXPECT_GT(at["rows"], 40) << "a long table";
  EXPECT_GT(at["scrolled_down"], 500) << "the frame scrolls, not the page";
  EXPECT_LE(at["frame_height"], 900 * 0.8 + 1);
  EXPECT_NEAR(at["header_offset"], 0, 2) << "the header row stays at the frame's top";
  EXPECT_GT(at["scrolled_right"], 0) << "the table is wider than its frame";
  if (at["scrolled_right"] > 0) {
    EXPECT_NEAR(at["name_offset"], 0, 2) << "the name column stays at the frame's left";
  }
}

// Sorting a table the page shows cut to its first rows orders the whole table. Three ops, the ops
// table cut to 2 rows (the most GPU time first: aten::big's 500 us kernel, aten::mid's 300 us):
// by calls, largest first, aten::many (6 calls of a 10 us kernel, not shown before) comes first,
// with its cells completed as the shown rows are (a number cell right-aligned, its long name cut
// with the whole in its tooltip, from the page's texts kept aside); smallest first,
// aten::big and aten::mid (1 call each, in table order).
TEST(Browser, SortingACutTableOrdersTheWholeTable) {
  REQUIRE_CHROMIUM();
  TraceBuilder t;
  t.step(1, 0, 5000);
  t.op("aten::big", 10, 600, 1).launch("big_kernel", 20, 30, 500, 1);
  t.op("aten::mid", 1000, 400, 2).launch("mid_kernel", 1010, 1020, 300, 2);
  const std::string many = "aten::many_" + std::string(100, 'x');  // cut in the page, whole in its tooltip
  for (int i = 0; i < 6; ++i)
    t.op(many, 2000 + 100.0 * i, 50, 10 + i)
        .launch("small_kernel", 2010 + 100.0 * i, 2020 + 100.0 * i, 10, 10 + i);
  std::string trace = t.write(temp_dir() + "/three.json");
  std::string page = temp_dir() + "/report.html";
  run_perfgate("analyze " + trace + " -q --html-rows 2 --html " + page);
  std::map<std::string, std::string> texts;
  std::map<std::string, double> at = measure(page, 1400, 900, R"(
  var table = document.getElementById("table-0-ops");
  if (table.tagName === "DETAILS") table = table.querySelector("table");
  var heads = table.tHead.rows[0].cells, calls = -1;
  for (var i = 0; i < heads.length; ++i) if (heads[i].firstChild.textContent.trim() === "Calls") calls = i;
  out.shown_first = table.tBodies[0].rows[0].cells[0].textContent;
  heads[calls].click();
  var rows = table.tBodies[0].rows;
  out.rows = rows.length;
  out.first = rows[0].cells[0].textContent;
  out.first_title = rows[0].cells[0].title;
  out.first_calls = parseFloat(rows[0].cells[calls].textContent);
  out.first_class = rows[0].cells[calls].className;
  out.order = table.querySelector("caption .order").textContent;
  heads[calls].click();
  out.ascending = table.tBodies[0].rows[0].cells[0].textContent + ", " + table.tBodies[0].rows[1].cells[0].textContent;)",
                                             "", &texts);
  ASSERT_TRUE(at.count("rows")) << "nothing measured";
  EXPECT_EQ(texts["shown_first"], "aten::big");
  EXPECT_EQ(at["rows"], 2);
  EXPECT_TRUE(texts["first"].starts_with("aten::many_xxx") && texts["first"].find("…") != std::string::npos)
      << texts["first"];
  EXPECT_EQ(texts["first_title"], many);
  EXPECT_EQ(at["first_calls"], 6);
  EXPECT_EQ(texts["first_class"], "n");
  EXPECT_EQ(texts["order"], ", by Calls, descending");
  EXPECT_EQ(texts["ascending"], "aten::big, aten::mid");
}

// The trend page of 30 runs with a step in the step time (it has no script at all).
const std::string& trend_page() {
  static const std::string page = [] {
    TrendSettings settings;
    settings.source = "history.db";
    TrendReport trend = build_trend(planted_history(1, true), default_gated_metrics(), settings);
    return write_text(temp_dir() + "/trend.html", render_trend_html(trend));
  }();
  return page;
}

TEST(Browser, TrendPageMakesNoRequestAndReadsUnderJenkinsContentSecurityPolicy) {
  REQUIRE_CHROMIUM();
  std::string log = temp_dir() + "/trend-net.json";
  CommandResult open = browse(trend_page(), "--dump-dom --log-net-log=" + log);
  ASSERT_EQ(open.exit_code, 0);
  EXPECT_EQ(page_requests(log), 0u);
  std::string page = read_text(trend_page());
  page.replace(
      page.find("<head>") + 6, 0,
      R"(<meta http-equiv="Content-Security-Policy" content="sandbox allow-same-origin; default-src 'none'; img-src 'self'; style-src 'self';">)");
  std::string locked = write_text(temp_dir() + "/trend-locked.html", page);
  CommandResult r = browse(locked, "--dump-dom");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* content : {"1 change point in 6 metrics over 30 runs", "steps.median_us", "<polyline",
                              "regression", "No change point in 30 runs."})
    EXPECT_NE(r.out.find(content), std::string::npos) << content;
  std::string shot = temp_dir() + "/trend.png";
  EXPECT_EQ(browse(locked, "--window-size=1280,2400 --screenshot=" + shot).exit_code, 0);
  EXPECT_GT(fs::file_size(shot), 20'000u);
}

}  // namespace
}  // namespace perfgate::testing
