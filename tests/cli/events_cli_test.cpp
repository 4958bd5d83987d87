// perfgate events (issue 94): a run's events as JSON lines, each row where the analysis puts it (its
// step, its launching op), selected by kind and step; errors as analyze's.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <set>
#include <sstream>

#include "support/helpers.h"

namespace json = boost::json;

namespace perfgate::testing {
namespace {

// Three steps of 100 us: a matrix multiply launching `gemm` in the first, an add launching
// `add_kernel` in the second (running after its op ended), a relu without GPU work in the third.
// The options come before the trace: each takes one value.
std::string three_steps(std::int64_t& gemm_correlation) {
  TraceBuilder t;
  t.step(1, 0, 100).step(2, 100, 100).step(3, 200, 100);
  t.op("aten::mm", 10, 20, 11);
  gemm_correlation = t.launch("gemm", 15, 40, 30, 11);
  t.op("aten::add", 110, 10, 12);
  t.launch("add_kernel", 112, 130, 5, 12);
  t.op("aten::relu", 210, 10, 13);
  return t.write(temp_dir() + "/events.json");
}

struct Rows {
  std::vector<std::string> columns;
  std::vector<json::object> rows;
  std::int64_t end_rows = -1;
};

Rows rows_of(const std::string& out) {
  Rows r;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    json::value v = json::parse(line);
    if (v.is_array()) {
      json::object row;
      for (std::size_t i = 0; i < r.columns.size(); ++i) row[r.columns[i]] = v.as_array().at(i);
      r.rows.push_back(std::move(row));
    } else if (v.as_object().contains("columns")) {
      for (const json::value& c : v.at("columns").as_array()) r.columns.emplace_back(c.as_string());
    } else if (v.as_object().contains("end")) {
      r.end_rows = v.at("end").at("rows").as_int64();
    }
  }
  return r;
}

TEST(EventsCli, RowsInTheirStepsWithTheirOps) {
  std::int64_t gemm = 0;
  std::string trace = three_steps(gemm);
  CommandResult all = run_perfgate("events " + trace);
  ASSERT_EQ(all.exit_code, 0) << all.out;
  Rows r = rows_of(all.out);
  // 3 step annotations, 3 ops, 2 launch calls, 2 kernels; the last line counts them.
  ASSERT_EQ(r.rows.size(), 10u) << all.out;
  EXPECT_EQ(r.end_rows, 10);
  std::map<std::string, json::object> by_name;
  for (const json::object& row : r.rows) by_name[std::string(row.at("name").as_string())] = row;
  const json::object& kernel = by_name.at("gemm");
  EXPECT_EQ(kernel.at("kind"), "kernel");
  EXPECT_EQ(kernel.at("step"), 1);
  EXPECT_EQ(kernel.at("op"), "aten::mm");
  EXPECT_EQ(kernel.at("correlation"), gemm);
  EXPECT_EQ(kernel.at("stream"), 7);
  EXPECT_EQ(kernel.at("start_us").to_number<double>(), 40.0);
  EXPECT_EQ(kernel.at("duration_us").to_number<double>(), 30.0);
  EXPECT_EQ(kernel.at("in_window"), true);
  EXPECT_TRUE(kernel.at("bytes").is_null());
  // A kernel that runs after its op ended is still its launching call's step and op.
  EXPECT_EQ(by_name.at("add_kernel").at("step"), 2);
  EXPECT_EQ(by_name.at("add_kernel").at("op"), "aten::add");
  EXPECT_EQ(by_name.at("aten::add").at("op"), "ProfilerStep#2");  // a host range: its enclosing range
  EXPECT_EQ(by_name.at("aten::add").at("external_id"), 12);
  // A trailing step that launched no GPU work is dropped, as the analysis drops it (steps.cpp): its
  // events belong to no step.
  EXPECT_EQ(by_name.at("ProfilerStep#3").at("kind"), "annotation");
  EXPECT_TRUE(by_name.at("ProfilerStep#3").at("step").is_null());
  EXPECT_TRUE(by_name.at("aten::relu").at("step").is_null());
  EXPECT_TRUE(by_name.at("aten::relu").at("device").is_null());
}

TEST(EventsCli, KindAndStepSelect) {
  std::int64_t gemm = 0;
  std::string trace = three_steps(gemm);
  Rows kernels = rows_of(run_perfgate("events --kind kernel " + trace).out);
  ASSERT_EQ(kernels.rows.size(), 2u);
  EXPECT_EQ(kernels.rows[0].at("name"), "gemm");
  EXPECT_EQ(kernels.rows[1].at("name"), "add_kernel");
  Rows step2 = rows_of(run_perfgate("events --step 2 " + trace).out);
  std::set<std::string> names;
  for (const json::object& row : step2.rows) names.insert(std::string(row.at("name").as_string()));
  EXPECT_EQ(names, (std::set<std::string>{"ProfilerStep#2", "aten::add", "cudaLaunchKernel", "add_kernel"}));
  // --skip-first leaves step 1 out of the window, not out of the rows.
  Rows skipped = rows_of(run_perfgate("events --kind kernel --skip-first 1 " + trace).out);
  ASSERT_EQ(skipped.rows.size(), 2u);
  EXPECT_EQ(skipped.rows[0].at("in_window"), false);
  EXPECT_EQ(skipped.rows[1].at("in_window"), true);
}

TEST(EventsCli, ErrorsAsAnalyzes) {
  std::string missing = temp_dir() + "/no-such-trace.json";
  CommandResult gone = run_perfgate("events " + missing);
  EXPECT_EQ(gone.exit_code, 3);
  EXPECT_NE(gone.out.find(missing), std::string::npos) << gone.out;
  std::int64_t gemm = 0;
  CommandResult kind = run_perfgate("events --kind kernels " + three_steps(gemm));
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.out.find("--kind"), std::string::npos) << kind.out;
}

}  // namespace
}  // namespace perfgate::testing
