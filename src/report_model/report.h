// The report model: plain data that every renderer reads. Renderers never compute a number;
// whatever they show is here. It names no other stage: the report stage builds it
// (report/build_report.h) from the analysis, the baseline and the gate's findings.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/capture_profile.h"
#include "common/device_family.h"
#include "common/metrics.h"
#include "common/notes.h"  // the run notes: run_warnings, warnings
#include "common/report_invariants.h"
#include "common/step_time_split.h"  // ReportStep::breakdown_us, by BreakdownPart
#include "common/table_codes.h"      // kNoOpName and the timeline's lanes in the tables
#include "common/tables.h"           // the tables' declaration: Table, table_column

namespace perfgate {

// The JSON report's schema: MAJOR.MINOR. A minor version adds fields and moves none, so a reader of
// version 2 reads any 2.N (docs/reports.md, "The JSON report"); 2.1 added the device families, 2.4
// the delta tables' basis (baseline.changes_basis, columns named "_per_unit"/"_per_window"), 2.5 the
// capture profile ("capture": devices, frameworks, workload, phases, what was overridden), 2.7 each
// finding's headline and the timelines' lane column.
inline constexpr const char* kReportSchema = "perfgate-report/2.7";

// A profile the report was made from (what the loader found; `format` as "kineto-json" ...).
struct ReportInput {
  std::string path;
  std::uint64_t bytes = 0;
  std::string format;
  std::string worker;
  // The run folder the file was found in; empty when it was named itself.
  std::string folder;
};

// A baseline limit: a change in the bad direction, relative ("+5%") or in the metric's unit
// ("+3 ms" is stored as 3000 for a metric in us; "-5 pts" as 5 for a % metric).
struct ChangeLimit {
  double amount = 0;  // always >= 0: the size of the allowed change
  bool relative = false;
  std::string text;  // as written, for messages
};

// A table of the report: DLProf's and the plugin's views, one renderer code path for all.
struct ReportColumn {
  std::string name;
  std::string unit;  // "us", "%", "count", "bytes", "flop", "" for text and flags
  std::string description;
};
using ReportCell = std::variant<std::monostate, double, std::int64_t, std::string, bool>;

// A table's columns, held once and shared by every table that has them: each table made from the
// catalog's declaration (declared_table) shares it. A run folder's ranks each held a copy of their
// tables' columns, about 11 kB a rank outside --max-memory (issue 78). A table has the first size()
// of the shared columns; one that adds a column copies them first.
class ReportColumns {
 public:
  ReportColumns() = default;
  // Not explicit: a table's columns are written as the list they are.
  ReportColumns(std::vector<ReportColumn> columns);
  ReportColumns(std::initializer_list<ReportColumn> columns)
      : ReportColumns(std::vector<ReportColumn>(columns)) {}
  explicit ReportColumns(std::shared_ptr<const std::vector<ReportColumn>> shared);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const ReportColumn& operator[](std::size_t i) const { return (*columns_)[i]; }
  const ReportColumn* begin() const { return columns_ ? columns_->data() : nullptr; }
  const ReportColumn* end() const { return begin() + size_; }

  void keep_first(std::size_t n) { size_ = std::min(n, size_); }
  void pop_back() { --size_; }
  void push_back(ReportColumn column);
  // Whether both are the same columns held once, not copies.
  bool shares(const ReportColumns& other) const { return columns_ && columns_ == other.columns_; }

