// The report stage: the report model (perfgate/report.h) built from the analysis, then the
// baseline's changes and the rules' findings and verdict put in. Nothing is written back into a
// model that a stage read: the rules read the model and return their findings (perfgate/gate.h),
// and this stage takes them (the pipeline wires the two: src/cli/pipeline.h, apply_gate).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfgate/analysis.h"
#include "perfgate/baseline.h"
#include "perfgate/report.h"

namespace perfgate {

// The worker's tables, and every table's columns with no rows (for documentation).
std::vector<ReportTable> worker_tables(const WorkerAnalysis& worker, const ReportWorker& report);
ReportTable ranks_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks);
const std::vector<ReportTable>& table_schemas();  // built once

// Needs no profile: the analysis carries what the report shows, so the events can be freed first.
// `rule_sources`: the rule files applied, base first (RuleSet::sources).
ReportModel build_report(const std::vector<ReportInput>& inputs, const RunAnalysis& analysis,
                         const std::vector<std::string>& rule_sources, const AnalysisOptions& options);
// The same, freeing each worker's analysis tables as soon as they are report tables: a run of many
// workers holds its tables once rather than twice. Only the collectives rows are kept (the run's
// collectives by rank are made after the workers).
ReportModel build_report(const std::vector<ReportInput>& inputs, RunAnalysis&& analysis,
                         const std::vector<std::string>& rule_sources, const AnalysisOptions& options);

// The baseline's description, its metric changes and delta tables, and the warnings about it
// (another tool version, other GPUs), put into the report.
void add_baseline(ReportModel& report, const Baseline& baseline);

// What the gate returned (perfgate/gate.h, evaluate_gate), put into the report.
void add_gate(ReportModel& report, std::vector<ReportFinding> findings, std::vector<ReportRule> rules,
              ReportVerdict verdict);

}  // namespace perfgate
