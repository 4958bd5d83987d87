// The report stage: the report model (report_model/report.h) built from the analysis, then the
// baseline's changes, the gate's findings and verdict, a history's warnings and trends put in. It is
// the model's only writer: the gate reads the model and returns its findings (gate/gate.h), the
// history returns its trends (history/history.h), and this stage puts them in (the command line
// wires them: src/cli/pipeline.h, apply_gate).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "baseline/baseline.h"
#include "report_model/report.h"

namespace perfgate {

// The worker's tables and the run's ranks, as common/table_catalog.def declares them.
std::vector<ReportTable> worker_tables(const WorkerAnalysis& worker, const ReportWorker& report);
ReportTable ranks_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks);

// Needs no profile: the analysis carries what the report shows, so the events can be freed first.
// `rule_sources`: the rule files applied, base first (RuleSet::sources).
ReportModel build_report(const std::vector<ReportInput>& inputs, const RunAnalysis& analysis,
                         const std::vector<std::string>& rule_sources, const AnalysisOptions& options);
// The same, taking the analysis apart as the report is made: the run's tables first, then each
// worker's section takes its metrics and frees the rest of the worker (the list is empty after). A
// run of many workers holds each worker once rather than twice (issue 78). Where the spill file
// holds the workers (--max-memory), only each worker's tables but its collectives go, and the run's
// tables come last.
ReportModel build_report(const std::vector<ReportInput>& inputs, RunAnalysis&& analysis,
                         const std::vector<std::string>& rule_sources, const AnalysisOptions& options);

// The baseline's description, its metric changes and delta tables, and the warnings about it
// (another tool version, other GPUs), put into the report. The kernel time a TFLOP is stated only
// where both runs count FLOPs for at least `min_flops_coverage_pct` of their matrix work (rules:
// compute.mfu_min_flops_coverage_pct, as MFU).
void add_baseline(ReportModel& report, const Baseline& baseline, double min_flops_coverage_pct);

// What the gate returned (gate/gate.h, evaluate_gate), put into the report: its tables after the
// run's own (the delta tables); the capture's words for the outputs' fixed terms.
void add_gate(ReportModel& report, std::vector<ReportFinding> findings, std::vector<ReportRule> rules,
              ReportVerdict verdict, std::vector<ReportTable> tables = {}, CaptureTerms terms = {});

// The capture profile's fields that a rule file's `capture:` section or --workload set, in place of
// the analysis' (each listed in capture.overridden), and the one line again; before the gate runs,
// whose advice follows the profile.
void override_capture(ReportModel& report, const CaptureOverride& given);

// Warnings about the run that other stages found after the analysis (a history baseline with runs
// only on other GPUs), after the report's own.
void add_warnings(ReportModel& report, std::vector<Note> warnings);

// The recent values of the gated metrics in a history baseline (history/history.h,
// recent_trends), put next to the baseline; nothing without a baseline.
void add_recent_trends(ReportModel& report, std::vector<ReportMetricTrend> trends);

}  // namespace perfgate