 private:
  std::shared_ptr<const std::vector<ReportColumn>> columns_;
  std::size_t size_ = 0;
};

struct ReportTable {
  std::string name;  // stable key: "ops", "kernels", ...
  std::string title;
  std::string description;
  ReportColumns columns;
  std::vector<std::vector<ReportCell>> rows;
};

struct ReportTimeline {
  std::string step;  // the representative (median) step
  double step_start_us = 0;
  double step_duration_us = 0;
  std::size_t activities = 0;  // before merging small boxes
  bool gpu_clock = false;      // under a clock offset: the step on the GPUs' clock, GPU lanes alone
};

struct ReportStep {
  std::string name;
  std::optional<std::int64_t> number;
  std::optional<double> start_us;  // trace clock; absent for run-level steps of several workers
  double duration_us = 0;
  std::optional<std::uint32_t> gpu_activities;
  bool in_window = true;
  std::optional<std::array<double, kBreakdownParts>> breakdown_us;  // window steps of one worker
};

struct ReportGpu {
  std::string worker;
  std::int32_t device = 0;
  std::string name;
  std::string compute_capability;      // "8.0", or empty
  std::string architecture;            // "Ampere", "gfx942", or empty (rules: gpu_architectures)
  bool architecture_inferred = false;  // from kernel names: the trace does not describe the device
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t kernel_count = 0;
  std::int64_t kernel_ns = 0;  // union of kernel intervals in the window
  std::int64_t busy_ns = 0;    // union of kernel, memcpy and memset intervals in the window
  std::optional<double> utilization_pct;
  std::optional<double> busy_pct;
  std::optional<double> idle_pct;
  std::optional<double> sm_efficiency_pct;
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> tensor_core_kernel_time_pct;
};

struct ReportWindow {
  std::string step_source;  // "profiler-step", "key-op", "none"
  double start_us = 0;
  double end_us = 0;
  double wall_us = 0;
  std::size_t steps_total = 0;
  std::size_t steps_in_window = 0;
  std::optional<std::int64_t> iter_start;
  std::optional<std::int64_t> iter_stop;
};

struct ReportSystem {
  std::string trace_format;
  // What kind of device the profile records, as its reader set it; none for a worker built by hand.
  std::optional<DeviceFamily> family;
  std::string schema_version;
  std::string trace_name;
  std::optional<std::int64_t> rank;
  std::optional<std::int64_t> world_size;
  std::string distributed_backend;
  std::optional<std::int64_t> base_time_ns;
  std::vector<std::pair<std::string, std::string>> attributes;
};

// Where a worker's GPU allocator peaked (memory.peak_allocated_bytes); no op without [memory] events.
struct ReportMemoryPeak {
  std::string op;  // kNoOpName outside any op, "(before the capture)" when the capture started highest
  std::int32_t device = -1;
  double time_us = 0;        // trace clock
  bool lower_bound = false;  // totals counted from the capture's start (no totals in the trace)
};

// A step the window left out, and why.
struct ReportDroppedStep {
  std::string name;
  std::string reason;
};

struct ReportWorker {
  std::string name;
  std::string input_path;
  ReportWindow window;
  MetricValues metrics;  // its name and unit: the catalog's (metric_info)
  std::vector<ReportStep> steps;
  std::vector<ReportDroppedStep> dropped_steps;
  std::vector<ReportGpu> gpus;
  ReportSystem system;
  CaptureProfile capture;  // this worker's (the run's is ReportModel::capture)
  // Whether every table of the worker is here, and why in a run of more workers than
  // --detailed-workers ("first", "slowest", "fastest", "2nd slowest").
  bool detailed = true;
  std::string detailed_as;
  std::vector<ReportTable> tables;  // see docs/metrics.md, "Tables"
  ReportTimeline timeline;          // its boxes are the "timeline" table
  ReportMemoryPeak memory_peak;     // its curve is the "memory_curve" table
  // What the "roofline" table's ceilings are (the GPU's peaks and where they come from), or why it
  // has none; empty when the worker ran no modelled op.
  std::string roofline_note;
  std::vector<InvariantViolation> invariants;  // report invariants its numbers broke (withheld)
  std::vector<Note> warnings;                  // what its reader and analyses noticed

