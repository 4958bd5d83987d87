// Every output from one run: written together, the same bytes twice, each atomically and
// independently of the others.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "support/helpers.h"
#include "support/svg_text.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const std::string kExample = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";

std::string all_outputs(const std::string& dir) {
  fs::create_directories(dir + "/gitlab");
  return fmt::format(
      " --json {0}/r.json --html {0}/r.html --md {0}/r.md --pr-comment {0}/pr.md --xlsx {0}/r.xlsx "
      "--junit {0}/junit.xml --gitlab {0}/gitlab",
      dir);
}

const char* kFiles[] = {"r.json",
                        "r.html",
                        "r.md",
                        "pr.md",
                        "r.xlsx",
                        "junit.xml",
                        "gitlab/gl-code-quality-report.json",
                        "gitlab/metrics.txt"};

// The outputs are written side by side (--threads 4) or one after another (--threads 1): the same
// bytes.
TEST(Outputs, EveryOutputAtOnceAndTheSameBytesTwice) {
  std::string a = temp_dir(), b = temp_dir();
  ASSERT_EQ(run_perfgate("analyze " + kExample + " -q --threads 4" + all_outputs(a)).exit_code, 0);
  ASSERT_EQ(run_perfgate("analyze " + kExample + " -q --threads 1" + all_outputs(b)).exit_code, 0);
  for (const char* f : kFiles) {
    std::string first = read_text(a + "/" + f);
    EXPECT_FALSE(first.empty()) << f;
    EXPECT_EQ(first, read_text(b + "/" + f)) << f << " differs between two runs";
  }
  for (const auto& e : fs::directory_iterator(a))
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << "a temporary file was left: " << e.path();
}

// perfgate's executable exports minizip's entry (CMakeLists.txt), so libxlsxwriter's parts are
// deflated at level 1 (issue 96): the first part's local header (APPNOTE.TXT 4.3.7: "PK\3\4", the
// flags at offset 6, the method at 8) says deflate with both level bits set. At libxlsxwriter's own
// level 6 neither is.
TEST(Outputs, TheWorkbookIsDeflatedAtTheFastestLevel) {
  std::string dir = temp_dir();
  ASSERT_EQ(run_perfgate("analyze " + kExample + " -q --xlsx " + dir + "/r.xlsx").exit_code, 0);
  std::string zip = read_text(dir + "/r.xlsx");
  ASSERT_GT(zip.size(), 30u);
  ASSERT_EQ(zip.substr(0, 4), std::string("PK\3\4", 4));
  auto u16 = [&](std::size_t at) {
    return unsigned(static_cast<unsigned char>(zip[at])) | unsigned(static_cast<unsigned char>(zip[at + 1]))
                                                               << 8;
  };
  EXPECT_EQ(u16(8), 8u) << "deflated";
  EXPECT_EQ(u16(6) & 6u, 6u) << "at level 1";
}

// A run writing no JSON, HTML or XLSX builds no step timeline (AnalysisOptions::step_timeline): its
// other outputs are the bytes of a run that writes every report, and a JSON beside them still has
// the timeline and the path on it.
TEST(Outputs, OutputsWithoutTheTimelineAreTheSameBytes) {
  std::string all = temp_dir(), few = temp_dir();
  fs::create_directories(few + "/gitlab");
  ASSERT_EQ(run_perfgate("analyze " + kExample + " -q" + all_outputs(all)).exit_code, 0);
  ASSERT_EQ(
      run_perfgate(fmt::format("analyze {0} -q --md {1}/r.md --pr-comment {1}/pr.md --junit {1}/junit.xml "
                               "--gitlab {1}/gitlab",
                               kExample, few))
          .exit_code,
      0);
  for (const char* f :
       {"r.md", "pr.md", "junit.xml", "gitlab/gl-code-quality-report.json", "gitlab/metrics.txt"})
    EXPECT_EQ(read_text(few + "/" + f), read_text(all + "/" + f)) << f;
  auto report = boost::json::parse(read_text(all + "/r.json")).as_object();
  const auto& tables = report.at("workers").as_array().at(0).as_object().at("tables").as_object();
  EXPECT_FALSE(tables.at("timeline").as_object().at("rows").as_array().empty());
  EXPECT_FALSE(tables.at("critical_path_timeline").as_object().at("rows").as_array().empty());
}

