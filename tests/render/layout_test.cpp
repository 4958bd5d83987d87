// The HTML report's and the trend page's layout measured in headless Chromium: text stays in its
// card at desktop and phone widths, no page scrolls sideways on a 390 px phone, chart text is
// readable and has the contrast WCAG AA asks of text (4.5:1) in the light and dark schemes.
// Skipped when Chromium is not installed (ci/setup.sh --tests installs it).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "history/history_runs.h"
#include "render/browser.h"
#include "render/render.h"
#include "report_model/trend.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const std::string kExample = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";

std::string report_of(const std::string& trace, const std::string& options = "") {
  std::string page = temp_dir() + "/report.html";
  run_perfgate("analyze " + trace + " -q " + options + " --html " + page);
  return page;
}

// The pages the layout tests look at: the example, and where ../shared/traces is present, the
// MI300X trace against itself (its "3.02 TFLOP/s" with a change badge) and ResNet-50 with 4
// DataLoader workers against the one with none (a change badge on every step statistic).
struct Page {
  std::string name, path;
};
const std::vector<Page>& pages() {
  static const std::vector<Page> all = [] {
    std::vector<Page> p = {{"example", report_of(kExample)}};
    std::string shared = shared_traces_dir();
    if (shared.empty()) return p;
    std::string mi300x = shared + "/mi300x_resnet_actckpt_gpu_steps.json.gz";
    p.push_back({"MI300X against itself", report_of(mi300x, "--baseline " + mi300x)});
    p.push_back({"ResNet-50 against its baseline",
                 report_of(shared + "/resnet50_v100_workers4.pt.trace.json.gz",
                           "--baseline " + shared + "/resnet50_v100_workers0.pt.trace.json.gz")});
    return p;
  }();
  return all;
}

// How far any text of the dashboard's cards reaches past its card's content box, in CSS px (<= 0:
// none does), and the text that reaches farthest. Chart text (SVG) is left out: charts scroll in
// their card on narrow screens.
constexpr const char* kCardOverflow = R"(
  out.cards = 0; out.overflow = -1000; out.worst = "";
  document.querySelectorAll("#dashboard .card").forEach(function (card) {
    out.cards += 1;
    var b = card.getBoundingClientRect(), s = getComputedStyle(card);
    var left = b.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft);
    var right = b.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight);
    var walk = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
    for (var n = walk.nextNode(); n; n = walk.nextNode()) {
      if (!n.textContent.trim() || n.parentElement.closest("svg")) continue;
      var range = document.createRange();
      range.selectNodeContents(n);
      Array.prototype.forEach.call(range.getClientRects(), function (r) {
        var over = Math.max(r.right - right, left - r.left);
        if (over > out.overflow) { out.overflow = over; out.worst = n.textContent.trim(); }
      });
    }
  });)";

TEST(Layout, DashboardTextStaysInItsCards) {
  REQUIRE_CHROMIUM();
  for (const Page& page : pages())
    for (int width : {1400, 1000, 700, 390}) {
      std::map<std::string, std::string> texts;
      std::map<std::string, double> at = measure(page.path, width, 900, kCardOverflow, "", &texts);
      ASSERT_TRUE(at.count("cards")) << "nothing measured: " << page.name << " at " << width;
      EXPECT_GE(at["cards"], 4) << page.name;
      EXPECT_LE(at["overflow"], 0.5) << page.name << " at " << width << " px: \"" << texts["worst"]
                                     << "\" reaches past its card by " << at["overflow"] << " px";
    }
}

// The document's width against the frame's, and the element that reaches farthest past it (not
// counting those inside a frame that scrolls, as tables and charts do).
constexpr const char* kPageWidth = R"(
  var view = document.documentElement.clientWidth;
  out.view = view; out.page = document.documentElement.scrollWidth; out.worst = "";
  var farthest = view;
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    for (var a = e.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== "visible") return;
    if (r.width > 0 && r.right > farthest + 0.5) {
      farthest = r.right;
      out.worst = e.tagName + "." + e.getAttribute("class") + ": " + (e.textContent || "").trim().slice(0, 60);
    }
  });)";

