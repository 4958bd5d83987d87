// Runs of Neuron profiles with others (issue 54, left by issue 39): a skipped profile_rank_<i> is
// counted in ranks.*, and a run that mixes Neuron profiles with a GPU trace keeps each family's
// numbers apart.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/analyse_profiles.h"
#include "neuron/real_structure.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/svg_text.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

// profile_rank_0 read, profile_rank_1 skipped (no profile): 1 of the 2 expected ranks present.
TEST(NeuronRun, ASkippedRankIsCountedInTheRankMetrics) {
  std::string dir = temp_dir();
  write_text(dir + "/profile_rank_0.json", real_structure_json());
  write_text(dir + "/profile_rank_1.json", R"({"semaphore_update": [], "terminology": {}})");
  ReportModel r = report_of_files({dir}, default_book());
  EXPECT_DOUBLE_EQ(*r.metric(Metric::RanksPresent), 1.0);
  EXPECT_DOUBLE_EQ(*r.metric(Metric::RanksExpected), 2.0);  // ranks 0 to 1
  // The command line's path (load_and_analyse) says the same in its JSON report.
  std::string json = dir + "/../report-54.json";
  CommandResult run = run_perfgate("analyze '" + dir + "' -q --json '" + json + "'");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  std::ifstream in(json);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"ranks.expected\": 2"), std::string::npos) << text.substr(0, 400);
}

ReportModel report_of_folder(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string dir = temp_dir();
  for (const auto& [name, text] : files) write_text(dir + "/" + name, text);
  return report_of_files({dir}, default_book());
}

// A GPU trace of 8 healthy steps and a Neuron profile: the run's steps, GPU and breakdown are the
// GPU trace's alone, its neuron.* the profile's; each family's workers on their own lines.
TEST(NeuronRun, AMixedRunKeepsEachFamilyApart) {
  std::string gpu = training_trace(TrainingRun{});
  ReportModel alone = report_of_folder({{"gpu.pt.trace.json", gpu}});
  ReportModel mixed = report_of_folder({{"gpu.pt.trace.json", gpu}, {"neuron.json", real_structure_json()}});
  ASSERT_EQ(mixed.workers.size(), 2u);
  EXPECT_DOUBLE_EQ(*mixed.metric(Metric::WindowStepsInWindow), 8.0);  // not 0: the profile has no steps
  for (Metric m : {Metric::StepsMeanUs, Metric::GpuUtilizationPct, Metric::BreakdownKernelPct,
                   Metric::BreakdownKernelUs, Metric::BreakdownRuntimeUs}) {
    ASSERT_TRUE(alone.metric(m).has_value()) << metric_name(m);
    ASSERT_TRUE(mixed.metric(m).has_value()) << metric_name(m);
    EXPECT_DOUBLE_EQ(*mixed.metric(m), *alone.metric(m)) << metric_name(m);
  }
  EXPECT_DOUBLE_EQ(*mixed.metric(Metric::NeuronTotalTimeUs), 1870.0);
  std::string out = render_terminal(mixed);
  EXPECT_NE(out.find("Worker       gpu: 8 steps"), std::string::npos) << out;
  EXPECT_EQ(out.find("neuron: 0 steps"), std::string::npos) << out;       // not among the GPU workers
  EXPECT_EQ(out.find("Worker       gpu: \n"), std::string::npos) << out;  // nor among the Neuron's
  EXPECT_NE(out.find("Engines      neuron: tensor"), std::string::npos) << out;
  std::string page = render_html(mixed).page;
  EXPECT_NE(page.find("<section id=\"dashboard\""), std::string::npos);
  EXPECT_NE(page.find("<section id=\"neuron\""), std::string::npos);
  // The dashboard's Ranks chart has the GPU worker's bar and no empty one for the Neuron profile.
  std::size_t ranks = page.find("<title>Ranks</title>");
  ASSERT_NE(ranks, std::string::npos);
  std::string chart = outer_svg(page, ranks);
  EXPECT_NE(chart.find(">gpu<"), std::string::npos) << chart;
  EXPECT_EQ(chart.find(">neuron<"), std::string::npos) << chart;
}

}  // namespace
}  // namespace perfgate::testing