// GitLab shows Code Quality findings on a file of the repository: never the absolute trace path.
TEST(Outputs, GitlabFindingsPointAtARepositoryPath) {
  auto location = [](const std::string& options) {
    std::string dir = temp_dir();
    CommandResult r = run_perfgate("analyze " + kExample + " -q --rules " +
                                   write_text(dir + "/fire.yaml", "rules:\n  - id: gpu.idle\n    warn: 0\n") +
                                   " --gitlab " + dir + options);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    boost::json::value quality = boost::json::parse(read_text(dir + "/gl-code-quality-report.json"));
    EXPECT_FALSE(quality.as_array().empty());
    return quality.as_array().empty()
               ? std::string()
               : std::string(quality.as_array().front().at("location").at("path").as_string());
  };
  // The default: the trace relative to the current folder, naming the same file.
  std::string path = location("");
  EXPECT_FALSE(path.starts_with("/")) << path;
  EXPECT_TRUE(fs::equivalent(fs::current_path() / path, kExample)) << path;
  EXPECT_EQ(location(" --label script=train/resnet.py"), "train/resnet.py");
  EXPECT_EQ(location(" --label config=conf/run.yaml"), "conf/run.yaml");
  EXPECT_EQ(location(" --label script=train.py --gitlab-path models/net.py"), "models/net.py");
}

