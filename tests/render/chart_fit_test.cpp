// Issue 93 item 5: every chart of every shared input's page, the trend page's and an 8-rank run's
// among them, laid out for the width it gets. Measured in headless Chromium at 320, 390, 480, 768,
// 1280 and 2560 px: no chart text under 11 CSS px, no two texts of a chart overlapping, no chart
// past its card. One browser start measures a few pages at every
// width (frames of each width), so that the whole check costs a few browser starts, not one per
// page and width. Skipped when Chromium is not installed (ci/setup.sh --tests installs it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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

namespace fs = std::filesystem;

const std::vector<int> kWidths = {320, 390, 480, 768, 1280, 2560};

struct Page {
  std::string name, path;
};

std::string report_of(const std::string& inputs, const std::string& options = "") {
  std::string page = temp_dir() + "/report.html";
  CommandResult r = run_perfgate(inputs + " -q --fail-on never " + options + " --html " + page);
  EXPECT_TRUE(fs::exists(page)) << inputs << ": " << r.out;
  return page;
}

// Every chart's smallest text (font size times the chart's scale, in CSS px), the pairs of texts of
// one chart whose boxes overlap (the first one named) and how far a chart reaches past its card's
// content box. The quiet findings are opened first, so that their charts are measured too.
constexpr const char* kChartFit = R"JS(
  document.querySelectorAll("details.quiet").forEach(function (d) { d.open = true; });
  if (window.perfgateLayoutCharts) window.perfgateLayoutCharts();
  out.charts = 0; out.smallest = 1000; out.small = ""; out.overlaps = 0; out.overlap = "";
  out.past_card = -1000; out.widest = "";
  document.querySelectorAll("main svg:not(.sw)").forEach(function (svg) {
    if (svg.parentElement.closest("svg")) return;  // a chart's plot area: measured with its chart
    var b = svg.getBoundingClientRect();
    if (b.width === 0) return;  // the other layout of a chart drawn two ways
    out.charts += 1;
    var name = svg.getAttribute("aria-label") || svg.parentElement.className;
    var card = svg.closest(".card, figure, .finding") || svg.parentElement, s = getComputedStyle(card);
    var cb = card.getBoundingClientRect();
    var past = Math.max(b.right - (cb.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight)),
                        cb.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft) - b.left);
    if (past > out.past_card) { out.past_card = past; out.widest = name; }
    var boxes = [];
    svg.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (!(r.width > 0) || !t.textContent.trim()) return;
      var m = t.getScreenCTM(), px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
      if (px < out.smallest) { out.smallest = px; out.small = name + ": \"" + t.textContent + "\""; }
      boxes.push({ r: r, t: t.textContent });
    });
    for (var i = 0; i < boxes.length; ++i)
      for (var j = i + 1; j < boxes.length; ++j) {
        var p = boxes[i].r, q = boxes[j].r;
        if (Math.min(p.right, q.right) - Math.max(p.left, q.left) > 0.5 &&
            Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 0.5) {
          out.overlaps += 1;
          if (!out.overlap) out.overlap = name + ": \"" + boxes[i].t + "\" and \"" + boxes[j].t + "\"";
        }
      }
  });)JS";

// Measures the pages a few at a time (one browser start each) and checks each at every width.
void expect_charts_fit(const std::vector<Page>& pages) {
  constexpr std::size_t kPagesPerBrowser = 4;
  for (std::size_t first = 0; first < pages.size(); first += kPagesPerBrowser) {
    std::vector<std::string> paths;
    for (std::size_t p = first; p < std::min(pages.size(), first + kPagesPerBrowser); ++p)
      paths.push_back(pages[p].path);
    auto results = measure_widths(paths, kWidths, 900, kChartFit);
    for (std::size_t p = 0; p < paths.size(); ++p)
      for (std::size_t w = 0; w < kWidths.size(); ++w) {
        const std::string& name = pages[first + p].name;
        auto [at, texts] = results[p][w];
        int width = kWidths[w];
        ASSERT_TRUE(at.count("charts")) << "nothing measured: " << name << " at " << width;
        EXPECT_GE(at["charts"], 1) << name << " at " << width;
        EXPECT_GE(at["smallest"], 11) << name << " at " << width << " px: the smallest chart text is "
                                      << at["smallest"] << " px, " << texts["small"];
        EXPECT_EQ(at["overlaps"], 0) << name << " at " << width << " px: " << texts["overlap"];
        EXPECT_LE(at["past_card"], 0.5) << name << " at " << width << " px: \"" << texts["widest"]
                                        << "\" reaches past its card by " << at["past_card"] << " px";
      }
  }
}

// The pages of the files in a folder of the shared set, by name.
std::vector<Page> pages_of(const std::string& folder, const std::vector<std::string>& endings) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder))
    for (const std::string& ending : endings)
      if (entry.path().string().ends_with(ending)) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  std::vector<Page> pages;
  for (const std::string& f : files) pages.push_back({f, report_of("analyze '" + folder + "/" + f + "'")});
  return pages;
}

