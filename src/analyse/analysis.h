// The analysis stage: steps, the aggregation window, attribution and the metric families, each
// computed by its own small analyser from the Profile alone (src/analyse/, a folder per family with
// its results' header; the worker's and the run's in analyse/worker_analysis.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/analysis_options.h"
#include "analyse/worker_analysis.h"
#include "knowledge/classification.h"
#include "model/profile.h"

namespace perfgate {

// Throws ConfigError for a window that selects no step or an invalid pattern.
WorkerAnalysis analyse_profile(const Profile& profile, const Classification& classification,
                               const AnalysisOptions& options);

// Graph-capture traces merged into a replay trace (graph_capture.cpp): each graph launch of the
// replay aligned with the captured graph its kernels match best, and each replayed activity placed
// on a captured launch given that launch's op, shapes, module frames and stack.
struct GraphCaptureCoverage {
  std::size_t captured_graphs = 0;   // capture windows (Begin/EndCapture) in the capture traces
  std::size_t launches = 0;          // graph launches in the replay
  std::size_t launches_aligned = 0;  // ... of which some activity was placed
  std::size_t replayed = 0;          // GPU activities the graph launches ran
  std::size_t placed = 0;            // ... placed on a captured launch
};
// Adds the captured ops to `replay` (a note states the coverage); call before analysing it.
GraphCaptureCoverage merge_graph_captures(Profile& replay, const std::vector<Profile>& captures,
                                          const Classification& classification);

struct CompiledClassification;

// How much of a worker its run may still detail (RunCombiner::detail_of), so how much of it to
// analyse: Whole; Later, the fastest so far but among no slowest, which most workers of a run in
// position order are until the next comes (their tables are made again if it stays so); None.
enum class WorkerDetail { Whole, Later, None };

// Analyses profiles with the classification compiled once. Safe to call from several threads at
// once (each call keeps its own per-profile state), so workers can be analysed as they load.
class WorkerAnalyser {
 public:
  // Throws ConfigError for a classification pattern that does not compile.
  WorkerAnalyser(const Classification& classification, const AnalysisOptions& options);
  ~WorkerAnalyser();
  WorkerAnalyser(const WorkerAnalyser&) = delete;
  WorkerAnalyser& operator=(const WorkerAnalyser&) = delete;
  // Throws ConfigError for a window that selects no step or an invalid pattern.
  WorkerAnalysis operator()(const Profile& profile) const;
  // The worker at `position` of `run`, which it is then added to: asks the run, once its pace is
  // known, whether it may be detailed; if not, or only Later, leaves out the tables the run would
  // let go. `detail`: what was asked (Later only for a profile small enough to keep: the caller
  // keeps it for RunCombiner::add's `whole`).
  WorkerAnalysis operator()(const Profile& profile, const RunCombiner& run, WorkerPosition position,
                            WorkerDetail& detail) const;

 private:
  std::unique_ptr<const CompiledClassification> compiled_;
  AnalysisOptions options_;
};

// A run's ops, kernels and regions summed by name over some of its workers (RunRow::workers
// counts them): integer times and counts, so sums of parts add up to the whole in any order.
struct RunRowSums {
  std::vector<RunRow> ops;  // each in name order
  std::vector<RunRow> kernels;
  std::vector<RunRow> regions;
  std::vector<RooflineRow> roofline;  // in key order (name, input dims, input types)
};

struct PositionedWorker {
  WorkerPosition position;
  WorkerAnalysis worker;
};

// Part of a run, as a partial report carries it (perfgate analyze --partial): its workers, each
// with its whole tables only if it could still be among the run's detailed workers, and the sums
// of all its workers' tables. Positions are within the part's own inputs.
struct PartialRun {
  std::vector<PositionedWorker> workers;  // in position order
  RunRowSums sums;
  CollectiveSums collectives;
};

// Folds workers into their run as each is analysed, in any order, from several threads at once:
// their ops, kernels and regions are summed by name at once, and a worker that is not (or no
// longer) among the detailed ones (AnalysisOptions::detailed_workers) lets its whole tables go.
// The result depends only on the workers and their positions, not on the order they came in.
class RunCombiner {
 public:
  explicit RunCombiner(std::size_t detailed_workers);
  ~RunCombiner();
  RunCombiner(const RunCombiner&) = delete;
  RunCombiner& operator=(const RunCombiner&) = delete;
  // `worker` by reference: a move of it is a move of each of its strings and vectors (1.7 k
  // instructions, issue 78), which a parameter by value would add where the caller names its worker.
  void add(WorkerPosition position, WorkerAnalysis&& worker);
  // A worker analysed without its tables (WorkerDetail::Later): `whole` analyses it again with them,
  // called by finish or finish_partial if it is still detailed then; dropped once it is not.
  void add(WorkerPosition position, WorkerAnalysis&& worker, std::function<WorkerAnalysis()> whole);
  // Whether a worker at `position` whose pace is `pace_us` (worker_pace_us) may still be among the
  // detailed ones (Whole: the first or among the slowest so far; Later: only the fastest so far).
  // One that may not (None) never will be, whatever comes after, nor will one that is not among
  // the slowest now: its analysis need not make the tables add would let go.
  WorkerDetail detail_of(WorkerPosition position, double pace_us) const;
  // A part of the run, its positions already the run's: its sums are added, its workers placed
  // among the detailed ones without their tables counted again. Parts whose workers were chosen
  // by the same detailed_workers leave every worker the whole run would detail with its tables:
  // each part keeps its first, its slowest and its fastest.
  void add(PartialRun part);
  // The run: workers in position order, run metrics and run tables. `missing_ranks`: ranks whose
  // file was skipped (RunInputs::missing_ranks), expected but not present (ranks.expected).
  RunAnalysis finish(const std::vector<std::int64_t>& missing_ranks = {});
  // The part this combiner holds, for a partial report: no run metrics, the sums by name.
  PartialRun finish_partial();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The run as a whole (ranks, spread, run metrics) from its workers' analyses, in worker order.
RunAnalysis combine_workers(std::vector<WorkerAnalysis> workers);
// Each worker's rank: its distributedInfo rank, else its index.
std::vector<std::int64_t> rank_ids(const RunAnalysis& run);

}  // namespace perfgate
