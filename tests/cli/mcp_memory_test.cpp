// Issue 78, item 5: perfgate mcp under --max-memory. The reports it keeps for the tools and
// resources are counted (their parsed JSON as allocated, their model as their JSON text) and hold
// at most half the budget: past it the oldest are dropped, the newest always kept. Before, 16
// reports were kept whatever their size (one 37 MB trace analysed 18 times: 5.0 GB resident).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <fmt/format.h>

#include <iostream>
#include <string>

#include "mcp/server.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;

// A server on `root` whose budget is `max_memory` bytes, its resources read in pages of `page_bytes`.
struct Served {
  Served(const std::string& root, std::uint64_t max_memory, std::size_t page_bytes = mcp::kResourcePageBytes)
      : session([&] {
          mcp::McpOptions o;
          o.roots = {root};
          o.run.threads = 1;
          o.memory.bytes = max_memory;
          o.resource_page_bytes = page_bytes;
          return o;
        }()),
        server(session) {}

  json::object call(const std::string& tool, const json::object& args) {
    json::object request{{"jsonrpc", "2.0"},
                         {"id", 1},
                         {"method", "tools/call"},
                         {"params", {{"name", tool}, {"arguments", args}}}};
    return json::parse(*server.handle_line(json::serialize(request))).at("result").as_object();
  }
  std::string analyze() {
    json::object r = call("analyze", {{"paths", json::array{json::string("run.json")}}});
    EXPECT_EQ(r.at("isError"), json::value(false)) << json::serialize(r).substr(0, 500);
    return json::value_to<std::string>(r.at("structuredContent").at("report_id"));
  }

  mcp::Session session;
  mcp::Server server;
};

TEST(McpMemory, KeptReportsHoldAtMostHalfTheBudgetTheOldestDroppedFirst) {
  std::string root = temp_dir();
  TraceBuilder b;
  for (int s = 1; s <= 300; ++s) {  // a report of a few hundred kB: 300 steps, their ops and kernels
    double t = s * 1000.0;
    b.step(s, t, 900);
    b.op("aten::mm", t + 10, 100, s);
    b.launch("gemm_kernel_" + std::to_string(s % 40), t + 20, t + 50, 200 + s % 7, s);
  }
  b.write(root + "/run.json");

  // No budget: six analyses, six reports kept (the count limit is 16).
  Served unbounded(root, 0);
  for (int i = 0; i < 6; ++i) unbounded.analyze();
  ASSERT_EQ(unbounded.session.reports().size(), 6u);
  std::uint64_t one = unbounded.session.reports().front().bytes;
  EXPECT_EQ(unbounded.session.kept_bytes(), 6 * one);
  // Counted: the parsed JSON takes more than its text, and the text counts again for the model.
  json::object resource =
      json::parse(
          *unbounded.server.handle_line(
              R"({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"perfgate://report/r1"}})"))
          .as_object();
  std::size_t text = resource.at("result").at("contents").at(0).at("text").as_string().size();
  EXPECT_GT(one, 2 * text);
  EXPECT_GT(text, 100'000u);
  std::cout << "a kept report of a " << text << "-byte JSON report counts " << one << " bytes\n";

  // A budget whose half holds two and a half such reports: the last two are kept.
  Served bounded(root, 5 * one);
  std::string last;
  for (int i = 0; i < 6; ++i) last = bounded.analyze();
  EXPECT_EQ(last, "r6");
  ASSERT_EQ(bounded.session.reports().size(), 2u);
  EXPECT_EQ(bounded.session.reports().front().id, "r5");
  EXPECT_LE(bounded.session.kept_bytes(), bounded.session.kept_budget());
  json::object gone = bounded.call("table", {{"report", "r1"}, {"table", "iterations"}});
  EXPECT_EQ(gone.at("isError"), json::value(true));
  std::string said = json::value_to<std::string>(gone.at("structuredContent").at("error"));
  EXPECT_NE(said.find("no report r1 (this server keeps the last 16 reports within half its --max-memory"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find(": r5, r6)"), std::string::npos) << said;
  EXPECT_EQ(bounded.call("table", {{"report", "r6"}, {"table", "iterations"}}).at("isError"),
            json::value(false));

  // A budget below one report still keeps the newest, alone.
  Served tiny(root, one);
  tiny.analyze();
  tiny.analyze();
  ASSERT_EQ(tiny.session.reports().size(), 1u);
  EXPECT_EQ(tiny.session.reports().front().id, "r2");
}

// A resource longer than a reply's page is read page by page (?page=N), each page naming the next:
// one resources/read of a large report was one reply of its whole text (92 MB in the issue).
TEST(McpMemory, AResourceLongerThanAPageIsReadPageByPage) {
  std::string root = temp_dir();
  TraceBuilder b;
  for (int s = 1; s <= 100; ++s) {
    b.step(s, s * 1000.0, 900);
    b.launch("kernel_\u00e9t\u00e9_" + std::to_string(s), s * 1000.0 + 20, s * 1000.0 + 50, 200, s);
  }
  b.write(root + "/run.json");
  Served whole(root, 0);
  whole.analyze();
  auto read = [](Served& served, const std::string& uri) {
    json::object request{
        {"jsonrpc", "2.0"}, {"id", 3}, {"method", "resources/read"}, {"params", {{"uri", uri}}}};
    return json::parse(*served.server.handle_line(json::serialize(request))).as_object();
  };
  json::object one = read(whole, "perfgate://report/r1");
  EXPECT_FALSE(one.at("result").as_object().contains("_meta"));  // under a page: whole, as before
  std::string text(one.at("result").at("contents").at(0).at("text").as_string());

  Served paged(root, 0, 16 * 1024);
  paged.analyze();
  std::string joined;
  json::value next = json::string("perfgate://report/r1");
  std::size_t pages = 0;
  while (!next.is_null()) {
    json::object r = read(paged, json::value_to<std::string>(next)).at("result").as_object();
    std::string_view page = r.at("contents").at(0).at("text").as_string();
    EXPECT_LE(page.size(), 16u * 1024);
    joined += page;
    EXPECT_EQ(r.at("_meta").at("perfgate/page"), json::value(pages));
    next = r.at("_meta").at("perfgate/next");
    ++pages;
  }
  EXPECT_EQ(joined, text);
  EXPECT_GE(pages, 3u);
  json::object past = read(paged, fmt::format("perfgate://report/r1?page={}", pages));
  EXPECT_EQ(past.at("error").at("code"), json::value(-32002));
  EXPECT_EQ(
      read(paged, "perfgate://report/r1/markdown?page=0").at("result").at("contents").at(0).at("mimeType"),
      json::value("text/markdown"));
}

}  // namespace
}  // namespace perfgate::testing
