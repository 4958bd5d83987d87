// The baseline a run is compared with: a previous JSON report (the normal case in CI) or the
// report model of another profile. Only what the gate compares is kept.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

// An op, a user region or a kernel, summed over the workers of a run.
struct BaselineRow {
  std::string name;
  double gpu_us = 0;  // ops: device self time; regions: GPU time launched inside; kernels: total duration
  double cpu_us = 0;  // ops: host self time; regions: host time of the ranges; kernels: 0
  double calls = 0;
};

// A memory snapshot's bytes live at the peak from one allocation site (the memory_live_at_peak
// table summed over devices and workers).
struct BaselineSite {
  std::string site;
  double bytes = 0;
};

// A run's critical path by name, per step (issue 74, item 6: which ops grew on the path): the ops,
// runtime calls and GPU activities on the paths of the worker whose mean path per step is longest
// (the run's critical_path metrics are that worker's), from its critical_path_ops table (at most 100
// rows, most time first) over its critical_path table's steps (a window without steps: one path).
// Host time (cpu_bound, data_loading) is kept by op family (family_of): a wrapper op per layer
// ("FSDP::pre_forward (blocks.8…)") is one row whichever layers each window holds; a kernel keeps
// its name, whose digits name other code (a tile size, a template argument).
struct PathOp {
  std::string name;
  std::string bound;  // HTA's class: "cpu_bound", "gpu_communication_bound", ...
  double us_per_step = 0;
};
struct PathProfile {
  double steps = 0;               // the paths it sums (a window without steps: 1)
  double length_us_per_step = 0;  // the mean path; the ops past the table's rows are the rest of it
  std::vector<PathOp> ops;
};

// An op family: every run of decimal digits replaced by '#', so that "blocks.3" and "blocks.17"
// (an FSDP wrapper per layer: a shorter window holds other layers) are one name.
std::string family_of(std::string_view name);

// The profile of the worker whose mean path is longest, of (critical_path, critical_path_ops) table
// pairs, one per worker; none where no worker has both with a step.
std::optional<PathProfile> path_profile(
    const std::vector<std::pair<const ReportTable*, const ReportTable*>>& workers);
std::optional<PathProfile> path_profile(const ReportModel& report);
// Several runs' profiles as one: each op's mean per step over the runs (0 in a run without it) and
// the mean path; none where a run has none.
std::optional<PathProfile> pooled_path_profile(const std::vector<const PathProfile*>& runs);

// One inferred unit's critical path (issue 74): where a window marks no steps but repeats a unit, the
// path of each unit (the critical_path_units and critical_path_unit_ops tables) of the worker whose
// path of that unit is longest, so that the gate differences the units both runs have.
struct UnitPath {
  std::string unit;  // its identity, as ReportInferredIterations::unit_names
  double span_us = 0;
  double length_us = 0;
  // The path by bound, in the table's column order: cpu_bound, data_loading, launch overhead,
  // kernel gap, GPU compute, communication.
  std::array<double, 6> bounds_us{};
  std::vector<PathOp> ops;  // PathOp::us_per_step: its time on this unit's path; host ops by family
};
// A worker's (critical_path_units, critical_path_unit_ops) table pair each; in the first worker's
// unit order.
std::vector<UnitPath> unit_paths(
    const std::vector<std::pair<const ReportTable*, const ReportTable*>>& workers);
std::vector<UnitPath> unit_paths(const ReportModel& report);
// Several runs' unit paths as one: the units every run has, each figure the runs' mean (none where a
// run has none).
std::vector<UnitPath> pooled_unit_paths(const std::vector<const std::vector<UnitPath>*>& runs);

