// events (issue 76): the instances of a kernel, op or collective of a report's run in a time window,
// paged; each checked against the trace built here.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "support/helpers.h"
#include "support/mcp_server_fixture.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

// five_step_trace with its allreduce: kernels lasting 210 to 250 µs.
class McpEventsTest : public McpServerTest {
 protected:
  void SetUp() override {
    five_step_trace(root_ + "/run.json", 200, true);
    json::object analyzed = call("analyze", {{"paths", json::array{"run.json"}}});
    ASSERT_EQ(analyzed.at("isError"), json::value(false)) << json::serialize(analyzed);
    id_ = json::value_to<std::string>(analyzed.at("structuredContent").at("report_id"));
  }
  json::object events(json::object args) {
    args["report"] = id_;
    json::object r = call("events", args);
    EXPECT_EQ(r.at("isError"), json::value(false)) << json::serialize(r);
    EXPECT_EQ(json::parse(r.at("content").at(0).at("text").as_string()), r.at("structuredContent"));
    return r.at("structuredContent").as_object();
  }
  std::string id_;
};

TEST_F(McpEventsTest, KernelsInAWindowWithTheirTimes) {
  json::object all = events({{"name", "gemm_kernel"}, {"kind", "kernel"}});
  ASSERT_EQ(all.at("total"), json::value(5));
  for (int s = 1; s <= 5; ++s) {
    const json::object& e = all.at("events").at(s - 1).as_object();
    EXPECT_EQ(e.at("kind"), json::value("kernel"));
    EXPECT_DOUBLE_EQ(e.at("start_us").to_number<double>(), s * 1000.0 + 50);
    EXPECT_DOUBLE_EQ(e.at("duration_us").to_number<double>(), 200 + 10 * s);
  }
  // Steps 2 and 3 only: kernels at 2050 and 3050 µs.
  json::object window = events({{"name", "gemm_kernel"}, {"start_us", 2000}, {"end_us", 3500}});
  ASSERT_EQ(window.at("total"), json::value(2));
  EXPECT_DOUBLE_EQ(window.at("events").at(0).at("start_us").to_number<double>(), 2050);
  EXPECT_EQ(events({{"name", "gemm"}, {"match", "contains"}}).at("total"), json::value(5));
  EXPECT_EQ(events({{"name", "gemm"}}).at("total"), json::value(0));  // exact by default
}

TEST_F(McpEventsTest, OpsAndCollectivesArePaged) {
  json::object first = events({{"name", "aten::mm"}, {"kind", "op"}, {"limit", 2}});
  EXPECT_EQ(first.at("total"), json::value(5));
  EXPECT_EQ(first.at("events").as_array().size(), 2u);
  EXPECT_EQ(first.at("next_offset"), json::value(2));
  json::object last = events({{"name", "aten::mm"}, {"kind", "op"}, {"offset", 4}, {"limit", 2}});
  EXPECT_DOUBLE_EQ(last.at("events").at(0).at("start_us").to_number<double>(), 5010);
  EXPECT_EQ(last.at("next_offset"), json::value(nullptr));
  json::object collectives = events({{"name", "allreduce"}, {"kind", "collective"}});
  ASSERT_EQ(collectives.at("total"), json::value(5));
  EXPECT_EQ(collectives.at("events").at(0).at("op"), json::value("record_param_comms"));
  EXPECT_DOUBLE_EQ(collectives.at("events").at(0).at("duration_us").to_number<double>(), 30);
  json::object bad = call("events", {{"report", id_}, {"name", "x"}, {"kind", "thread"}});
  EXPECT_EQ(bad.at("structuredContent").at("exit_code"), json::value(2));
}

}  // namespace
}  // namespace perfgate::testing