// A run of 128 ranks: the page carries the tables it shows and a summary for tools, not every
// worker's data (it was 6 MB at 32 workers), and lists the ranks in the order of their numbers.
TEST(Outputs, TheHtmlPageOfA128RankRunStaysSmall) {
  std::string dir = temp_dir();
  fs::create_directories(dir + "/run");
  for (int rank = 0; rank < 128; ++rank) {
    TraceBuilder t;
    t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
    for (int step = 0; step < 4; ++step) {
      double s = 1000.0 * step;
      t.step(step + 1, s, rank == 77 ? 950 : 900);  // rank-77 is the slowest
      for (int op = 0; op < 20; ++op)
        t.op(fmt::format("aten::op_{}", op), s + 10 + 40 * op, 30, 1 + op + 100 * step)
            .runtime("cudaLaunchKernel", s + 12 + 40 * op, 5, 1 + op + 100 * step, 1 + op + 100 * step)
            .kernel(fmt::format("kernel_{}", op), s + 20 + 40 * op, 25 + rank % 7, 1 + op + 100 * step);
    }
    t.write(fmt::format("{}/run/rank-{}.json", dir, rank));
  }
  CommandResult r = run_perfgate("analyze " + dir + "/run -q --html " + dir + "/r.html");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string page = read_text(dir + "/r.html");
  EXPECT_LT(page.size(), 2'000'000u);
  std::size_t data = page.find("id=\"perfgate-data\">");
  ASSERT_NE(data, std::string::npos);
  std::string json = page.substr(data + 19, page.find("</script>", data) - data - 19);
  EXPECT_LT(json.size(), 128u * 4'000u) << "a few KB a worker";
  EXPECT_EQ(json.find("\"kernels_by_op\""), std::string::npos) << "no worker tables in the data";
  EXPECT_NE(json.find("\"detailed\": false"), std::string::npos) << "which workers the report keeps whole";
  EXPECT_NE(json.find("\"detailed_as\": \"first\""), std::string::npos);
  // The page's data lists the first 50 workers, as its tables list their first 50 rows.
  EXPECT_EQ(json.find("\"rank-50\""), std::string::npos);
  // The ranks table lists 50 of the 128 ranks, slowest first: the 24 slowest (rank-77, then the 900 us
  // ranks in rank order: rank-0 to rank-22), the median and the 25 fastest.
  std::size_t ranks = page.find("id=\"table-ranks\"");
  ASSERT_NE(ranks, std::string::npos);
  std::size_t body = page.find("<tbody", ranks);
  std::size_t r77 = page.find(">rank-77<", body), r0 = page.find(">rank-0<", body),
              r9 = page.find(">rank-9<", body);
  ASSERT_NE(r77, std::string::npos);
  EXPECT_LT(r77, r0);
  EXPECT_LT(r0, r9);
  EXPECT_TRUE(
      contains(page, "The page lists 50 of the 128 ranks: the 24 slowest, the median and the 25 fastest"));
  // Beyond eight workers the page shows the tables of the first, the slowest and the fastest of the
  // workers the report keeps whole (ties go by position, so the fastest of the 900 us ranks is the
  // last), says whose they are, and where the others kept whole (the next slowest) are.
  EXPECT_TRUE(contains(page, "<h3>Worker rank-77 (the slowest of 128 workers)</h3>"));
  EXPECT_TRUE(contains(page, "<h3>Worker rank-0 (the first of 128 workers)</h3>"));
  EXPECT_FALSE(contains(page, "<h3>Worker rank-1 ("));
  EXPECT_TRUE(contains(page, "<h3>Worker rank-127 (the fastest of 128 workers)</h3>"));
  EXPECT_FALSE(contains(page, "<h3>Worker rank-7 ("));
  EXPECT_TRUE(contains(page,
                       "The tables of 5 more workers the report keeps whole (--detailed-workers: the next "
                       "slowest) are in the JSON report and the XLSX workbook."));
  EXPECT_TRUE(contains(page, "The other 120 workers are in the Ranks and Collectives by rank tables"));
  // Beyond 16 ranks the chart shows the fastest (of the 900 us ranks, the first in rank order), the
  // median (the 65th of the ranks by mean step, slowest first and ties in rank order: rank-63) and
  // the 8 slowest (rank-77, then rank-0 to rank-6; rank-0 is already there as the fastest), each
  // with its name under its bar and the note on a second line.
  std::size_t chart = page.find("aria-label=\"Ranks\"");
  ASSERT_NE(chart, std::string::npos);
  std::string svg = outer_svg(page, chart);
  // The text element after a rank's name is its note.
  auto labelled = [&](const std::string& rank, const std::string& note) {
    std::size_t name = svg.find(">" + rank + "</text>");
    if (name == std::string::npos) return false;
    std::size_t next_end = svg.find("</text>", name + rank.size() + 8);
    return next_end != std::string::npos &&
           svg.compare(next_end - note.size() - 1, note.size() + 1, ">" + note) == 0;
  };
  EXPECT_TRUE(labelled("rank-0", "fastest")) << svg.substr(0, 3000);
  EXPECT_TRUE(labelled("rank-63", "median"));
  EXPECT_TRUE(labelled("rank-77", "slowest"));
  std::size_t bars = 0;
  for (std::size_t at = svg.find("<g>"); at != std::string::npos; at = svg.find("<g>", at + 1)) ++bars;
  EXPECT_EQ(bars, 9u);
  EXPECT_TRUE(contains(page, "Of 128 ranks: the fastest, the median and the 8 slowest"));
}

// A run's page shows the timeline of its slowest worker, and names it.
TEST(Outputs, TheTimelineOfARunIsItsSlowestWorkers) {
  std::string dir = temp_dir();
  fs::create_directories(dir + "/run");
  for (int rank : {0, 1, 2}) {
    double d = rank == 1 ? 1500 : 1000;  // rank-1 is the slowest
    TraceBuilder t;
    for (int step = 0; step < 3; ++step) {
      t.step(step + 1, step * d, d);
      t.launch("k", step * d + 10, step * d + 20, 100);
    }
    t.write(fmt::format("{}/run/rank-{}.json", dir, rank));
  }
  ASSERT_EQ(run_perfgate("analyze " + dir + "/run -q --html " + dir + "/r.html").exit_code, 0);
  std::string page = read_text(dir + "/r.html");
  EXPECT_TRUE(contains(page, "Timeline of ProfilerStep#2 on rank-1, the slowest of 3 workers"))
      << page.substr(0, 200);
  // The ranks side by side: a column per rank, the slowest named.
  std::size_t chart = page.find("aria-label=\"Ranks\"");
  ASSERT_NE(chart, std::string::npos);
  std::string svg = outer_svg(page, chart);
  for (const char* rank : {">rank-0<", ">rank-1<", ">rank-2<"}) EXPECT_TRUE(contains(svg, rank)) << rank;
  EXPECT_TRUE(contains(page, "The slowest is rank 1; the spread of the mean steps is 50.0% of the median."));
}

TEST(Outputs, TimestampOnlyWhenAsked) {
  std::string dir = temp_dir();
  ASSERT_EQ(run_perfgate("analyze " + kExample + " -q --html " + dir + "/a.html").exit_code, 0);
  ASSERT_EQ(run_perfgate("analyze " + kExample + " -q --timestamp --html " + dir + "/b.html").exit_code, 0);
  EXPECT_FALSE(contains(read_text(dir + "/a.html"), " UTC"));
  EXPECT_TRUE(contains(read_text(dir + "/b.html"), " UTC"));
}

// Written side by side, the outputs' failures are still printed in the order of the outputs.
TEST(Outputs, OneFailingOutputDoesNotStopTheOthers) {
  std::string dir = temp_dir();
  CommandResult r = run_perfgate(
      "analyze " + kExample + " -q --threads 4 --html /no/such/folder/r.html --json " + dir +
      "/r.json --xlsx /no/such/folder/r.xlsx --md " + dir + "/r.md --junit /no/such/folder/j.xml");
  EXPECT_EQ(r.exit_code, 3);
  std::size_t html = r.out.find("/no/such/folder/r.html: cannot write");
  std::size_t xlsx = r.out.find("/no/such/folder/r.xlsx: cannot write");
  std::size_t junit = r.out.find("/no/such/folder/j.xml: cannot write");
  ASSERT_NE(html, std::string::npos) << r.out;
  ASSERT_NE(xlsx, std::string::npos) << r.out;
  ASSERT_NE(junit, std::string::npos) << r.out;
  EXPECT_LT(html, xlsx) << r.out;
  EXPECT_LT(xlsx, junit) << r.out;
  EXPECT_FALSE(contains(r.out, "[ERROR]")) << "no library message: " << r.out;
  EXPECT_FALSE(read_text(dir + "/r.json").empty());
  EXPECT_FALSE(read_text(dir + "/r.md").empty());
}

TEST(Outputs, ExternalAssetsBesideThePage) {
  std::string dir = temp_dir();
  ASSERT_EQ(
      run_perfgate("analyze " + kExample + " -q --html-assets external --html " + dir + "/r.html").exit_code,
      0);
  EXPECT_TRUE(contains(read_text(dir + "/report.css"), "prefers-color-scheme"));
  EXPECT_TRUE(contains(read_text(dir + "/report.js"), "table.data"));
  EXPECT_TRUE(contains(read_text(dir + "/r.html"), "href=\"report.css\""));
}

TEST(Outputs, GithubAnnotationsAndTheStepSummary) {
  std::string summary = temp_dir() + "/summary.md";
  write_text(summary, "earlier step\n");
  ::setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  CommandResult r = run_perfgate("analyze " + kExample + " -q --github");
  ::unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "::warning title=perfgate dataloader.bottleneck::")) << r.out;
  EXPECT_TRUE(contains(r.out, "::notice title=perfgate verdict::warn")) << r.out;
  std::string text = read_text(summary);
  EXPECT_TRUE(text.starts_with("earlier step\n## ⚠️ perfgate: PASS with warnings")) << text.substr(0, 80);
}