struct Baseline {
  ReportBaseline info;
  // The device families of the run's profiles (pooled: of every run's). None where the run does not
  // state them: a JSON report of a perfgate before perfgate-report/2.1, a run a history recorded
  // before its schema 3.
  DeviceFamilies families;
  MetricValues metrics;                   // a name the catalog lacks is not kept
  std::vector<double> step_durations_us;  // the window's steps (of every run, when pooled)
  // Each baseline run's window steps, when several runs are pooled: the step-time test models the
  // noise within and between runs. Empty for a single run (its steps are step_durations_us).
  std::vector<std::vector<double>> run_steps_us;
  // The iterations the baseline inferred where it marks no steps (family and unit durations kept);
  // pooled: where every run inferred the same family, each run's units apart (inferred_runs), the
  // units of all in inferred_iterations.
  std::optional<ReportInferredIterations> inferred_iterations;
  std::vector<ReportInferredIterations> inferred_runs;
  std::vector<BaselineRow> ops;
  std::vector<BaselineRow> regions;  // record_function / user annotation ranges (the DataLoader's, ...)
  std::vector<BaselineRow> kernels;
  std::vector<BaselineSite> memory_sites;  // a memory snapshot's; pooled runs: the mean of theirs
  // Each GPU name with its number of devices (every worker's), by name; the history keeps it.
  std::vector<std::pair<std::string, int>> gpu_counts;
  // Pooled: each run's path and the perfgate version that wrote it (info.tool_version is the first
  // run's), so that runs of another version are named (issue 74). Empty for a single run.
  std::vector<std::pair<std::string, std::string>> run_tool_versions;
  // Its critical path by name. None from a history run recorded before schema 5 (which kept the
  // path's metrics, not its ops), a report whose workers keep no critical-path tables, or a pool
  // where a run has none; pooled: each op's mean over the runs.
  std::optional<PathProfile> path_profile;
  // Its critical path per inferred unit (UnitPath), where its window marks no steps but repeats a
  // unit; none from a history. Pooled: the units every run has.
  std::vector<UnitPath> unit_paths;
  // The report's tables read only to --max-rows (issue 92: a forged baseline of 1,000,000 op rows),
  // with the rows past it, by table name; pooled: every run's.
  std::vector<std::pair<std::string, std::size_t>> rows_past_limit;
  std::optional<double> metric(Metric id) const { return metrics.get(id); }
};

// Several baselines as one: each metric is the median of the runs' values, op and kernel totals
// are summed (their per-step figures divide by all the runs' steps), and the runs' steps are kept
// apart for the step-time test. One run is returned as it is.
Baseline combine_baselines(std::vector<Baseline> runs);

// The GPU names of a report, sorted, each once (how a baseline's hardware is compared).
std::vector<std::string> gpu_names(const ReportModel& report);
std::vector<std::string> sorted_distinct(std::vector<std::string> names);
// Each name with how often it occurs, by name.
std::vector<std::pair<std::string, int>> name_counts(const std::vector<std::string>& names);

// True when the file (plain or gzip) starts like a perfgate JSON report.
bool is_report_file(const std::string& path);

// Reads a JSON report written by `perfgate analyze --json`, streaming: what it keeps of the report
// may hold at most `max_memory` bytes (load/load.h; 0: no limit). Throws InputError naming the
// file and the problem (unreadable, invalid JSON with its byte offset, another schema, a wrong
// field, past the memory limit).
Baseline read_baseline_report(const std::string& path, std::uint64_t max_memory);
// The same under PERFGATE_MAX_INPUT_MEMORY (its default without it); ConfigError for a malformed one.
Baseline read_baseline_report(const std::string& path);

// The baseline of a report model (a profile given as the baseline, analysed like the run).
Baseline baseline_from_report(const ReportModel& report, std::string path, std::string kind);

// The ops, regions and kernels of a report, summed over its workers (shared by both kinds of
// baseline).
std::vector<BaselineRow> op_rows(const std::vector<const ReportTable*>& op_tables);
std::vector<BaselineRow> region_rows(const std::vector<const ReportTable*>& region_tables);
std::vector<BaselineRow> kernel_rows(const std::vector<const ReportTable*>& kernel_tables);

// Every catalog metric of the report next to the baseline's, with the change.
std::vector<ReportMetricChange> metric_changes(const ReportModel& current, const Baseline& baseline);

// The work inside the inferred units both runs have (issue 95): the ops, regions and kernels of the
// run's matched units summed, and of each baseline run's, with the units summed on each side. Units
// a side did not count (ReportInferredIterations::unit_work: outside a window) are set aside on both.
// None where a side holds no work per unit (a JSON report or a history read back) or no unit is
// matched and counted on both: the per-unit tables then divide the window totals by the units.
struct MatchedUnitWork {
  std::vector<std::string> names;  // the units summed, in the run's order
  std::vector<BaselineRow> run_ops, run_regions, run_kernels;
  std::vector<BaselineRow> baseline_ops, baseline_regions, baseline_kernels;  // every baseline run's
  double run_units = 0;                                                       // the run's units summed
  double baseline_units = 0;                                                  // the baseline's, over its runs
  double run_gpu_idle_us = 0, baseline_gpu_idle_us = 0;  // the units' GPU idle time, summed
};

