// The critical paths of two runs differenced per step (issue 74, item 6): for a step-time
// regression, what grew on the path, what moved onto it (a collective that was hidden and is now
// exposed), what left it, and the time no path explains, adding up to the change of the steps'
// spans. From the catalog's critical-path metrics of both runs (a JSON report and a history keep
// them), by HTA's bounds; and by name, from both runs' critical-path-ops tables (baseline/baseline.h
// PathProfile: a JSON report and a history of schema 5 keep them), which ops, runtime calls, kernels and
// collectives grew on the path, moved onto it or left it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baseline/baseline.h"
#include "common/metrics.h"
#include "report_model/report.h"

namespace perfgate {

struct PathBoundChange {
  std::string what;        // "host ops and runtime calls", "communication", ...
  double baseline_us = 0;  // on the path per step
  double us = 0;
  double delta() const { return us - baseline_us; }
};

// An op, runtime call or GPU activity on the path of either run, with what bounds its time there.
struct PathOpChange {
  std::string name;
  std::string bound;       // HTA's class, "cpu_bound", ...
  double baseline_us = 0;  // on the path per step
  double us = 0;
  double delta() const { return us - baseline_us; }
};

// The path by name: each (name, bound) in either run's ops table, the largest change first, and the
// rest of the path (the ops past a table's rows) so that the parts add up to the change of the
// profiles' mean path.
struct PathOpsDifference {
  double baseline_length_us = 0, length_us = 0;  // the profiles' mean path
  std::vector<PathOpChange> ops;                 // the largest |change| first
  double baseline_rest_us = 0, rest_us = 0;      // the path no listed row holds
};

struct PathDifference {
  // What the figures are per: "step", or "matched unit" (the inferred units both runs have).
  std::string per = "step";
  double baseline_length_us = 0, length_us = 0;  // the path per step
  double baseline_off_us = 0, off_us = 0;        // the step's span off the path, per step
  std::vector<PathBoundChange> bounds;           // every bound, the largest growth first
  std::optional<PathOpsDifference> by_name;      // where both runs have a PathProfile
};

// Where both runs have a critical path per step (critical_path.length_us, its shares by bound and
// critical_path.uncovered_step_pct): a bound's time per step is the mean path x its share, the time
// off the path the mean path x uncovered / (100 - uncovered).
// By name where both profiles are given (each may be null).
std::optional<PathDifference> path_difference(const MetricValues& baseline, const MetricValues& run,
                                              const PathProfile* baseline_ops = nullptr,
                                              const PathProfile* run_ops = nullptr);
PathOpsDifference path_ops_difference(const PathProfile& baseline, const PathProfile& run);

// Where neither run marks steps and both repeat an inferred unit (issue 74): the paths of the units
// named in `matched` that both runs have a path of (Baseline::unit_paths), summed on each side and
// divided by those units, by bound and by name; each side's path and time off it per matched unit.
// None where no matched unit has a path on both sides. `units`: how many were differenced.
std::optional<PathDifference> matched_unit_path_difference(const std::vector<UnitPath>& baseline,
                                                           const std::vector<UnitPath>& run,
                                                           const std::vector<std::string>& matched,
                                                           std::size_t* units = nullptr);

// "On the critical path per step, 9.00 ms → 11.00 ms (+2.00 ms): grew host ops and runtime calls
// +2.00 ms (1.00 ms → 3.00 ms); moved onto the path communication +0.40 ms; ... Off the path +0.01 ms."
// A bound whose change is under 0.5% of the longer path is left out. With names: "By name: grew
// ncclDevKernel_SendRecv (communication) +400.0 us (1.00 ms → 1.40 ms); moved onto the path
// cudaMemsetAsync (host) +260.0 us (...); the rest +12.0 us." (at most kPathOpsNamed rows of
// each kind, those over 0.5% of the longer path).
inline constexpr std::size_t kPathOpsNamed = 3;
std::string path_difference_sentence(const PathDifference& d);
std::string path_ops_sentence(const PathOpsDifference& d, std::string_view per = "step");

// The same as a waterfall, the table "critical_path_changes" (common/table_catalog.def): the
// baseline's step (its path and the time off it), each bound the sentence names, the other bounds
// together (the path's change less the named bounds': also what the shares' rounding leaves, so
// that the parts add up to the path's change), off the path, and this run's step. Each part's bar
// runs from where the one before it ends (from_us, to_us): the renderers draw them as they are.
// Each run's median step (steps.median_us, the step-time rule's headline), where both runs have
// steps: the waterfall then runs from the baseline's median step to this run's, through each run's
// mean step (the path's parts are means: a path is summed over the steps) by a part that says how
// far the two statistics are apart (issue 93).
struct MedianSteps {
  double baseline_us = 0;
  double us = 0;
};
ReportTable critical_path_changes(const PathDifference& d, const std::optional<MedianSteps>& medians = {});

// The step-time finding's explanation where it compares matched inferred units: what grew on the
// path per matched unit (matched_unit_path_difference over `matched`'s units), or why it cannot say
// (a window's one path holds other units and the work between them: it is not divided by units).
std::string matched_unit_path_text(const Baseline& baseline, const ReportModel& run,
                                   const MatchedUnits& matched);

}  // namespace perfgate
