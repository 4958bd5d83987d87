// The report's tables are declared once (common/table_catalog.def). Each builder is checked
// against its table's declaration as it compiles (report/table_columns.h, declared<>); here every
// table the report stage and the baseline's deltas build is the declared one: in the declaration's
// order, with its name, title, description and columns, every row as wide as its columns.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "analyse/analysis.h"
#include "baseline/baseline.h"
#include "common/tables.h"
#include "gate/path_difference.h"
#include "report/build_report.h"
#include "report/neuron_report_tables.h"
#include "report/run_tables.h"

namespace perfgate::testing {
namespace {

// A worker with a row in each table of ops and kernels that is a compiled kernel's: their optional
// columns (fused_ops, fused_as) are there.
WorkerAnalysis fused_worker() {
  WorkerAnalysis w;
  OpRow op;
  op.name = "triton_poi_fused_add_0";
  op.fused_ops = "add";
  KernelRow kernel;
  kernel.name = "triton_poi_fused_add_0";
  kernel.fused_ops = "add";
  w.tables.ops = w.tables.ops_by_shape = {op};
  w.tables.kernels = w.tables.kernels_by_op = {kernel};
  // A path per inferred unit (a window without steps that repeats a unit): its two tables.
  CriticalPathStep unit;
  unit.step = "layer.0";
  w.critical_path.units = {unit};
  w.critical_path.unit_ops = {{CriticalPathOpRow{"aten::mm", PathBound::Cpu, 1000, 1, 1}}};
  return w;
}

// A Neuron profile's tables with one row each.
NeuronTables neuron_rows() {
  NeuronTables t;
  t.ops.resize(1);
  t.engines.resize(1);
  t.dma_queues.resize(1);
  t.layers.resize(1);
  t.notes.resize(1);
  t.throttles.resize(1);
  t.buffers.resize(1);
  t.memory.resize(1);
  t.timeline.resize(1);
  t.timeline_lanes = {"qSyncIO"};
  return t;
}

// A run of two workers, one keeping a summary only: the ranks table's optional column is there.
RunAnalysis summarised_run() {
  RunAnalysis run;
  run.workers.resize(2);
  run.workers[0].worker = "rank-0";
  run.workers[1].worker = "rank-1";
  run.workers[1].detailed = false;
  return run;
}

// A baseline with an op, a region, a kernel and a memory site that this run no longer has: every
// delta table has a row, and "changes" lists them as faster.
Baseline baseline_with_rows() {
  Baseline b;
  b.info.steps = 1;
  b.ops = {{"aten::mm", 100, 20, 2}};
  b.regions = {{"forward", 30, 120, 1}};
  b.kernels = {{"sgemm", 100, 0, 2}};
  b.memory_sites = {{"train.py:10", 4e6}};
  return b;
}

// Every table, in the declaration's order.
std::vector<ReportTable> every_table() {
  std::vector<ReportTable> tables = worker_tables(fused_worker(), ReportWorker{});
  RunAnalysis run = summarised_run();
  tables.push_back(memory_snapshots_table(run));  // declared after the snapshot's own tables
  for (ReportTable& t : neuron_report_tables(neuron_rows())) tables.push_back(std::move(t));
  std::vector<std::int64_t> ranks = {0, 1};
  tables.push_back(ranks_table(run, ranks));
  tables.push_back(neuron_ranks_table(run, ranks));
  tables.push_back(rank_collectives_table(run, ranks));
  for (ReportTable& t : collective_tables(run, ranks)) tables.push_back(std::move(t));
  for (ReportTable& t : job_critical_path_tables(run, ranks)) tables.push_back(std::move(t));
  for (ReportTable& t : run_sum_tables(RunTables{})) tables.push_back(std::move(t));
  // The deltas as they usually are, per window step: both runs have a step.
  ReportModel stepped;
  stepped.steps.push_back(ReportStep{});
  for (ReportTable& t : delta_tables(stepped, baseline_with_rows())) tables.push_back(std::move(t));
  // The gate's: the step along the critical path as a waterfall.
  PathDifference path;
  path.baseline_length_us = 9000;
  path.length_us = 10000;
  path.baseline_off_us = 1000;
  path.off_us = 2500;
  path.bounds = {{"host ops and runtime calls", 900, 2000}};
  tables.push_back(critical_path_changes(path));
  return tables;
}

void expect_declared(const ReportTable& built, const TableInfo& declared, TableWording wording) {
  EXPECT_EQ(built.name, declared.name);
  EXPECT_EQ(built.title, declared.title) << built.name;
  EXPECT_EQ(built.description, table_text(declared.description, wording)) << built.name;
  // An optional column (only the last ones) may be left out.
  std::size_t required = 0;
  while (required < declared.columns.size() && !declared.columns[required].optional) ++required;
  ASSERT_GE(built.columns.size(), required) << built.name;
  ASSERT_LE(built.columns.size(), declared.columns.size()) << built.name;
  for (std::size_t c = 0; c < built.columns.size(); ++c) {
    EXPECT_EQ(built.columns[c].name, column_name(declared.columns[c].name, wording.basis))
        << built.name << " column " << c;
    EXPECT_EQ(built.columns[c].unit, declared.columns[c].unit) << built.name << " " << built.columns[c].name;
    EXPECT_EQ(built.columns[c].description, table_text(declared.columns[c].description, wording))
        << built.name << " " << built.columns[c].name;
  }
  for (const auto& row : built.rows) EXPECT_EQ(row.size(), built.columns.size()) << built.name;
}

TEST(TableCatalog, EveryBuiltTableIsTheDeclaredOne) {
  std::vector<ReportTable> built = every_table();
  std::span<const TableInfo> catalog = table_catalog();
  ASSERT_EQ(built.size(), catalog.size());
  for (std::size_t t = 0; t < catalog.size(); ++t)
    expect_declared(built[t], catalog[t], {.per_item = kChangesPerItem});
  // Not two empty lists: the report has some fifty tables, and the positional builders made rows.
  EXPECT_GT(catalog.size(), 50u);
  for (Table id : {Table::NeuronOps, Table::NeuronLayers, Table::NeuronBuffers, Table::NeuronRanks,
                   Table::StepTimeDeltas, Table::OpDeltas, Table::Changes, Table::MemorySiteDeltas})
    EXPECT_FALSE(built[table_position(id)].rows.empty()) << table_name(id);
}

// Where a run has no steps the delta tables count over each run's whole window, and say so in their
// texts and their columns' names (issue 74: they said "_per_step" in a run without steps).
TEST(TableCatalog, TheDeltaTablesSayHowTheyCount) {
  Baseline baseline = baseline_with_rows();
  baseline.info.steps = 0;
  std::vector<ReportTable> deltas = delta_tables(ReportModel{}, baseline);
  ASSERT_EQ(deltas.size(), 6u);
  for (std::size_t i = 0; i < deltas.size(); ++i)
    expect_declared(deltas[i], table_info(static_cast<Table>(table_position(Table::StepTimeDeltas) + i)),
                    {.basis = ChangeBasis::Window, .per_item = kChangesPerItem});
  const ReportTable* ops = find_table(deltas, Table::OpDeltas);
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->description,
            "Ops by name, over each run's whole window (no steps or matched units align the runs); largest "
            "regression first (GPU plus host self time)");
  EXPECT_EQ(ops->columns[2].name, "baseline_gpu_us_per_window");
  EXPECT_EQ(ops->columns[2].description, "Baseline: GPU time the op launched itself, over the whole window");
  EXPECT_EQ(ops->columns[4].description,
            "Change over the whole window: gpu_us_per_window - baseline_gpu_us_per_window");
  // The code and the rules look the column up by its declared name.
  ASSERT_FALSE(ops->rows.empty());
  EXPECT_NE(find_cell(*ops, 0, table_column(Table::OpDeltas, "delta_gpu_us_per_step")), nullptr);
  EXPECT_TRUE(names_column("delta_us_per_unit", "delta_us_per_step"));
  EXPECT_FALSE(names_column("delta_us_per_unit", "delta_us"));
  EXPECT_FALSE(names_column("us_per_window", "delta_us_per_step"));
  EXPECT_NE(find_table(deltas, Table::Changes)->description.find("at most 5 of each kind"),
            std::string::npos);
}

// The optional columns are the last ones, left out where no row has them: a table of ops or kernels
// without compiled kernels, the ranks of a run whose workers all keep their tables.
TEST(TableCatalog, OptionalColumnsAreLeftOutWhereNoRowHasThem) {
  WorkerAnalysis plain;
  plain.tables.ops = plain.tables.ops_by_shape = {OpRow{}};
  plain.tables.kernels = plain.tables.kernels_by_op = {KernelRow{}};
  std::vector<ReportTable> tables = worker_tables(plain, ReportWorker{});
  RunAnalysis run;
  run.workers.resize(1);
  tables.push_back(ranks_table(run, {0}));
  for (Table id : {Table::Ops, Table::OpsByShape, Table::Kernels, Table::KernelsByOp, Table::Ranks}) {
    const ReportTable* t = find_table(tables, id);
    ASSERT_NE(t, nullptr) << table_name(id);
    std::vector<std::string_view> kept;
    for (const ColumnInfo& c : table_info(id).columns)
      if (!c.optional) kept.push_back(c.name);
    ASSERT_EQ(t->columns.size(), kept.size()) << table_name(id);
    EXPECT_LT(kept.size(), table_info(id).columns.size()) << table_name(id);
    for (std::size_t c = 0; c < kept.size(); ++c) EXPECT_EQ(t->columns[c].name, kept[c]);
    for (const auto& row : t->rows) EXPECT_EQ(row.size(), kept.size()) << table_name(id);
  }
}

// Issue 78: each table kept a copy of its declared columns (names, units, descriptions), so a run
// folder's ranks held about 11 kB each of them. The tables two workers' analyses make share one
// declaration now; a table worded for another basis has its own, and one that adds a column copies.
TEST(TableCatalog, TablesMadeFromADeclarationShareItsColumns) {
  WorkerAnalysis one, other;
  one.tables.ops = {OpRow{}};
  other.tables.ops = {OpRow{}, OpRow{}};
  std::vector<ReportTable> first = worker_tables(one, ReportWorker{});
  std::vector<ReportTable> second = worker_tables(other, ReportWorker{});
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t t = 0; t < first.size(); ++t)
    EXPECT_TRUE(first[t].columns.shares(second[t].columns)) << first[t].name;
  ReportTable steps = declared_table(Table::OpDeltas);
  ReportTable windows = declared_table(Table::OpDeltas, {.basis = ChangeBasis::Window});
  EXPECT_TRUE(steps.columns.shares(declared_table(Table::OpDeltas).columns));
  EXPECT_FALSE(steps.columns.shares(windows.columns));
  EXPECT_EQ(windows.columns[2].name, "baseline_gpu_us_per_window");
  ReportTable more = steps;
  more.columns.push_back({"extra", "", ""});
  EXPECT_FALSE(more.columns.shares(steps.columns));
  EXPECT_EQ(more.columns.size(), steps.columns.size() + 1);
  EXPECT_EQ(more.columns[steps.columns.size()].name, "extra");
  EXPECT_EQ(declared_table(Table::OpDeltas).columns.size(), steps.columns.size());
}

