// Issue 92, item 2: a baseline's tables are read to --max-rows rows each as they stream in, and the
// comparison tables are cut there too, as every other table. A JSON baseline of 1,000,000 op rows
// took 47 s of CPU and 2.26 GB and made op_deltas and step_time_deltas of 1,000,072 rows each.
#include <gtest/gtest.h>

#include <string>

#include <boost/json.hpp>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// The rows of each table named `name` anywhere in a JSON report.
void tables_named(const boost::json::value& v, std::string_view name,
                  std::vector<const boost::json::array*>& out) {
  if (const auto* o = v.if_object()) {
    for (const auto& [key, value] : *o) {
      if (key == name && value.is_object() && value.as_object().contains("rows"))
        out.push_back(&value.as_object().at("rows").as_array());
      tables_named(value, name, out);
    }
  } else if (const auto* a = v.if_array()) {
    for (const auto& item : *a) tables_named(item, name, out);
  }
}

// One step of 4 ops (op0..op3) in `dir`/`name`, and its JSON report written as `dir`/base.json; the
// trace's path.
std::string four_ops_and_their_report(const std::string& dir, const std::string& name) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  for (int i = 0; i < 4; ++i) t.op("op" + std::to_string(i), 10 + 200.0 * i, 100 + i);
  std::string trace = t.write(dir + "/" + name);
  EXPECT_EQ(run_perfgate("analyze " + trace + " -q --json " + dir + "/base.json").exit_code, 0);
  return trace;
}

// The baseline: one step of 4 ops, its JSON report forged with 20,000 more op rows in every ops
// table (each a copy of the first, renamed "forged N"). This run: one step of 60 other ops. At
// --max-rows 50 the baseline is read to 50 rows (its 4 ops and 46 forged ones) and this run keeps 50
// ops: 100 ops to compare, cut to the 50 largest changes and "(50 more)"; step_time_deltas, each op's
// GPU and host time, the same.
TEST(ForgedBaseline, ItsTablesAndTheComparisonAreCutAtMaxRows) {
  std::string dir = temp_dir();
  four_ops_and_their_report(dir, "before.json");
  boost::json::value base = boost::json::parse(read_text(dir + "/base.json"));
  std::vector<const boost::json::array*> ops;
  tables_named(base, "ops", ops);
  ASSERT_FALSE(ops.empty());
  for (const boost::json::array* rows : ops) {
    auto& forged = const_cast<boost::json::array&>(*rows);
    ASSERT_FALSE(forged.empty());
    boost::json::array first = forged.front().as_array();
    for (int i = 0; i < 20'000; ++i) {
      boost::json::array row = first;
      row[0] = "forged " + std::to_string(i);
      forged.push_back(row);
    }
  }
  write_text(dir + "/forged.json", boost::json::serialize(base));
  TraceBuilder now;
  now.step(1, 0, 10'000);
  for (int i = 0; i < 60; ++i) now.op("new" + std::to_string(i), 10 + 150.0 * i, 100 + i);
  std::string trace = now.write(dir + "/now.json");

  CommandResult r = run_perfgate("analyze " + trace + " -q --max-rows 50 --baseline " + dir +
                                 "/forged.json --json " + dir + "/r.json --xlsx " + dir + "/r.xlsx");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out;
  std::string json = read_text(dir + "/r.json");
  boost::json::value report = boost::json::parse(json);
  for (const char* table : {"op_deltas", "step_time_deltas"}) {
    SCOPED_TRACE(table);
    std::vector<const boost::json::array*> found;
    tables_named(report, table, found);
    ASSERT_FALSE(found.empty());
    for (const boost::json::array* rows : found) {
      EXPECT_EQ(rows->size(), 51u);  // 50 and "(N more)"
      EXPECT_NE(boost::json::serialize(rows->back()).find(" more)"), std::string::npos);
    }
  }
  // The baseline's 20,004 op rows were read to 50 (each ops table's): the report says so.
  EXPECT_NE(json.find("past --max-rows 50 in its ops"), std::string::npos) << json.substr(0, 4000);
}

// Issue 92, item 6: a time or count no run can have (negative, null, beyond 2^53) was accepted
// silently; each is refused as bad input (exit 3), naming the file, the table, the row and the column.
// (A negative host self time is read as written: perfgate's own reports have small ones.)
TEST(ForgedBaseline, ImpossibleValuesAreRefusedByName) {
  std::string dir = temp_dir();
  std::string trace = four_ops_and_their_report(dir, "t.json");
  struct Case {
    const char* column;
    boost::json::value value;
    const char* says;
  };
  for (const Case& c :
       {Case{"device_self_us", -5.0, "'device_self_us' is -5, negative"},
        Case{"host_self_us", nullptr, "'host_self_us' is null"},
        Case{"calls", std::int64_t{1} << 60, "'calls' is 1152921504606846976, beyond 2^53"}}) {
    SCOPED_TRACE(c.column);
    boost::json::value base = boost::json::parse(read_text(dir + "/base.json"));
    std::vector<const boost::json::array*> ops;
    tables_named(base, "ops", ops);
    ASSERT_FALSE(ops.empty());
    // The column's place from the first ops table's columns (its sibling "columns" list).
    boost::json::object* table = nullptr;
    auto find_table = [&](auto&& self, boost::json::value& v) -> void {
      if (auto* o = v.if_object()) {
        for (auto& [key, value] : *o) {
          if (key == "ops" && value.is_object() && value.as_object().contains("rows") && !table)
            table = &value.as_object();
          self(self, value);
        }
      } else if (auto* a = v.if_array()) {
        for (auto& item : *a) self(self, item);
      }
    };
    find_table(find_table, base);
    ASSERT_NE(table, nullptr);
    const boost::json::array& columns = table->at("columns").as_array();
    std::size_t at = columns.size();
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i].as_object().at("name") == c.column) at = i;
    ASSERT_LT(at, columns.size());
    table->at("rows").as_array().at(1).as_array().at(at) = c.value;
    write_text(dir + "/bad.json", boost::json::serialize(base));
    CommandResult r = run_perfgate("analyze " + trace + " -q --baseline " + dir + "/bad.json");
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_NE(r.out.find(dir + "/bad.json: not a usable perfgate report: table 'ops', row 2: " + c.says),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
}  // namespace perfgate::testing