// What the changes against the baseline are counted over (issue 74): each run's window steps where
// both have some; where neither has and the gate matches the inferred units both repeat by their
// identity, each run's units (the work inside the matched units, where both runs hold it, issue 95;
// else its window totals over its units); else each run's whole window, and
// where those hold different work (windows_hold_different_work) "changes" is ordered by the change
// of the time a call, not by the window totals.
struct ChangeCounting {
  ChangeBasis basis = ChangeBasis::Step;
  double run_count = 1;       // what the run's window totals are divided by: its steps or units
  double baseline_count = 1;  // the baseline's (pooled: every run's)
  bool by_call = false;
  // Per inferred unit, or per step where both runs' steps are their inferred units (--step-pattern
  // inferred): the work inside the matched units, where both runs hold it; the op, region and kernel
  // tables sum it over the matched units and divide by their count, not the window totals by the
  // units.
  std::optional<MatchedUnitWork> matched;
};
ChangeCounting change_counting(const Baseline& run, const Baseline& baseline);

// Changes against the baseline, counted as change_counting says (per window step): the run tables
// "step_time_deltas" (each op's GPU and host self time, each region's host time and the GPU idle time, side
// by side), "op_deltas", "region_deltas" and "kernel_deltas", largest regression first. The fifth, "changes",
// holds both ends of the op, region and kernel deltas (largest_changes_table). The last,
// "memory_site_deltas", what is live at a memory snapshot's peak by allocation site in both
// (memory_site_deltas.cpp).
std::vector<ReportTable> delta_tables(const ReportModel& current, const Baseline& baseline);

// The table "changes" from the op, region and kernel delta tables among `deltas`: the
// `wording.per_item` largest slower and faster rows of each (GPU plus host time; with
// `wording.by_call`, the change of the time a call at this run's calls), each with its calls in both
// runs.
ReportTable largest_changes_table(const std::vector<ReportTable>& deltas, TableWording wording);

// How comparable the run and its baseline are (docs/rules.md, "Work per window and comparability"):
// the devices (GPU names and counts), the kernels and the ops (digit runs as '#': "blocks.#") by the share of
// each run's time under names both have, at least kMinOverlapPct of each, and the steps (both runs have
// window steps, or the whole windows hold like work).
inline constexpr double kMinOverlapPct = 50;
std::vector<ReportComparability> comparability(const Baseline& run, const Baseline& baseline);
// No steps align the two runs (either has none) and their kernel counts (or FLOPs, where both know
// them) differ by more than kDifferentWorkPct.
bool windows_hold_different_work(const Baseline& run, const Baseline& baseline);
// The work of a window step in each run (ReportStepWork), where both have window steps and count
// FLOPs or kernels; FLOPs measure it where both cover at least `min_flops_coverage_pct` of their
// matrix work (rules: compute.mfu_min_flops_coverage_pct).
std::optional<ReportStepWork> step_work(const Baseline& run, const Baseline& baseline,
                                        double min_flops_coverage_pct);
// The comparability factor "work" where the work per step differs (none where it is alike): what
// the step-time test compares instead of the step time, or why it cannot.
std::optional<ReportComparability> step_work_factor(const ReportStepWork& work,
                                                    double min_flops_coverage_pct);

// The inferred units the run and its baseline both have (issue 74): matched one to one by identity
// (ReportInferredIterations::unit_names, the layer or block a unit repeats), each baseline run's in
// the run's order; a unit either side lacks is set aside on both. Where a side names no units (a
// report of a perfgate before perfgate-report/2.3), every unit is kept, unmatched.
struct MatchedUnits {
  bool by_identity = false;
  std::vector<std::string> names;                     // the matched identities, in the run's order
  std::vector<double> current_us;                     // the run's units of those identities
  std::vector<std::vector<double>> baseline_runs_us;  // each baseline run's, in the same order
  std::size_t current_units = 0;                      // before matching
  std::size_t baseline_units = 0;                     // before matching, a baseline run's at most
};
MatchedUnits match_inferred_units(const ReportInferredIterations& run, const Baseline& baseline);

// The work inside the matched units (MatchedUnitWork), or none.
std::optional<MatchedUnitWork> matched_unit_work(const ReportInferredIterations& run,
                                                 const Baseline& baseline);

}  // namespace perfgate
