// A worker's report section as a run folder of many ranks makes it (issue 78): the system table made
// from views of the worker's texts, the critical path's top ops written without fmt, and the
// declared tables copied from the ones made once.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "analyse/analysis.h"
#include "common/tables.h"
#include "report/build_report.h"
#include "report/run_tables.h"
#include "report_model/report.h"

namespace perfgate::testing {
namespace {

std::vector<std::string> texts(const ReportTable& table, std::size_t column) {
  std::vector<std::string> out;
  for (const auto& row : table.rows) out.push_back(std::get<std::string>(row.at(column)));
  return out;
}

ReportGpu gpu(std::string name, std::string compute_capability = "") {
  ReportGpu g;
  g.name = std::move(name);
  g.compute_capability = std::move(compute_capability);
  return g;
}

// GPUs of two models and one unnamed: a line per model in the order of their names, then what the
// trace states, each only where it is stated (no schema version, no trace name here).
TEST(WorkerSection, SystemTableCountsEachGpuModelInNameOrder) {
  ReportWorker report;
  report.input_path = "/runs/job/rank-3.json";
  report.gpus = {gpu("NVIDIA H100", "9.0"), gpu("NVIDIA A100"), gpu(""), gpu("NVIDIA H100")};
  report.system.trace_format = "kineto-json";
  report.system.rank = 3;
  report.system.world_size = 65536;
  report.system.distributed_backend = "nccl";
  report.system.attributes = {{"hostname", "node-17"}};
  std::vector<ReportTable> tables = worker_tables(WorkerAnalysis{}, report);
  const ReportTable* system = find_table(tables, Table::System);
  ASSERT_TRUE(system);
  EXPECT_EQ(texts(*system, 0),
            (std::vector<std::string>{"GPU", "GPU", "GPU", "compute capability", "framework", "trace file",
                                      "rank", "world size", "distributed backend", "hostname"}));
  EXPECT_EQ(texts(*system, 1),
            (std::vector<std::string>{"1 x NVIDIA A100", "2 x NVIDIA H100", "1 x unknown model", "9.0",
                                      "PyTorch (Kineto trace)", "/runs/job/rank-3.json", "3", "65536", "nccl",
                                      "node-17"}));
}

TEST(WorkerSection, SystemTableNamesAnotherFormatAsItIs) {
  ReportWorker report;
  report.system.trace_format = "nsys-sqlite";
  report.system.schema_version = "2";
  std::vector<ReportTable> tables = worker_tables(WorkerAnalysis{}, report);
  const ReportTable* system = find_table(tables, Table::System);
  ASSERT_TRUE(system);
  EXPECT_EQ(texts(*system, 0), (std::vector<std::string>{"framework", "trace schema version"}));
  EXPECT_EQ(texts(*system, 1), (std::vector<std::string>{"nsys-sqlite", "2"}));
}

// Each op's time in whole µs, rounded as printf's "%.0f" (ties to even: 2.5 -> 2, 3.5 -> 4); each
// step's text its own, none of the previous one's left in it.
TEST(WorkerSection, TopOpsAreWrittenInWholeMicrosecondsRoundedAsPrintfDoes) {
  CriticalPathSums sums;
  sums.steps.resize(2);
  sums.steps[0].step = "ProfilerStep#1";
  sums.steps[0].top_ops = {{"sgemm_kernel", 1'234'567}, {"aten::mm", 3'500}, {"cudaLaunchKernel", 2'500}};
  sums.steps[1].step = "ProfilerStep#2";
  sums.steps[1].top_ops = {{"k", 499}};
  ReportTable table = critical_path_steps_table(sums);
  const ReportCell* first = find_cell(table, 0, "top_ops");
  const ReportCell* second = find_cell(table, 1, "top_ops");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(std::get<std::string>(*first),
            "sgemm_kernel (1235 us), aten::mm (4 us), cudaLaunchKernel (2 us)");
  EXPECT_EQ(std::get<std::string>(*second), "k (0 us)");
}

// Every table of the plain wording is the catalog's, and each copy is the caller's own: changing
// one changes no later table.
TEST(WorkerSection, DeclaredTablesAreTheCatalogsAndCopiesOfTheirOwn) {
  for (std::size_t i = 0; i < kTableCount; ++i) {
    auto id = static_cast<Table>(i);
    const TableInfo& info = table_info(id);
    ReportTable table = declared_table(id);
    EXPECT_EQ(table.name, info.name);
    EXPECT_EQ(table.title, info.title) << info.name;
    EXPECT_EQ(table.description, table_text(info.description, {})) << info.name;
    EXPECT_EQ(table.columns.size(), info.columns.size()) << info.name;
    EXPECT_TRUE(table.rows.empty()) << info.name;
    table.title += " (changed)";
    table.description.clear();
    table.rows.push_back({ReportCell{1.0}});
    ReportTable again = declared_table(id);
    EXPECT_EQ(again.title, info.title) << info.name;
    EXPECT_EQ(again.description, table_text(info.description, {})) << info.name;
    EXPECT_TRUE(again.rows.empty()) << info.name;
    EXPECT_TRUE(again.columns.shares(table.columns)) << info.name;
  }
}

}  // namespace
}  // namespace perfgate::testing