// The outputs for every shared trace, and the size budget of the HTML report.
TEST(Outputs, EverySharedTrace) {
  std::string traces = shared_traces_dir();
  if (traces.empty()) GTEST_SKIP() << "../shared/traces not found";
  for (const auto& e : fs::directory_iterator(traces)) {
    std::string path = e.path().string();
    if (!path.ends_with(".json.gz") && !fs::is_directory(e.path())) continue;
    if (fs::is_directory(e.path()) && e.path().filename() == "nsys") continue;
    SCOPED_TRACE(path);
    std::string dir = temp_dir();
    CommandResult r = run_perfgate("analyze " + path + " -q" + all_outputs(dir));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out;
    for (const char* f : kFiles) EXPECT_GT(fs::file_size(dir + "/" + f), 0u) << f;
    EXPECT_LT(fs::file_size(dir + "/r.html"), 2u * 1024 * 1024) << "the HTML size budget";
    EXPECT_LE(fs::file_size(dir + "/r.md"), 1024u * 1024);
    EXPECT_LE(fs::file_size(dir + "/pr.md"), 60000u);
  }
}

// The CI snippets in ci/ call perfgate with options it has (ci/github-actions.yml calls it through
// action.yml, whose inputs tests/package/action_test.sh checks).
TEST(Outputs, CiSnippetsUseRealOptions) {
  std::string help = run_perfgate("analyze --help").out;
  for (const char* snippet : {"/ci/gitlab-ci.yml"}) {
    std::string text = read_text(std::string(PERFGATE_SOURCE_DIR) + snippet);
    std::size_t checked = 0;
    for (std::size_t at = text.find(" --"); at != std::string::npos; at = text.find(" --", at + 1)) {
      std::size_t end = text.find_first_of(" \n\";", at + 3);
      std::string option = text.substr(at + 1, end - at - 1);
      if (option == "--depth" || option == "--out" || option == "--steps" || option.starts_with("--fail") ||
          option == "--silent" || option == "--show-error" || option == "--location" ||
          option == "--output" || option == "--header" || option == "--upload-file" ||
          option == "--no-install-recommends" || option == "--config" || option == "--profile-dir")
        continue;  // git, the smoke test, the user's training script, curl, apt-get and cpack
      EXPECT_TRUE(contains(help, option)) << snippet << ": " << option;
      ++checked;
    }
    EXPECT_GE(checked, 6u) << snippet;
  }
}

}  // namespace
}  // namespace perfgate::testing
