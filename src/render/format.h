// Helpers of the text renderers: values by unit (common/units.h) and metric labels.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/metrics.h"
#include "common/units.h"
#include "report_model/report.h"

namespace perfgate {

// How every output names the metric in words: its catalog label, in the capture's words.
std::string metric_label(Metric metric);

// The report being rendered on this thread: each render_* entry holds one, so that the labels deep in
// a renderer ("GPU busy", "Tensor Cores") read the capture's words (report.h, CaptureTerms: "TPU
// busy", "Matrix Cores") and a withheld metric says why (value_text) without each helper taking
// the report. Nested scopes restore the outer one.
class RenderedReportScope {
 public:
  explicit RenderedReportScope(const ReportModel& report);
  ~RenderedReportScope();
  RenderedReportScope(const RenderedReportScope&) = delete;
  RenderedReportScope& operator=(const RenderedReportScope&) = delete;

 private:
  const ReportModel* outer_;
};

// A renderer's own fixed words ("GPU", "Top GPU ops") in the words of the report it renders.
std::string words(std::string_view fixed);
// A metric's value by its unit; where `m` is the rendered report's own metrics and an invariant
// withheld it, "n/a (<invariant> does not hold: Data quality)" instead (issue 89: n/a and why where
// the number would be).
std::string value_text(const MetricValues& m, Metric metric);

// The parts of the plugin's step breakdown as shares of the step, in its priority order (that of
// kBreakdownColors), and DLProf's resources as shares of the window (kResourceColors).
inline constexpr std::array<Metric, 8> kBreakdownShares = {
    Metric::BreakdownKernelPct,        Metric::BreakdownMemcpyPct,  Metric::BreakdownMemsetPct,
    Metric::BreakdownCommunicationPct, Metric::BreakdownRuntimePct, Metric::BreakdownDataloaderPct,
    Metric::BreakdownCpuExecPct,       Metric::BreakdownOtherPct};
inline constexpr std::array<Metric, 5> kResourceShares = {
    Metric::ResourcesTcKernelsPct, Metric::ResourcesNonTcKernelsPct, Metric::ResourcesMemoryPct,
    Metric::ResourcesCpuPct, Metric::ResourcesOtherPct};

// What is known of a GPU's architecture, to follow its name: " (Ampere, sm 8.0)", " (gfx942)"
// (AMD has no sm numbers), " (Volta, sm 7.0, inferred from kernel names)", or "".
std::string gpu_architecture_text(const ReportGpu& g);

// A report table's title by its name ("gpu_gaps" -> "GPU gaps"), or the name when unknown.
std::string table_title(const ReportModel& report, std::string_view table);

// The order findings are listed in: failures, inconclusive results, warnings, then the rest.
int finding_rank(FindingStatus status);

// The worker with the highest mean step (steps.mean_us), which holds a run up; nullptr when no
// worker has steps.
// The worker with the highest (lowest) mean step, the first on a tie: the rank ranks.slowest
// (ranks.fastest) names.
const ReportWorker* slowest_worker(const ReportModel& r);
const ReportWorker* fastest_worker(const ReportModel& r);
// Beyond this many GPUs (workers) the first screens show their spread, not each one.
inline constexpr std::size_t kListedGpus = 8;
inline constexpr std::size_t kListedWorkers = 8;
// The run's tables shown after the workers' (a run of several workers), in this order.
inline constexpr std::string_view kRunTables[] = {table_name(Table::Ranks),
                                                  table_name(Table::RankCollectives),
                                                  table_name(Table::CollectiveBandwidth),
                                                  table_name(Table::RankCommunication),
                                                  table_name(Table::Stragglers),
                                                  table_name(Table::RunOps),
                                                  table_name(Table::RunKernels),
                                                  table_name(Table::RunRegions)};

// The window steps of the run (the run-level steps of several workers).
std::size_t window_steps(const ReportModel& r);
// How changes against the baseline (the delta tables) are counted: "per step", or "over each run's
// whole window" where a run has no steps (report_model/report.h, changes_per_step).
std::string_view changes_basis(const ReportModel& r);
// How the table "changes" is ordered: "largest first", or by the change of the time a call where the
// windows hold different work (ReportBaseline::changes_by_call).
std::string_view changes_order(const ReportModel& r);
// MFU, or why it has none: FLOPs known for too little of the work (rules: compute), or no peak known
// for the GPUs (rules: gpu_peaks).
std::string mfu_text(const MetricValues& metrics);

// A note's sentence in the capture's words (words above): the note catalog's text names GPUs.
std::string note_words(const Note& note);
std::vector<std::string> note_words(const std::vector<Note>& notes);
// A note's line: its sentence, after its worker's name where it has one ("rank-1: ...").
std::string note_line(const ReportNote& note);
// The "Data quality" section (docs/reports.md): a line per report invariant a number broke, the
// number withheld: a lone worker's own, else the run's, then the workers' (named; one that several
// share said once). Empty when every number holds.
std::vector<std::string> data_quality_lines(const ReportModel& r);
// Where a withheld number would be: "n/a (compute.throughput_matches_mfu does not hold: Data
// quality)"; empty when the metric was not withheld.
std::string withheld_text(const ReportModel& r, Metric metric);
// Whether a metric of NVIDIA's counters (CUPTI's SM efficiency and achieved occupancy) has a place
// in the report: on another vendor's devices only where the trace has it, never as an n/a line.
bool counter_shown(const ReportModel& r, Metric metric);
std::vector<std::string> note_lines(const std::vector<ReportNote>& notes);
// The report's notes with those that several workers share said once: "rank-0, rank-1, rank-2 and
// 1021 more workers: GPU 0: architecture ... inferred", in the order each first appears.
std::vector<std::string> grouped_notes(const ReportModel& r);

// What an estimated gain is a share of: "the step time", or "the window" of a run without steps.
std::string_view gain_share_of(const ReportModel& r);

// How the critical path bears on a finding's gain: "its time on the critical path, which covers 91%
// of the step", "not bounded by the critical path, which covers only 45% of the step", or "".
std::string gain_path_note(const ReportFinding& f);

// The verdict as every output words it: "FAIL", "PASS with warnings" or "PASS" (status "fail",
// "warn", anything else).
std::string_view verdict_word(std::string_view status);

// An input's path as a person reads it (issue 93): relative to the working folder where it lies
// under it or its parent ("traces/a.json", "../shared/b.json"), else normalised and absolute. The
// JSON report keeps the path as given.
std::string shown_path(std::string_view path);
// The run's first `max` inputs, each as shown_path says with its size ("(1.2 MB)"); those in one
// folder after the folder said once ("traces/: rank-0.json (1.2 MB), rank-1.json (1.1 MB)"), and
// "and N more" after them.
std::string inputs_text(const ReportModel& r, std::size_t max);
// The baseline as shown_path names a file: a JSON report's or a profile's path; a history (a SQLite
// file or a PostgreSQL URI), several pooled, or a --baseline-name as given.
std::string shown_baseline(const ReportBaseline& baseline);

// A metric's change against the baseline: "+1.20 ms (+3.4%)", "-2.1 pts" for percentages, "–"
// when there is none.
std::string signed_change(const ReportMetricChange& c);

// When the baseline is not comparable as it stands: "The baseline ran on other GPUs (NVIDIA A100
// against Tesla V100): its changes mix hardware and code." and/or that another perfgate version
// made it; "" when neither. Every output with a baseline shows it.
std::string baseline_mismatch_text(const ReportModel& r);

// The work of each window against the baseline: "window steps 0 -> 0 · kernels 4010 -> 3587 (-423
// (-10.5%)) · FLOPs n/a"; "" without a baseline.
std::string window_work_text(const ReportModel& r);
// Where the windows hold different work and no steps align them (ReportBaseline::different_work),
// the sentence that says so and what compares instead; "" otherwise.
std::string different_work_text(const ReportModel& r);
// The largest change of a direction ("slower", "faster") in the table "changes", as text:
// "flash_fwd_kernel (kernel) -31.56 ms, 68 → 60 calls"; "" where it lists none.
std::string largest_change_text(const ReportModel& r, std::string_view direction);
// A comparability factor as a line: "devices: 2 x NVIDIA H100 in both", "kernels (below 50%): ...".
std::string comparability_line(const ReportComparability& c);

}  // namespace perfgate