  std::optional<double> metric(Metric id) const { return metrics.get(id); }  // empty: not applicable
};

// A note of the run and the worker it is about: none for the run's own (a baseline's, a history's)
// and in a run of one worker. Its line names the worker first ("rank-1: ...", note_line).
struct ReportNote {
  std::string worker;
  Note note;
  bool operator==(const ReportNote&) const = default;
};

struct ReportSettings {
  std::optional<std::int64_t> iter_start;
  std::optional<std::int64_t> iter_stop;
  std::int64_t skip_first = 0;
  // --time-start, --time-stop (ns on the trace's clock) and --device, where given.
  std::optional<std::int64_t> time_start;
  std::optional<std::int64_t> time_stop;
  std::optional<std::int32_t> device;
  std::string key_op;
  std::vector<std::string> rule_sources;
};

enum class FindingStatus { Pass, Warn, Fail, NotApplicable, Skipped, Inconclusive };
const char* finding_status_name(FindingStatus status);  // "pass", "warn", "fail", "n/a", "skipped", ...

// The statistics behind a step-time comparison with the baseline (docs/rules.md, "The step-time
// test"). Step counts are those compared, after outlier steps are set aside.
struct ReportStepTest {
  // "t-test-log" (test: robust-t), "paired-t-log" (matched inferred units), "mann-whitney exact",
  // "mann-whitney normal"
  std::string method;
  std::size_t current_steps = 0;
  std::size_t baseline_steps = 0;
  std::size_t baseline_runs = 1;
  double ratio = 0;  // current / baseline step time (ratio of geometric means)
  double ci_low = 0;
  double ci_high = 0;
  double confidence = 0;
  double p_value = 1;  // one-sided, of "worse than the baseline"
  double alpha = 0;
  std::optional<double> noise_pct;          // within-run step noise (SD of log step time), in %
  std::optional<double> run_noise_pct;      // run-to-run noise, estimated from >= 3 baseline runs
  std::optional<double> mdc_pct;            // the change detected with 80% power at alpha
  std::optional<std::size_t> steps_needed;  // per run, to detect the nearest limit
  std::vector<std::string> outlier_steps;   // the current run's steps set aside
  std::size_t baseline_outlier_steps = 0;   // baseline steps set aside
  std::size_t excluded_runs = 0;            // baseline runs set aside as outliers
  // Where the work per step differs (ReportStepWork): the unit the step times were divided by
  // ("FLOP"), and this run's work per step over the baseline's; the ratio and interval are then of
  // the time per unit. Empty: step times compared as they are.
  std::string work_unit;
  double work_ratio = 1;
};

struct ReportOffender {
  std::string label;
  std::optional<double> value;
  std::string value_text;  // formatted by the column's unit
};

// One rule's outcome.
struct ReportFinding {
  std::string id;
  std::string title;
  // One line of at most 160 characters (gate/headline.h): the title, the value against the limit or
  // the baseline, the first offender's name folded ("cudnn::…::dgrad_engine<…>"), the gain; empty
  // where the rule did not fire. `headline_whole`: the same line with the names whole and uncut (a
  // tooltip's), empty where that is the headline.
  std::string headline;
  std::string headline_whole;
  std::string severity;  // "warning" or "error": what the rule is when it fires
  FindingStatus status = FindingStatus::Pass;
  // What the status means for the verdict: "error" (fail, or inconclusive counted as an error),
  // "warning", or "none".
  std::string counts_as = "none";
  std::string metric;  // what the value is: a metric name or the rule's expression
  std::string unit;
  std::optional<double> value;
  std::optional<double> threshold;  // the threshold or limit crossed (or, when passing, the nearest)
  std::optional<double> baseline;   // the baseline's value, for baseline rules
  std::string threshold_text;       // "< 50%", "+5% over the baseline (12.00 ms)"
  std::string problem;              // filled when the rule fires or is inconclusive
  std::string recommendation;
  std::vector<std::string> see;  // names of the tables the rule points at, when it fires
  std::string reason;            // why not applicable, skipped or inconclusive; the test's summary
  std::string docs;
  std::string source;
  std::optional<double> gain_pct;  // estimated recoverable share of step time, at most `saves`
  std::string saves;  // what bounds the gain (the rule's expression): the same text, the same time
  bool gain_bounded_by_path = false;  // the gain is the cause's time on the critical path (`on_path`)
  // Why no gain is stated where the estimate came out above what its cause could save (`saves`): a
  // number that cannot be, withheld with the assumption in doubt (issue 89); empty otherwise.
  std::string gain_withheld;
  // The critical paths' coverage of the steps (critical_path.coverage_pct) where the rule has an
  // `on_path` bound; below rules' critical_path.min_coverage_pct the path bounds no gain, and
  // `gain_path_too_short` says that it would have lowered this one.
  std::optional<double> path_coverage_pct;
  bool gain_path_too_short = false;
  // Fired with a gain of at least rules: advice.fix_first_min_gain_pct ("What to fix first").
  bool fix_first = false;
  // On a baseline run: the rule, as it is now, fires on the baseline's own metrics too. The finding
  // was there before the change ("What to fix first" puts what the change did first).
  bool in_baseline = false;
  std::vector<ReportOffender> offenders;
  std::optional<ReportStepTest> step_test;
};

struct ReportVerdict {
  std::string status = "pass";  // "pass", "warn" (passed with warnings) or "fail"
  std::string fail_on = "error";
  int exit_code = 0;
  std::size_t passed = 0, warnings = 0, failures = 0, not_applicable = 0, skipped = 0, inconclusive = 0;
};

// A metric now and in the baseline.
struct ReportMetricChange {
  Metric metric{};
  std::optional<double> value;
  std::optional<double> baseline;
  std::optional<double> delta;  // value - baseline
  std::optional<double> ratio;  // value / baseline
};

// A metric's recent values in a run history, and the current run's: shown next to the findings
// that read the metric when the baseline comes from a history.
struct ReportTrendPoint {
  std::string commit;  // empty when the run was recorded without one
  double value = 0;
  bool is_current = false;
};
struct ReportMetricTrend {
  std::string metric;
  std::string unit;
  std::vector<ReportTrendPoint> points;  // oldest first; the current run last
};

// One factor of how comparable the run and its baseline are (docs/rules.md, "Comparability"):
// "devices", "kernels", "ops", "steps".
struct ReportComparability {
  std::string factor;
  std::string text;  // what was compared: "2 x NVIDIA H100 in both", "27 of 27 kernel names in common"
  std::optional<double> overlap_pct;  // the kernels' and ops' shared time, of the smaller side's
  bool holds = true;                  // false: below the documented level
};

// One name's work inside an inferred unit, summed over the workers, in a baseline row's measures:
// ops: GPU and host self time; regions: the GPU time launched inside and their host time; kernels:
// their time (cpu_us 0).
struct ReportUnitRow {
  std::string name;
  double gpu_us = 0;
  double cpu_us = 0;
  double calls = 0;
};

// The work inside an inferred unit (issue 95, analyse/ops/unit_work.h): what the unit's thread
// called and launched between its opening and the next, on every worker, each list by name.
// `counted` false: not counted (the unit starts outside a worker's window).
struct ReportUnitWork {
  bool counted = false;
  std::vector<ReportUnitRow> ops, regions, kernels;
  double gpu_idle_us = 0;  // the unit's GPU idle time, summed over the GPUs (UnitWork::gpu_idle)
};

// Iterations inferred where no step is marked (docs/metrics.md, "Inferred iterations"): the run's
// when every worker inferred the same family, each unit the slowest worker's of that position.
struct ReportInferredIterations {
  std::string family;            // the opening ranges' name, each run of digits as '#'
  std::string kind;              // "annotation" or "op"
  std::string key_op;            // a --key-op regex that opens the same units
  std::vector<double> units_us;  // each unit: an opening range's start to the next one's
  // Each unit's identity, as units_us: its opening range's name (the layer or block it repeats:
  // "FSDP::post_forward (blocks.8._checkpoint_wrapped_module)"), a repeat of that name in the
  // window followed by " (2)", " (3)", ... The gate compares the units both runs have by it. Empty
  // in a report of a perfgate before perfgate-report/2.3.
  std::vector<std::string> unit_names;
  // Each unit's work, as units_us: what the per-unit change tables sum over the units both runs
  // have. Empty where the run's report does not hold it (a JSON report or a history read back as a
  // baseline): those tables then divide the window's totals by its units.
  std::vector<ReportUnitWork> unit_work;
  std::uint32_t set_aside = 0;  // units outside the run of like work (a warm-up, a checkpoint)
  double work_per_unit = 0;     // the median GPU activities launched a unit (host ranges: host_work)
  bool host_work = false;
  bool steps = false;       // the window's steps (--step-pattern inferred)
  std::size_t workers = 1;  // workers that inferred it
};

// The work of a window step in each run, where both runs have window steps (docs/rules.md, "Work
// per step"): FLOPs per step where both count some, else kernels per step. Where it differs by more
// than kDifferentWorkPct, the step-time test compares the time per FLOP (`per_flop`: both runs
// count FLOPs for at least compute.mfu_min_flops_coverage_pct of their matrix work), or abstains.
struct ReportStepWork {
  std::string measure;  // "FLOPs" or "kernels" (no FLOPs counted): the work per step below
  double baseline = 0;  // per window step
  double value = 0;
  // FLOPs (where they measure the work) or FLOPs and kernels differ by more than kDifferentWorkPct.
  bool differs = false;
  bool per_flop = false;  // both runs count FLOPs for enough of their matrix work to measure it
  // Where FLOPs are counted but cannot measure the work: the lower of the two runs' coverages.
  std::optional<double> flops_coverage_pct;
  std::string text;  // "FLOPs a step 3.93e+08 → 7.86e+08 (+100.0%), kernels a step 1462.0 → 2924.0 (+100.0%)"
  double ratio() const { return baseline > 0 ? value / baseline : 1; }
};

// The baseline the run was compared with.
struct ReportBaseline {
  std::string path;      // the --baseline as given; several: joined with ", "
  std::string kind;      // "report", "profile", "history" or "pooled"
  std::size_t runs = 1;  // baseline runs pooled
  std::string tool_version;
  std::vector<ReportInput> inputs;
  std::vector<std::string> gpu_names;
  std::size_t steps = 0;
  bool hardware_differs = false;
  std::vector<ReportMetricChange> metrics;  // every catalog metric, in catalog order
  std::vector<ReportMetricTrend> trends;    // history baselines: the gated metrics' recent values
  // The windows hold different work and no steps align them (a run has none): their kernel counts
  // (FLOPs where both know them) differ by more than kDifferentWorkPct. Window totals then compare
  // different work; the changes per call (the table "changes") do not.
  bool different_work = false;
  std::vector<ReportComparability> comparability;               // in the order of the factors above
  std::optional<ReportInferredIterations> inferred_iterations;  // the baseline's, where it inferred some
  // Kernel time a TFLOP of modelled work (kernels.total_us / compute.flops × 1e12), where both runs
  // count FLOPs: a change per unit of work beside the window totals (metric: kernels.total_us's unit).
  std::optional<ReportMetricChange> kernel_us_per_tflop;
  std::optional<ReportStepWork> step_work;  // where both runs have window steps and a measure of work
  // What the delta tables count over (per step, per matched inferred unit, per window), and whether
  // "changes" is ordered by the change a call (the windows hold different work, nothing aligns them).
  ChangeBasis changes_basis = ChangeBasis::Step;
  bool changes_by_call = false;