TEST(Layout, NoPageScrollsSidewaysOnAPhone) {
  REQUIRE_CHROMIUM();
  for (const Page& page : pages()) {
    std::map<std::string, std::string> texts;
    std::map<std::string, double> at = measure(page.path, 390, 900, kPageWidth, "", &texts);
    ASSERT_TRUE(at.count("view")) << "nothing measured: " << page.name;
    EXPECT_EQ(at["view"], 390) << "the frame is a phone's width";
    EXPECT_LE(at["page"], 390) << page.name << ": the page is " << at["page"]
                               << " px wide; the widest: " << texts["worst"];
  }
}

// The report's charts (every SVG but the legends' swatches): how many; how many pairs of their texts
// overlap (by more than a pixel each way, as drawn), the first such pair; and how far any chart
// reaches past its card's content box, in CSS px (<= 0: none does), the worst one's title.
constexpr const char* kCharts = R"JS(
  out.charts = 0; out.overlaps = 0; out.overlap = ""; out.past_card = -1000; out.widest = "";
  document.querySelectorAll("main svg:not(.sw)").forEach(function (svg) {
    var b = svg.getBoundingClientRect();
    if (b.width === 0) return;  // in a closed section
    out.charts += 1;
    var card = svg.closest(".card, figure, .finding") || svg.parentElement, s = getComputedStyle(card);
    var cb = card.getBoundingClientRect();
    var right = cb.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight);
    var left = cb.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft);
    var past = Math.max(b.right - right, left - b.left);
    var name = svg.getAttribute("aria-label") || svg.parentElement.className;
    if (past > out.past_card) { out.past_card = past; out.widest = name; }
    var boxes = [];
    svg.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width > 0 && t.textContent.trim()) boxes.push({ r: r, t: t.textContent });
    });
    for (var i = 0; i < boxes.length; ++i)
      for (var j = i + 1; j < boxes.length; ++j) {
        var p = boxes[i].r, q = boxes[j].r;
        var w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        var h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 1 && h > 1) {
          out.overlaps += 1;
          if (!out.overlap) out.overlap = name + ": \"" + boxes[i].t + "\" and \"" + boxes[j].t + "\"";
        }
      }
  });)JS";

