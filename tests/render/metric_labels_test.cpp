// One label per metric (issue #30): every output names a metric in words by its catalog label, and a
// renderer that names a metric the catalog lacks fails here instead of showing a silent "n/a".
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/metrics.h"
#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string label(Metric metric) {
  return std::string(metric_info(metric).label);
}

TEST(MetricLabels, EveryMetricHasOneLabelOfItsOwn) {
  std::set<std::string_view> labels;
  for (const MetricInfo& m : metric_catalog()) {
    EXPECT_FALSE(m.label.empty()) << m.name;
    EXPECT_TRUE(labels.insert(m.label).second) << m.name << ": the label of another metric too";
    EXPECT_LE(m.label.size(), 40u) << m.name << ": too long for a line of the terminal summary";
  }
  EXPECT_EQ(label(Metric::GpuUtilizationPct), "GPU utilization");
}

// A renderer names a metric by its id, so a misspelt metric does not compile; a name is read only
// where it comes from outside (a rule, a JSON report), and one the catalog lacks resolves to none.
TEST(MetricLabels, LabelsAreTheCatalogsById) {
  MetricValues metrics;
  metrics.set(Metric::GpuUtilizationPct, 50.0);
  EXPECT_EQ(metrics.get(Metric::GpuUtilizationPct), 50.0);
  EXPECT_FALSE(metrics.get(Metric::GpuBusyPct));  // in the catalog, not set: n/a
  EXPECT_EQ(metric_label(Metric::StepsMeanUs), "Mean step");
  EXPECT_EQ(metric_label(Metric::GpuUtilizationPct), label(Metric::GpuUtilizationPct));
  EXPECT_EQ(metric_id("gpu.utilisation_pct"), std::nullopt);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every quoted catalog name ("gpu.utilization_pct") in the sources and the templates, as "file:
// name": the code names metrics by id, and a quoted name would be a look-up by text, turned by a
// typo into a silent "n/a". Names are read from outside only (rules, JSON reports, the history, the
// command line), never written in the code. The catalogs (*.def: the metric catalog's rows, the
// invariants' texts naming what they withhold) are data, declared once, and not looked in.
std::vector<std::string> quoted_metric_names() {
  std::set<std::string, std::less<>> names;
  for (const MetricInfo& m : metric_catalog()) names.insert(std::string(m.name));
  std::regex quoted(R"re("([a-z_][a-z0-9_]*(\.[a-z0-9_]+)+)")re");
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const char* folder : {"src", "templates"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(PERFGATE_SOURCE_DIR) / folder)) {
      if (!entry.is_regular_file()) continue;
      ++files;
      if (entry.path().extension() == ".def") continue;
      std::string text = read_file(entry.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), quoted); it != std::sregex_iterator();
           ++it)
        if (names.contains((*it)[1].str()))
          found.push_back(entry.path().filename().string() + ": " + (*it)[1].str());
    }
  EXPECT_GT(files, 300u);
  return found;
}

TEST(MetricLabels, NoSourceNamesAMetricByItsText) {
  for (const std::string& name : quoted_metric_names())
    ADD_FAILURE() << name << ": name the metric by its id (Metric::...)";
}

// Two steps of 1 ms, each with a 500 us kernel: GPU utilization, busy and idle 50%; the kernel
// part of the step breakdown 500 / 1000 = 50%.
ReportModel half_busy_run() {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  t.step(1, 0, 1000).step(2, 1000, 1000);
  t.launch("k", 10, 100, 500);
  t.launch("k", 1010, 1100, 500);
  return report_of_json(t.json(), default_book());
}

