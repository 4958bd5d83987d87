// A run of more workers than --detailed-workers: which workers keep every table, what the others
// keep, and the run's tables of all workers, which baselines read.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <fmt/format.h>
#include <boost/json/parse.hpp>

#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

// Per-step extra time of each worker (x 100 us; odd ones also run a 100 us GEMM): rank-3 is the
// slowest, rank-2 the fastest.
const std::vector<double> kExtra = {3, 5, 1, 9, 4, 2};

std::string run_folder() {
  static const std::string dir = [] {
    std::string d = temp_dir();
    for (std::size_t i = 0; i < kExtra.size(); ++i) {
      TrainingRun run;
      run.extra_us = std::vector<double>(static_cast<std::size_t>(run.steps), 100 * kExtra[i]);
      run.misaligned_gemm = i % 2 == 1;  // a kernel some workers have and others not
      run.dataloader_us = 50;
      run.dataloader_annotation = true;  // a user region
      write_text(fmt::format("{}/rank-{}.pt.trace.json", d, i), training_trace(run));
    }
    return d;
  }();
  return dir;
}

json::object report(const std::string& args) {
  std::string out = temp_dir() + "/report.json";
  CommandResult r =
      run_perfgate(fmt::format("analyze {} {} --fail-on never -q --json {}", run_folder(), args, out));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return json::parse(read_text(out)).as_object();
}

std::vector<std::string> column_names(const json::object& table) {
  std::vector<std::string> names;
  for (const json::value& c : table.at("columns").as_array())
    names.emplace_back(c.as_object().at("name").as_string());
  return names;
}

// A table's rows as column name -> cell.
std::vector<std::map<std::string, json::value>> rows_of(const json::object& table) {
  std::vector<std::string> names = column_names(table);
  std::vector<std::map<std::string, json::value>> rows;
  for (const json::value& row : table.at("rows").as_array()) {
    std::map<std::string, json::value> cells;
    for (std::size_t c = 0; c < names.size(); ++c) cells[names[c]] = row.as_array().at(c);
    rows.push_back(std::move(cells));
  }
  return rows;
}

double number(const json::value& v) {
  return v.is_int64() ? static_cast<double>(v.as_int64()) : v.as_double();
}

TEST(DetailedWorkers, TheFirstTheSlowestAndTheFastestKeepEveryTable) {
  json::object r = report("--detailed-workers 3");
  std::vector<std::string> whole;
  for (const json::value& v : r.at("workers").as_array()) {
    const json::object& w = v.as_object();
    std::string name(w.at("name").as_string());
    std::set<std::string> tables;
    for (const auto& t : w.at("tables").as_object()) tables.insert(std::string(t.key()));
    if (w.at("detailed").as_bool()) {
      whole.push_back(name + ": " + std::string(w.at("detailed_as").as_string()));
      EXPECT_TRUE(tables.count("ops") && tables.count("kernels") && tables.count("timeline")) << name;
    } else {
      EXPECT_FALSE(w.contains("detailed_as")) << name;
      // Its system and GPUs are its "system" and the run's "gpus".
      EXPECT_EQ(tables,
                (std::set<std::string>{"iterations", "step_breakdown", "collectives", "critical_path"}))
          << name;
      EXPECT_EQ(w.at("steps").as_array().size(), 8u) << name << " keeps its steps";
      EXPECT_FALSE(w.at("metrics").as_object().at("gpu.utilization_pct").is_null()) << name;
    }
  }
  EXPECT_EQ(whole, (std::vector<std::string>{"rank-0: first", "rank-2: fastest", "rank-3: slowest"}));
  // The ranks table says which.
  std::vector<std::string> said;
  for (const auto& row : rows_of(r.at("tables").at("ranks").as_object()))
    said.emplace_back(row.at("tables").as_string());
  EXPECT_EQ(said, (std::vector<std::string>{"whole (first)", "summary", "whole (fastest)", "whole (slowest)",
                                            "summary", "summary"}));
}

TEST(DetailedWorkers, WhereEveryWorkerKeepsItsTablesTheRanksTableSaysNothingOfIt) {
  json::object r = report("");  // 6 workers, 8 by default
  for (const json::value& w : r.at("workers").as_array()) EXPECT_TRUE(w.as_object().at("detailed").as_bool());
  std::vector<std::string> columns = column_names(r.at("tables").at("ranks").as_object());
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "tables"), 0);
}

// The run's ops, kernels and regions are every worker's, summed here from the tables of a report
// that keeps them all; whether the workers keep their tables does not change them.
TEST(DetailedWorkers, TheRunTablesSumEveryWorkersTables) {
  json::object all = report("--detailed-workers 0");
  json::object trimmed = report("--detailed-workers 2");
  for (const char* name : {"ops", "kernels", "regions"}) {
    std::string time = std::string(name) == "ops"       ? "device_self_us"
                       : std::string(name) == "kernels" ? "total_us"
                                                        : "gpu_us";
    std::map<std::string, std::array<double, 3>> sums;  // workers, calls, time
    for (const json::value& w : all.at("workers").as_array())
      for (const auto& row : rows_of(w.as_object().at("tables").at(name).as_object())) {
        auto& s = sums[std::string(row.at("name").as_string())];
        s[0] += 1;
        s[1] += number(row.at("calls"));
        s[2] += number(row.at(time));
      }
    ASSERT_FALSE(sums.empty()) << name;
    for (const json::object* report : {&all, &trimmed}) {
      auto rows = rows_of(report->at("tables").at(std::string("run_") + name).as_object());
      ASSERT_EQ(rows.size(), sums.size()) << name;
      for (const auto& row : rows) {
        const auto& s = sums.at(std::string(row.at("name").as_string()));
        EXPECT_EQ(number(row.at("workers")), s[0]) << name;
        EXPECT_EQ(number(row.at("calls")), s[1]) << name;
        EXPECT_NEAR(number(row.at(time)), s[2], 1e-6 * s[2]) << name;
      }
    }
  }
  // The misaligned GEMM's kernel is in half of the workers.
  bool found = false;
  for (const auto& row : rows_of(trimmed.at("tables").at("run_kernels").as_object()))
    if (number(row.at("workers")) == 3) found = true;
  EXPECT_TRUE(found);
}

// A baseline from a report that kept two workers' tables compares all six: the same run against
// it changes no op, kernel or region.
TEST(DetailedWorkers, ABaselineReadsTheRunTables) {
  std::string dir = temp_dir();
  std::string base = dir + "/base.json", now = dir + "/now.json";
  CommandResult b = run_perfgate(
      fmt::format("analyze {} --detailed-workers 2 --fail-on never -q --json {}", run_folder(), base));
  ASSERT_EQ(b.exit_code, 0) << b.out;
  CommandResult r = run_perfgate(fmt::format(
      "analyze {} --detailed-workers 0 --baseline {} --fail-on never -q --json {}", run_folder(), base, now));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json::object report = json::parse(read_text(now)).as_object();
  for (const char* name : {"op_deltas", "kernel_deltas", "region_deltas"}) {
    const json::object& table = report.at("tables").at(name).as_object();
    auto rows = rows_of(table);
    ASSERT_FALSE(rows.empty()) << name;
    for (const auto& row : rows)
      for (const auto& [column, cell] : row)
        if (column.starts_with("delta") && !cell.is_null()) {
          EXPECT_NEAR(number(cell), 0, 1e-6) << name << " " << column << " " << row.at("name").as_string();
        }
  }
}

TEST(DetailedWorkers, TheLimitIsANumber) {
  CommandResult r = run_perfgate("analyze x.json --detailed-workers some");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--detailed-workers"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace perfgate::testing