  const ReportMetricChange* change(Metric id) const;  // nullptr where the list lacks it
};

// Changes against a baseline (the op, region and kernel deltas) are per window step where both runs
// have steps; where either has none, each run's whole window is compared.
inline bool changes_per_step(std::size_t run_steps, std::size_t baseline_steps) {
  return run_steps > 0 && baseline_steps > 0;
}

// Neither run has window steps and both inferred iterations of the same family with units: the
// step-time test compares the units (per inferred iteration) instead of finding no steps.
inline bool compares_inferred(const std::optional<ReportInferredIterations>& run, std::size_t run_steps,
                              const std::optional<ReportInferredIterations>& baseline,
                              std::size_t baseline_steps) {
  return run_steps == 0 && baseline_steps == 0 && run && baseline && run->family == baseline->family &&
         run->kind == baseline->kind && !run->units_us.empty() && !baseline->units_us.empty();
}

// The table "changes" lists at most this many regressions and improvements of each kind (ops,
// regions, kernels): both ends of the delta tables.
inline constexpr std::size_t kChangesPerItem = 5;
// Windows whose work (kernels, FLOPs) differs by more than this share are said to hold different work.
inline constexpr double kDifferentWorkPct = 5;

// A rule as it was in effect (for the workbook's Rules sheet).
struct ReportRule {
  std::string id;
  std::string title;
  bool enabled = true;
  std::string reads;  // the metric, or the value expression
  std::string fires;  // "warn < 50, fail < 30", "+5% vs baseline", or "when <condition>"
  std::string applies_if;
  std::string source;
};

// The capture's words for the fixed terms the outputs print (issue 89): "GPU" -> "TPU", "Tensor
// Cores" -> "Matrix Cores", each pair a fixed term and its word, longest term first, from the rules'
// vocabulary (the gate's capture_terms). Empty where the capture's devices are NVIDIA GPUs or
// unknown: the fixed terms stand.
using CaptureTerms = std::vector<std::pair<std::string, std::string>>;

// `text` with each fixed term of `terms` that stands as a whole word replaced by the capture's
// word. For the outputs' own words alone (labels, titles, headers, rule titles), never for a string
// from a trace.
std::string in_capture_terms(std::string_view text, const CaptureTerms& terms);
// "a MTIA" as "an MTIA": the article before each of `words` (a capture's words, the second of each
// pair) that a rule's "a {device}" put after it (issue 91).
std::string with_articles(std::string text, const std::vector<std::pair<std::string, std::string>>& words);

struct ReportModel {
  std::string schema = kReportSchema;
  std::string tool_version;
  std::vector<ReportInput> inputs;
  // The device families of the run's profiles, as their readers set them: which rules apply and
  // which sections every output shows (report_sections). None for a report built by hand.
  DeviceFamilies families;
  // What the capture is (issue 89): devices, frameworks, workload, phases, decided once by the
  // analysis (a rule file's `capture:` and --workload override it); the rules' advice and every
  // renderer's words follow it.
  CaptureProfile capture;
  // The capture in one line, the first screen's (capture_line): set with `capture`.
  std::string capture_line;
  // The capture's words for the outputs' fixed terms, set with the gate's findings.
  CaptureTerms terms;
  ReportSettings settings;
  MetricValues metrics;           // the run's
  std::vector<ReportStep> steps;  // the run's window steps
  std::optional<ReportInferredIterations> inferred_iterations;
  std::vector<ReportGpu> gpus;  // every GPU of every worker
  std::vector<ReportWorker> workers;
  std::vector<ReportTable> tables;  // the run's: "ranks", "op_deltas", "kernel_deltas"
  // About the run as a whole, which every output shows: files of a run folder skipped, workers that
  // are not one capture (GPU models, world sizes, clocks, times), ranks missing from the world size.
  std::vector<Note> run_warnings;
  std::vector<ReportNote> warnings;  // what the readers and analyses noticed, then the gate's inputs

