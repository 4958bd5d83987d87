// Issue 78: each worker's analysis asks its run whether the worker may still be detailed before it
// makes the tables a worker that is not detailed lets go. The report is the one made when every
// worker is analysed whole: the same workers detailed, each with its tables, every number alike.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "analyse/metric_values.h"
#include "engine/analyse_profiles.h"
#include "load/load.h"
#include "render/render.h"
#include "report/build_report.h"
#include "report_model/table_limits.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

// 14 ranks, in position order rank-0, rank-1, rank-10 ... rank-13, rank-2 ... rank-9: the last,
// rank-9, is the slowest; rank-11 and rank-8 tie as the fastest (rank-8, later, is the fastest);
// most tie at 1000 us.
double paced(int rank) {
  static constexpr double kStepUs[] = {1000, 1500, 1000, 700,  1000, 1000, 1800,
                                       1000, 600,  2500, 1000, 600,  1000, 1000};
  return kStepUs[rank];
}

std::string json_of(RunAnalysis analysis, const AnalysisOptions& options) {
  ReportModel report = build_report({}, std::move(analysis), {}, options);
  std::string out;
  write_json(report, [&out](std::string_view text) { out += text; });
  return out;
}

// The run as it was analysed before workers asked: each analysed whole, then added.
RunAnalysis analysed_whole(const LoadedRun& run, const AnalysisOptions& options) {
  AnalysisOptions limited = options;
  limited.table_rows = max_table_rows();
  WorkerAnalyser analyse(default_classification(), limited);
  RunCombiner combiner(options.detailed_workers);
  for (std::size_t i = 0; i < run.workers.size(); ++i) combiner.add({i, 0}, analyse(run.workers[i]));
  return combiner.finish(run.missing_ranks);
}

TEST(WorkerDetail, ARunReportsTheSameWhetherItsWorkersAskOrNot) {
  std::string dir = write_paced_ranks(temp_dir() + "/paced14", 14, paced, 3000);
  LoadedRun loaded = load_run({dir}, load_options_for(default_classification()));
  ASSERT_EQ(loaded.workers.size(), 14u);
  for (std::size_t detailed : {0u, 1u, 2u, 3u, 8u}) {
    AnalysisOptions options;
    options.detailed_workers = detailed;
    std::string whole = json_of(analysed_whole(loaded, options), options);
    EXPECT_EQ(json_of(analyse_run(loaded, default_classification(), options), options), whole)
        << "--detailed-workers " << detailed;
    for (unsigned threads : {1u, 2u}) {
      LoadOptions load = load_options_for(default_classification());
      load.max_threads = threads;
      LoadedAnalysis streamed = load_and_analyse({dir}, load, default_classification(), options);
      EXPECT_EQ(json_of(std::move(streamed.analysis), options), whole)
          << "--detailed-workers " << detailed << " --threads " << threads;
    }
  }
}

// The pace a worker asks with is the one its run chooses by later (steps.mean_us, else the window):
// over its steps, over its GPUs' steps under a clock offset, over its window without steps.
TEST(WorkerDetail, ThePaceAskedWithIsTheMeanStepTheRunChoosesBy) {
  WorkerAnalysis w;
  for (TimeNs start : {0, 1'000'333, 2'000'999}) {
    Step s;
    s.start = start;
    s.end = start + 1'000'001 + start / 7;
    w.window.steps.push_back(w.steps.steps.size());
    w.steps.steps.push_back(s);
  }
  w.window.end = 3'500'000;
  double host = worker_pace_us(w);
  EXPECT_EQ(host, *worker_metrics(w).get(Metric::StepsMeanUs));
  w.gpu_step_times = {999'999, 1'000'003, 1'234'567};
  w.gpu_steps_span = 3'300'000;
  EXPECT_EQ(worker_pace_us(w), *worker_metrics(w).get(Metric::StepsMeanUs));
  EXPECT_NE(worker_pace_us(w), host);
  w.window.steps.clear();
  EXPECT_FALSE(worker_metrics(w).get(Metric::StepsMeanUs));
  EXPECT_EQ(worker_pace_us(w), 3500.0);
}

}  // namespace
}  // namespace perfgate::testing