// The WCAG contrast ratio of every chart text of the timeline section (the window strip's step
// numbers on their boxes, lane names and axis labels on the card) against what lies under its
// middle: the boxes there, blended by their opacity over the card.
constexpr const char* kTimelineContrast = R"JS(
  function rgba(c) { var m = c.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; }
  function luminance(c) {
    var v = c.slice(0, 3).map(function (x) {
      x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  }
  function blend(top, alpha, under) { return [0, 1, 2].map(function (i) { return top[i] * alpha + under[i] * (1 - alpha); }); }
  out.dark = matchMedia("(prefers-color-scheme: dark)").matches ? 1 : 0;
  out.texts = 0; out.lowest = 100; out.lowest_text = "";
  document.querySelectorAll("#timeline svg").forEach(function (svg) {
    var panel = rgba(getComputedStyle(svg.closest(".card")).backgroundColor);
    var rects = svg.querySelectorAll("rect");
    svg.querySelectorAll("text").forEach(function (t) {
      var tb = t.getBoundingClientRect(), x = (tb.left + tb.right) / 2, y = (tb.top + tb.bottom) / 2;
      var under = panel;
      rects.forEach(function (r) {  // in drawing order: the last one is on top
        var rb = r.getBoundingClientRect(), style = getComputedStyle(r);
        if (style.fill === "none" || x < rb.left || x > rb.right || y < rb.top || y > rb.bottom) return;
        var fill = rgba(style.fill);
        under = blend(fill, parseFloat(style.fillOpacity) * fill[3], under);
      });
      var a = luminance(rgba(getComputedStyle(t).fill)), b = luminance(under);
      var ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      out.texts += 1;
      if (ratio < out.lowest) { out.lowest = ratio; out.lowest_text = t.textContent; }
    });
  });)JS";

TEST(Layout, TimelineTextHasContrastInBothSchemes) {
  REQUIRE_CHROMIUM();
  for (const Page& page : pages())
    for (bool dark : {false, true}) {
      std::map<std::string, std::string> texts;
      std::map<std::string, double> at =
          measure(page.path, 1400, 900, kTimelineContrast, dark ? "--force-dark-mode" : "", &texts);
      ASSERT_TRUE(at.count("texts")) << "nothing measured: " << page.name;
      EXPECT_EQ(at["dark"], dark ? 1 : 0) << "the scheme";
      EXPECT_GT(at["texts"], 10) << page.name;
      EXPECT_GE(at["lowest"], 4.5) << page.name << (dark ? ", dark" : ", light") << ": \""
                                   << texts["lowest_text"] << "\" has a contrast of " << at["lowest"] << ":1";
    }
}

// A trend page of 30 runs (the step time 10% slower from the 18th) where one metric is 0 in every
// run: the Tensor Core share of a run without Tensor Cores.
std::string trend_page() {
  std::vector<HistoryRun> runs = planted_history(1, true);
  for (HistoryRun& run : runs) run.data.metrics.set(Metric::TensorCoreKernelTimePct, 0.0);
  TrendSettings settings;
  settings.source = "history.db";
  return write_text(temp_dir() + "/trend.html",
                    render_trend_html(build_trend(runs, default_gated_metrics(), settings)));
}

// On a phone and a desktop the trend page's charts are laid out for their card as the report's are
// (issue 76: they kept their drawn size and scrolled in their card; issue 93: scaled to it, their
// text was 4.5 px on a phone): none reaches past its card or scrolls in it, their text keeps its
// 12 px (the script draws them at the card's width: a viewBox as wide as the chart); the summary
// table fits its frame (no column cut off at its edge) and the page does not scroll sideways.
TEST(Layout, TrendPageFitsAPhone) {
  REQUIRE_CHROMIUM();
  std::string page = trend_page();
  for (int width : {390, 1440}) {
    std::map<std::string, std::string> texts;
    std::map<std::string, double> at = measure(page, width, 900, std::string(kPageWidth) + kCharts + R"(
  out.trend_charts = 0; out.smallest = 1000; out.scrolls = 0;
  document.querySelectorAll("figure.card > svg").forEach(function (svg) {
    out.trend_charts += 1;
    var card = svg.closest("figure");
    out.scrolls = Math.max(out.scrolls, card.scrollWidth - card.clientWidth);
    var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    svg.querySelectorAll("text").forEach(function (t) {
      out.smallest = Math.min(out.smallest, parseFloat(t.getAttribute("font-size")) * scale);
    });
  });
  var wrap = document.querySelector("#summary .table-wrap");
  out.summary_cut = wrap.scrollWidth - wrap.clientWidth;)",
                                               "", &texts);
    ASSERT_TRUE(at.count("trend_charts")) << "nothing measured at " << width;
    EXPECT_EQ(at["trend_charts"], 6);  // one per gated metric (regression.critical-path: six)
    EXPECT_GE(at["smallest"], 11.9) << "the smallest chart text at " << width << " px, in CSS px";
    EXPECT_LE(at["past_card"], 0.5) << "\"" << texts["widest"] << "\" reaches past its card by "
                                    << at["past_card"] << " px at " << width;
    EXPECT_LE(at["scrolls"], 0) << "px a chart scrolls in its card at " << width;
    EXPECT_LE(at["summary_cut"], 0) << "px of the summary table past its frame at " << width;
    EXPECT_LE(at["page"], width) << "the widest: " << texts["worst"];
  }
}

}  // namespace
}  // namespace perfgate::testing