  // Report invariants the run's metrics and tables broke: each number withheld, and the assumption
  // in doubt (common/invariant_catalog.def); each report's "Data quality".
  std::vector<InvariantViolation> invariants;
  std::optional<ReportBaseline> baseline;
  std::vector<ReportFinding> findings;  // one per enabled rule, in rule order
  std::vector<ReportRule> rules;        // every rule, enabled or not
  std::optional<ReportVerdict> verdict;
  // The matrix work whose FLOPs are not modelled, largest first: "vllm::moe_forward (42.0% of the
  // matrix work's time)"; empty when all of it is (compute.flops_coverage_pct).
  std::string largest_unmodelled_op;

  std::optional<double> metric(Metric id) const { return metrics.get(id); }  // the run's; empty: n/a
};

// The capture profile in one line: "AMD Instinct MI300X ×8 · PyTorch + vLLM · inference serving ·
// steady state 97% of the window"; a field the trace cannot tell is left out ("capture unknown"
// where none is known).
std::string capture_line(const CaptureProfile& capture);

const ReportTable* find_table(const std::vector<ReportTable>& tables, std::string_view name);
const ReportTable* find_table(const std::vector<ReportTable>& tables, Table table);
// A table as common/table_catalog.def declares it, with no rows: its name, title, description
// and columns, its texts worded for how the changes are counted (delta tables). Its columns are
// made once for each table and wording, and shared by every table made from them.
ReportTable declared_table(Table table, TableWording wording = {});
// The recent trend of `metric` in a history baseline, or nullptr.
const ReportMetricTrend* find_trend(const ReportModel& report, std::string_view metric);
// The cell of `row` in the column named `column`, or nullptr.
const ReportCell* find_cell(const ReportTable& table, std::size_t row, std::string_view column);
// A cell as a number: numbers, and true/false as 1/0; empty for text and missing values.
std::optional<double> cell_number(const ReportCell& cell);

// The sections of a summary that depend on the run's device families, chosen in one table
// (report_model.cpp) for every renderer: a section that would read n/a throughout is left out.
enum class FamilySection : std::uint8_t {
  NeuronWindow,      // the window as the Neuron profiles state it: a run of Neuron profiles alone
  NeuronFirst,       // the page opens with the Neuron device sections: a run of Neuron profiles alone
  WorkerLines,       // a summary line per worker (a Neuron run lists its profiles itself)
  GpuSummary,        // the GPU, breakdown, Tensor Core and resource lines; the GPU key metrics
  NeuronKeyMetrics,  // the Neuron key metrics in place of the GPU's: Neuron profiles and no GPU
};
bool shows(const ReportModel& report, FamilySection section);

}  // namespace perfgate
