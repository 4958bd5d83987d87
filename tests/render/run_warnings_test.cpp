// Issue 29, item 5: what makes a run's inputs other than one capture (a skipped file, workers on
// different GPU models, ranks missing) is said in every output, not only in the terminal's notes.
#include <gtest/gtest.h>

#include <cstdlib>

#include <boost/json/parse.hpp>

#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Two workers on different GPU models, and a JSON file that is not a trace, in one folder.
ReportModel mixed_report(std::string& folder) {
  folder = temp_dir();
  for (const auto& [name, gpu] :
       {std::pair{"rank-0", "NVIDIA A100-SXM4-40GB"}, std::pair{"rank-1", "Tesla V100"}}) {
    TraceBuilder t;
    t.device(0, gpu, 8, 0, 40LL << 30, 108);
    t.step(1, 0, 1000).launch("gemm_kernel", 10, 20, 500);
    t.write(folder + "/" + name + ".json");
  }
  write_text(folder + "/notes.json", R"({"about": "not a trace"})");
  ReportModel report = report_of_files({folder}, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

constexpr const char* kModels =
    "The workers ran on different GPU models: NVIDIA A100-SXM4-40GB (rank-0); Tesla V100 (rank-1). The run's "
    "metrics mix them.";

TEST(RunWarnings, EveryOutputSaysThem) {
  std::string folder;
  ReportModel report = mixed_report(folder);
  std::string skipped =
      "skipped " + folder + "/notes.json: not a Chrome/Kineto trace: no 'traceEvents' array";
  ASSERT_EQ(note_texts(report.run_warnings), (std::vector<std::string>{skipped, kModels}));
  EXPECT_EQ(report.run_warnings[0].id, NoteId::input_skipped);
  EXPECT_EQ(report.run_warnings[1].id, NoteId::run_gpu_models_differ);
  ASSERT_EQ(report.inputs.size(), 2u) << "the skipped file is not an input";

  std::string terminal = render_terminal(report);
  EXPECT_TRUE(contains(terminal, "Warning      " + skipped + "\n")) << terminal;
  EXPECT_TRUE(contains(terminal, std::string("Warning      ") + kModels + "\n")) << terminal;

  boost::json::value json = boost::json::parse(render_json(report));
  const boost::json::array& listed = json.at("run_warnings").as_array();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].as_string(), kModels);

  std::string html = render_html(report).page;
  EXPECT_TRUE(contains(html, "<strong>Warning.</strong> The workers ran on different GPU models")) << "HTML";

  std::string md = render_markdown(report);
  EXPECT_TRUE(
      contains(md, "> ⚠️ The workers ran on different GPU models: NVIDIA A100-SXM4-40GB (rank-0)"))
      << md.substr(0, 800);

  std::string junit = render_junit(report);
  EXPECT_TRUE(contains(junit, "<system-out>skipped " + folder +
                                  "/notes.json: not a Chrome/Kineto trace: no "
                                  "&#39;traceEvents&#39; array\nThe workers ran on different GPU models"))
      << junit;
  EXPECT_TRUE(contains(render_github_annotations(report),
                       "::warning title=perfgate inputs::The workers ran on different GPU models"));
  EXPECT_TRUE(contains(render_gitlab_code_quality(report), "\"check_name\": \"perfgate.inputs\""));

  if (std::system("command -v unzip >/dev/null 2>&1") != 0) GTEST_SKIP() << "unzip not installed";
  std::string xlsx = temp_dir() + "/warnings.xlsx";
  write_xlsx(report, xlsx);
  std::string names = temp_dir() + "/workbook.xml";
  ASSERT_EQ(std::system(("unzip -p '" + xlsx + "' xl/workbook.xml > '" + names + "'").c_str()), 0);
  EXPECT_TRUE(contains(read_text(names),
                       "<sheet name=\"Summary\" sheetId=\"2\" r:id=\"rId2\"/><sheet "
                       "name=\"Warnings\""))
      << read_text(names);
}

TEST(RunWarnings, ARunOfOneCaptureHasNone) {
  ReportModel report = report_of_json(TraceBuilder().step(1, 0, 100).op("a", 1, 2).json(), default_book());
  EXPECT_TRUE(report.run_warnings.empty());
  EXPECT_FALSE(contains(render_terminal(report), "Warning "));
  EXPECT_FALSE(contains(render_markdown(report), "> ⚠️"));
  EXPECT_TRUE(contains(render_json(report), "\"run_warnings\": []"));
}

}  // namespace
}  // namespace perfgate::testing