// A worker past --detailed-workers has only the tables every worker keeps, in their order and with
// the rows a detailed worker's have; the others are not built for it (issue 78: they were most of
// the report's cost in a folder of many small ranks).
TEST(TableCatalog, AWorkerPastTheDetailedOnesHasTheTablesOfEveryWorker) {
  WorkerAnalysis whole = fused_worker();
  whole.tables.iterations.resize(2);
  whole.tables.collectives.resize(1);
  whole.critical_path.steps.resize(2);
  ReportWorker report;
  report.gpus.resize(1);
  report.system.trace_format = "kineto-json";
  WorkerAnalysis summary = whole;
  summary.detailed = false;
  std::vector<ReportTable> all = worker_tables(whole, report);
  std::vector<ReportTable> kept = worker_tables(summary, report);
  std::vector<std::string> names;
  for (const ReportTable& t : kept) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"system", "gpus", "iterations", "step_breakdown", "collectives",
                                             "critical_path"}));
  for (const ReportTable& t : kept) {
    const ReportTable* same = find_table(all, *table_id(t.name));
    ASSERT_NE(same, nullptr) << t.name;
    EXPECT_EQ(t.rows, same->rows) << t.name;
    EXPECT_EQ(t.columns.size(), same->columns.size()) << t.name;
    EXPECT_FALSE(t.rows.empty()) << t.name;
  }
}