TEST(MetricLabels, TheTerminalNamesMetricsByTheirLabels) {
  TerminalOptions plain;
  plain.color = false;
  std::string s = render_terminal(half_busy_run(), plain);
  // The run's line and the GPU's own line.
  EXPECT_NE(s.find("GPU utilization 50.0%"), s.rfind("GPU utilization 50.0%")) << s;
  EXPECT_TRUE(contains(s, "1 GPU · GPU utilization 50.0% · GPU busy 50.0% · GPU idle 50.0%")) << s;
  EXPECT_TRUE(contains(s, "(Ampere, sm 8.0) · GPU utilization 50.0% · GPU busy 50.0% · 2 kernels")) << s;
  EXPECT_TRUE(contains(s, "Mean step 1.00 ms · Median step 1.00 ms · p90 step 1.00 ms")) << s;
  EXPECT_TRUE(contains(s, "Breakdown    Kernel 50.0%")) << s;
  EXPECT_TRUE(contains(s, "Tensor Core share of kernel time 0.0%")) << s;
  for (Metric metric :
       {Metric::StepsMinUs, Metric::StepsMaxUs, Metric::StepsCvPct, Metric::GpuSmEfficiencyPct,
        Metric::GpuAchievedOccupancyPct, Metric::TensorCoreEligibleKernelTimePct,
        Metric::TensorCoreEfficiencyPct, Metric::ResourcesNonTcKernelsPct, Metric::HostRuntimePct,
        Metric::KernelsShortPct, Metric::GpuIdleHostWaitPct})
    EXPECT_TRUE(contains(s, label(metric) + " ")) << metric_name(metric) << "\n" << s;
}

TEST(MetricLabels, MarkdownNamesMetricsByTheirLabels) {
  std::string md = render_markdown(half_busy_run(), {});
  EXPECT_TRUE(contains(md, "| GPU utilization | 50.0% |")) << md;
  EXPECT_TRUE(contains(md, "| Mean step | 1.00 ms |")) << md;
  EXPECT_TRUE(contains(md, "| Data loader | 0.0% |")) << md;
  EXPECT_TRUE(contains(md, "| Tensor Core share of kernel time | 0.0% |")) << md;
}

TEST(MetricLabels, TheHtmlPageNamesMetricsByTheirLabels) {
  std::string page = render_html(half_busy_run()).page;
  EXPECT_TRUE(contains(page, "<h3>GPU utilization</h3>")) << "the donut's card";
  EXPECT_TRUE(contains(page, "<h3>Tensor Core efficiency</h3>"));
  // A percentage of the summary card says what it is a share of, after the label.
  EXPECT_TRUE(contains(page, "<dt>GPU busy, of the window</dt><dd>50.0%"));
  EXPECT_TRUE(contains(page, "<dt>Synchronising calls</dt>"));
  EXPECT_TRUE(contains(page, "<dt>Tensor Core share of kernel time</dt>"));
  EXPECT_TRUE(contains(page, "<dt>Steps in the window</dt><dd>2</dd>"));
  // A no-break space between the number and its unit: "1.00 ms" never wraps in a narrow card.
  EXPECT_TRUE(contains(page, "<dt>Mean step</dt><dd>1.00\u00a0ms"));
  EXPECT_TRUE(contains(page, "<dt>Step variation (cv)</dt>"));
  // The bars' legends: the parts of the step breakdown and of DLProf's resources.
  EXPECT_TRUE(std::regex_search(page, std::regex("</svg>Kernel 50.0%</li>")));
  EXPECT_TRUE(std::regex_search(page, std::regex("</svg>Other kernels 50.0%</li>")));
  EXPECT_TRUE(std::regex_search(page, std::regex("</svg>Data loader</li>"))) << "the steps' chart";
}

TEST(MetricLabels, TheWorkbooksChartNamesThePartsByTheirLabels) {
  std::string path = temp_dir() + "/r.xlsx";
  write_xlsx(half_busy_run(), path);
  std::string chart = unzip(path, "xl/charts/chart1.xml");
  for (const char* part : {"Kernel", "Memcpy", "Data loader", "CPU exec", "Other"})
    EXPECT_TRUE(contains(chart, fmt::format("<c:tx><c:v>{}</c:v></c:tx>", part))) << part << "\n" << chart;
}

TEST(MetricLabels, TheCatalogCommandShowsEachLabel) {
  CommandResult text = run_perfgate("metrics");
  EXPECT_TRUE(std::regex_search(text.out, std::regex(R"(\ngpu\.utilization_pct +GPU utilization +% )")))
      << text.out;
  CommandResult md = run_perfgate("metrics --format markdown");
  EXPECT_TRUE(contains(md.out, "| `steps.mean_us` | Mean step | us |")) << md.out;
  CommandResult json = run_perfgate("metrics --format json");
  EXPECT_TRUE(contains(json.out, "\"name\": \"steps.mean_us\",\n    \"label\": \"Mean step\"")) << json.out;
}

}  // namespace
}  // namespace perfgate::testing
