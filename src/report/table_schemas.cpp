// Every table of the report with its columns and no rows: made by the builders themselves from
// empty analyses, so that the schemas are the tables' own (perfgate metrics --tables, the docs, and
// the gate's rule-file checks through a build step: tools/table_schemas.cpp).
#include "perfgate/analysis.h"
#include "perfgate/baseline.h"
#include "perfgate/build_report.h"
#include "report/neuron_report_tables.h"
#include "report/run_tables.h"

namespace perfgate {
namespace {

std::vector<ReportTable> build_table_schemas() {
  WorkerAnalysis empty;
  // A compiled kernel's row, so that the ops and kernels tables have every column (with_fused_columns).
  OpRow op;
  op.fused_ops = "add";
  KernelRow kernel;
  kernel.fused_ops = "add";
  empty.tables.ops = empty.tables.ops_by_shape = {op};
  empty.tables.kernels = empty.tables.kernels_by_op = {kernel};
  ReportWorker report;
  std::vector<ReportTable> tables = worker_tables(empty, report);
  for (ReportTable& t : tables) t.rows.clear();
  for (ReportTable& t : neuron_report_tables(NeuronTables{})) tables.push_back(std::move(t));
  tables.push_back(ranks_table(RunAnalysis{}, {}));
  tables.push_back(rank_collectives_table(RunAnalysis{}, {}));
  for (ReportTable& t : collective_tables(RunAnalysis{}, {})) tables.push_back(std::move(t));
  for (ReportTable& t : job_critical_path_tables(RunAnalysis{}, {})) tables.push_back(std::move(t));
  for (ReportTable& t : run_sum_tables(RunTables{})) tables.push_back(std::move(t));
  // The deltas as they usually are, per window step: both runs have a step.
  ReportModel stepped;
  stepped.steps.push_back(ReportStep{});
  Baseline baseline;
  baseline.info.steps = 1;
  for (ReportTable& t : delta_tables(stepped, baseline)) tables.push_back(std::move(t));
  return tables;
}

}  // namespace

const std::vector<ReportTable>& table_schemas() {
  static const std::vector<ReportTable> schemas = build_table_schemas();  // built once
  return schemas;
}

}  // namespace perfgate