TEST(TableCatalog, IdsNamesAndColumnsAgree) {
  std::set<std::string_view> names;
  for (const TableInfo& t : table_catalog()) {
    EXPECT_EQ(table_name(t.id), t.name);
    EXPECT_EQ(&table_info(t.id), &t);
    std::set<std::string_view> columns;
    ASSERT_EQ(table_column_names(t.id).size(), t.columns.size()) << t.name;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      EXPECT_EQ(table_column_names(t.id)[c], t.columns[c].name);
      EXPECT_TRUE(columns.insert(t.columns[c].name).second) << t.name << " repeats " << t.columns[c].name;
      EXPECT_FALSE(t.columns[c].description.empty()) << t.name << " " << t.columns[c].name;
    }
    // A name is the first table's of that name; only `ranks` is two tables' (a run's workers, or its
    // Neuron profiles).
    EXPECT_EQ(table_id(t.name), names.insert(t.name).second ? t.id : Table::Ranks) << t.name;
  }
  EXPECT_EQ(table_id("ranks"), Table::Ranks);
  EXPECT_EQ(table_id("rank"), std::nullopt);
  static_assert(table_column(Table::Ops, "device_self_us") == "device_self_us");
  static_assert(table_name(Table::TopGpuOps) == "top_gpu_ops");
}

TEST(TableCatalog, TextsLeftOpenAreFilledIn) {
  EXPECT_EQ(table_text("a {per step}, b {per window step}: {per item}", {.per_item = 5}),
            "a per step, b per window step: 5");
  EXPECT_EQ(table_text("{per step} {per step}", {.basis = ChangeBasis::Window}),
            "over the whole window over the whole window");
  EXPECT_EQ(table_text("{per step}: us_per_step", {.basis = ChangeBasis::Unit}), "per unit: us_per_unit");
  EXPECT_EQ(column_name("calls_per_step", ChangeBasis::Unit), "calls_per_unit");
  EXPECT_EQ(column_name("calls", ChangeBasis::Window), "calls");
  EXPECT_EQ(table_text("no braces", {}), "no braces");
}

}  // namespace
}  // namespace perfgate::testing