TEST(ChartFit, EverySharedTrace) {
  REQUIRE_CHROMIUM();
  std::string shared = shared_traces_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared/traces is absent";
  std::vector<Page> pages = pages_of(shared, {".json.gz"});
  for (Page& p : pages_of(shared + "/nsys", {".sqlite"})) pages.push_back(std::move(p));
  pages.push_back(
      {"distributed_128ranks_sampled", report_of("analyze '" + shared + "/distributed_128ranks_sampled'")});
  expect_charts_fit(pages);
}

TEST(ChartFit, EverySharedReference) {
  REQUIRE_CHROMIUM();
  std::vector<Page> pages;
  for (const char* file :
       {"serving_graphs/sglang_decode/sglang_Qwen3-8B_decode.json.gz",
        "serving_graphs/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz",
        "serving_graphs/vllm_decode_full/graph_execution.json.gz", "xplane/mi300_jax_conv_legacy.xplane.pb",
        "rocprofv3/mi350x_908_results.json.gz", "memory_snapshots/magma27_memory_snapshot.pickle",
        "nsys_2026/h100_2gpu_1s.sqlite", "tpu/tpu_v6e_inference_xprof.xplane.pb",
        "hta_critical_path/simple_add.json.gz", "hta_critical_path/cuda_event_sync_multi_stream.json.gz"}) {
    std::string path = shared_reference(file);
    if (!path.empty()) pages.push_back({file, report_of("analyze '" + path + "'")});
  }
  if (pages.empty()) GTEST_SKIP() << "../shared/references is absent";
  expect_charts_fit(pages);
}

// A run of 8 ranks with long worker names (the issue's Ranks chart drew them over each other): the
// 128-rank sample's two ranks, four times each.
std::string eight_rank_run() {
  std::string folder = temp_dir() + "/run";
  fs::create_directories(folder);
  for (int k = 0; k < 8; ++k)
    fs::create_symlink(shared_trace(fmt::format("distributed_128ranks_sampled/rank-{}.json.gz", k % 2)),
                       fmt::format("{}/node3_worker{}_step_12.1694012345.pt.trace.json.gz", folder, k));
  return folder;
}

TEST(ChartFit, TheExampleTheTrendPageAndComparedRuns) {
  REQUIRE_CHROMIUM();
  std::vector<Page> pages = {{"example", report_of("analyze '" + std::string(PERFGATE_SOURCE_DIR) +
                                                   "/examples/small_training.pt.trace.json.gz'")}};
  std::vector<HistoryRun> runs = planted_history(1, true);
  TrendSettings settings;
  settings.source = "history.db";
  pages.push_back(
      {"trend", write_text(temp_dir() + "/trend.html",
                           render_trend_html(build_trend(runs, default_gated_metrics(), settings)))});
  if (!shared_traces_dir().empty()) {
    pages.push_back({"8 ranks", report_of("analyze '" + eight_rank_run() + "'")});
    std::string resnet = shared_traces_dir() + "/resnet50_v100_workers";
    pages.push_back(
        {"ResNet-50 against its baseline", report_of("analyze '" + resnet + "4.pt.trace.json.gz'",
                                                     "--baseline '" + resnet + "0.pt.trace.json.gz'")});
    std::string nsys = shared_traces_dir() + "/nsys/h100x2_fsdp_training_";
    pages.push_back({"FSDP after against before", report_of("analyze '" + nsys + "after.sqlite'",
                                                            "--baseline '" + nsys + "before.sqlite'")});
  }
  expect_charts_fit(pages);
}

// Issue 93 item 8: the script that makes docs/screenshots/ runs (on the example alone here, the
// shared pages cost more) and writes PNG pictures of the widths it says, and the docs show every
// picture of docs/screenshots/.
TEST(ChartFit, ScreenshotScriptRuns) {
  REQUIRE_CHROMIUM();
  std::string out = temp_dir(), log = temp_dir() + "/log.txt";
  int status =
      std::system(fmt::format("'{}/ci/screenshots.sh' --out '{}' --perfgate '{}' --only report >'{}' 2>&1",
                              PERFGATE_SOURCE_DIR, out, PERFGATE_BINARY, log)
                      .c_str());
  ASSERT_EQ(status, 0) << read_text(log);
  for (auto [name, width] : {std::pair{"report-desktop-light.png", 1280}, {"report-phone-light.png", 390}}) {
    std::string png = read_text(out + "/" + name);
    ASSERT_GT(png.size(), 24u) << name;
    EXPECT_EQ(png.substr(1, 3), "PNG") << name;
    auto byte = [&](std::size_t i) { return static_cast<unsigned char>(png[i]); };
    EXPECT_EQ(byte(16) << 24 | byte(17) << 16 | byte(18) << 8 | byte(19), width) << name << "'s width";
  }
  std::string docs = read_text(std::string(PERFGATE_SOURCE_DIR) + "/README.md") +
                     read_text(std::string(PERFGATE_SOURCE_DIR) + "/docs/reports.md");
  for (const auto& entry : fs::directory_iterator(std::string(PERFGATE_SOURCE_DIR) + "/docs/screenshots"))
    EXPECT_NE(docs.find("screenshots/" + entry.path().filename().string()), std::string::npos)
        << entry.path().filename() << " is shown nowhere in README.md or docs/reports.md";
}

}  // namespace
}  // namespace perfgate::testing
