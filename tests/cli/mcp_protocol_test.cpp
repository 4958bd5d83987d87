// perfgate mcp's protocol layer against hostile input (issue 61): framing, JSON-RPC errors, version
// negotiation, roots, argument limits. The end-to-end run with the official SDK client is
// tests/mcp/mcp_client_test.mjs.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <boost/json.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/metrics.h"
#include "mcp/line_reader.h"
#include "mcp/report_summary.h"
#include "mcp/server.h"
#include "support/helpers.h"
#include "support/mcp_server_fixture.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;
using mcp::LineReader;

// A reader over `text`, handed out `chunk` bytes at a time.
LineReader reader_of(std::shared_ptr<std::string> text, std::size_t max_line, std::size_t chunk = 7) {
  auto at = std::make_shared<std::size_t>(0);
  return LineReader(
      [text, at](char* into, std::size_t size) {
        std::size_t n = std::min(size, text->size() - *at);
        std::copy_n(text->data() + *at, n, into);
        *at += n;
        return n;
      },
      max_line, chunk);
}

TEST(McpLineReader, SplitsLinesSkipsBlankOnesAndReadsALastLineWithoutNewline) {
  auto text = std::make_shared<std::string>("{\"a\":1}\r\n\n\n{\"b\":2}\n{\"c\":3}");
  LineReader reader = reader_of(text, 100);
  std::string line;
  ASSERT_EQ(reader.next(line), LineReader::Status::Line);
  EXPECT_EQ(line, "{\"a\":1}");
  ASSERT_EQ(reader.next(line), LineReader::Status::Line);
  EXPECT_EQ(line, "{\"b\":2}");
  ASSERT_EQ(reader.next(line), LineReader::Status::Line);
  EXPECT_EQ(line, "{\"c\":3}");
  EXPECT_EQ(reader.next(line), LineReader::Status::End);
  EXPECT_EQ(reader.next(line), LineReader::Status::End);
}

// A 100 MB line streams past: the reader never holds more than the limit and a chunk (the source
// hands out bytes it makes on the fly, so no 100 MB string exists), and the next line is read.
TEST(McpLineReader, SkipsA100MegabyteLineWithoutHoldingIt) {
  const std::size_t huge = 100u * 1000 * 1000;
  const std::string after = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
  std::size_t produced = 0;
  std::size_t largest_request = 0;
  LineReader reader(
      [&](char* into, std::size_t size) {
        largest_request = std::max(largest_request, size);
        std::size_t n = 0;
        while (n < size && produced < huge + 1 + after.size()) {
          into[n++] = produced < huge ? 'x' : produced == huge ? '\n' : after[produced - huge - 1];
          ++produced;
        }
        return n;
      },
      4096, 65536);
  std::string line;
  EXPECT_EQ(reader.next(line), LineReader::Status::TooLong);
  ASSERT_EQ(reader.next(line), LineReader::Status::Line);
  EXPECT_EQ(line + "\n", after);
  EXPECT_EQ(reader.next(line), LineReader::Status::End);
  EXPECT_EQ(largest_request, 65536u);  // each read asks for one chunk, never the line
}

TEST(McpLineReader, ALineOfExactlyTheLimitIsReadOneByteMoreIsNot) {
  auto text = std::make_shared<std::string>(std::string(10, 'a') + "\n" + std::string(11, 'b') + "\nok\n");
  LineReader reader = reader_of(text, 10, 3);
  std::string line;
  ASSERT_EQ(reader.next(line), LineReader::Status::Line);
  EXPECT_EQ(line, std::string(10, 'a'));
  EXPECT_EQ(reader.next(line), LineReader::Status::TooLong);
  ASSERT_EQ(reader.next(line), LineReader::Status::Line);
  EXPECT_EQ(line, "ok");
}

TEST_F(McpServerTest, MalformedMessagesGetTheirJsonRpcErrorCodes) {
  EXPECT_EQ(error_code("{not json"), -32700);
  EXPECT_EQ(error_code(std::string(100000, '[')), -32700);  // past the depth limit, not a stack overflow
  EXPECT_EQ(error_code("42"), -32600);
  EXPECT_EQ(error_code(R"({"id":1,"method":"ping"})"), -32600);  // no "jsonrpc"
  EXPECT_EQ(error_code(R"({"jsonrpc":"1.0","id":1,"method":"ping"})"), -32600);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":1,"method":7})"), -32600);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})"), -32600);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":1,"method":"no/such"})"), -32601);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})"), -32602);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm"}})"), -32602);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})"), -32602);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"), -32602);
  EXPECT_EQ(
      error_code(
          R"({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///etc/passwd"}})"),
      -32602);
  EXPECT_EQ(error_code("[]"), -32600);
  // The id is echoed where it could be read.
  EXPECT_EQ(reply(R"({"jsonrpc":"2.0","id":"a","method":"no/such"})").at("id"), json::value("a"));
  EXPECT_TRUE(reply(R"({"jsonrpc":"2.0","id":1,"method":"ping"})").at("result").as_object().empty());
}

TEST_F(McpServerTest, NotificationsAndResponsesGetNoReply) {
  EXPECT_FALSE(server_.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_FALSE(server_.handle_line(R"({"jsonrpc":"2.0","method":"no/such/notification"})"));
  EXPECT_FALSE(server_.handle_line(R"({"jsonrpc":"2.0","id":3,"result":{}})"));
  EXPECT_FALSE(server_.handle_line(R"([{"jsonrpc":"2.0","method":"notifications/cancelled"}])"));
}

TEST_F(McpServerTest, BatchesAreAnsweredInOrderAndBounded) {
  json::value r = reply(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},)"
                        R"({"jsonrpc":"2.0","id":2,"method":"nope"}])");
  ASSERT_TRUE(r.is_array());
  ASSERT_EQ(r.as_array().size(), 2u);
  EXPECT_EQ(r.as_array()[0].at("id"), json::value(1));
  EXPECT_EQ(r.as_array()[1].at("error").at("code"), json::value(-32601));
  std::string batch = "[";
  for (std::size_t i = 0; i <= mcp::kMaxBatch; ++i)
    batch += std::string(i ? "," : "") + R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  EXPECT_EQ(error_code(batch + "]"), -32600);
}

TEST_F(McpServerTest, NegotiatesTheClientsRevisionOrOffersTheNewest) {
  for (std::string version : {"2025-06-18", "2025-03-26", "2024-11-05"}) {
    json::value r = reply(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":")" +
                          version + R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    EXPECT_EQ(r.at("result").at("protocolVersion"), json::value(version));
    EXPECT_TRUE(r.at("result").at("capabilities").as_object().contains("tools"));
    EXPECT_TRUE(r.at("result").at("capabilities").as_object().contains("resources"));
  }
  json::value r =
      reply(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}})");
  EXPECT_EQ(r.at("result").at("protocolVersion"), json::value(mcp::kProtocolVersions[0]));
}

TEST_F(McpServerTest, ToolsListHasEverySchema) {
  json::value r = reply(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  std::set<std::string> names;
  for (const json::value& t : r.at("result").at("tools").as_array()) {
    names.insert(json::value_to<std::string>(t.at("name")));
    EXPECT_EQ(t.at("inputSchema").at("type"), json::value("object"));
  }
  EXPECT_EQ(names, (std::set<std::string>{"analyze", "compare", "table", "metrics", "explain", "trend",
                                          "list_profiles", "events"}));
}

TEST_F(McpServerTest, PathsOutsideTheRootsAreRefusedAsUsageErrors) {
  std::string outside = temp_dir();
  std::string trace = TraceBuilder().step(1, 0, 10).op("a", 1, 2).write(outside + "/t.json");
  std::filesystem::create_symlink(outside, root_ + "/link");
  for (std::string path :
       {trace, root_ + "/../" + std::filesystem::path(outside).filename().string() + "/t.json",
        root_ + "/link/t.json", std::string("/etc/passwd"), std::string("/no/such/file")}) {
    json::object r = call("analyze", {{"paths", json::array{json::string(path)}}});
    EXPECT_EQ(r.at("isError"), json::value(true)) << path;
    EXPECT_EQ(r.at("structuredContent").at("exit_code"), json::value(2)) << path;
    EXPECT_NE(json::value_to<std::string>(r.at("structuredContent").at("error")).find("outside the folders"),
              std::string::npos)
        << path;
  }
  // Inside the roots but missing: the CLI's input error (exit 3).
  json::object missing = call("analyze", {{"paths", json::array{json::string(root_ + "/none.json")}}});
  EXPECT_EQ(missing.at("structuredContent").at("exit_code"), json::value(3));
}

TEST_F(McpServerTest, HugeLimitsUnknownArgumentsAndRecordingWhenReadOnlyAreRefused) {
  std::string trace = TraceBuilder().step(1, 0, 10).op("a", 1, 2).write(root_ + "/t.json");
  json::object analyzed = call("analyze", {{"paths", json::array{json::string(trace)}}});
  ASSERT_EQ(analyzed.at("isError"), json::value(false)) << json::serialize(analyzed);
  EXPECT_EQ(analyzed.at("structuredContent").at("report_id"), json::value("r1"));
  for (json::value limit : {json::value(1000000000), json::value(201), json::value(0), json::value(-1),
                            json::value(1e300), json::value("50")}) {
    json::object r = call("table", {{"report", "r1"}, {"table", "iterations"}, {"limit", limit}});
    EXPECT_EQ(r.at("structuredContent").at("exit_code"), json::value(2)) << json::serialize(limit);
    EXPECT_NE(json::value_to<std::string>(r.at("structuredContent").at("error")).find("\"limit\""),
              std::string::npos)
        << json::serialize(r);
  }
  json::object unknown = call("metrics", {{"prefixx", "gpu."}});
  EXPECT_EQ(unknown.at("structuredContent").at("exit_code"), json::value(2));
  json::object record =
      call("analyze",
           {{"paths", json::array{json::string(trace)}}, {"history", root_ + "/h.sqlite"}, {"record", true}});
  EXPECT_EQ(record.at("structuredContent").at("exit_code"), json::value(2));
  EXPECT_FALSE(std::filesystem::exists(root_ + "/h.sqlite"));
  json::object report = call("explain", {{"report", "r99"}, {"finding", "gpu.idle"}});
  EXPECT_EQ(report.at("isError"), json::value(true));
  // Issue 76, item 4: the types the schema declares, not one that works here only ("paths": "x.json"
  // was analysed).
  json::object one_string = call("analyze", {{"paths", trace}});
  EXPECT_EQ(one_string.at("structuredContent").at("exit_code"), json::value(2))
      << json::serialize(one_string);
  EXPECT_NE(json::value_to<std::string>(one_string.at("structuredContent").at("error"))
                .find("analyze: argument \"paths\" must be an array of strings"),
            std::string::npos)
      << json::serialize(one_string);
}

// metrics by prefix returns what the catalog holds under it: counted here from the catalog.
TEST_F(McpServerTest, MetricsByPrefixAndName) {
  std::size_t expected = 0;
  for (const MetricInfo& m : metric_catalog()) expected += m.name.starts_with("breakdown.");
  json::object r = call("metrics", {{"prefix", "breakdown."}, {"limit", 200}});
  EXPECT_EQ(r.at("structuredContent").at("total"), json::value(expected));
  EXPECT_EQ(r.at("structuredContent").at("metrics").as_array().size(), expected);
  json::object one = call("metrics", {{"name", "gpu.utilization_pct"}});
  EXPECT_EQ(one.at("structuredContent").at("metrics").at(0).at("definition"),
            json::value(metric_info(Metric::GpuUtilizationPct).definition));
  json::object typo = call("metrics", {{"name", "gpu.utilisation_pct"}});
  EXPECT_NE(json::serialize(typo).find("did you mean"), std::string::npos);
}

// Each headline metric is listed once (the summary's metrics are an object keyed by name).
TEST(McpSummary, HeadlineMetricsHaveDistinctNames) {
  std::set<std::string_view> names;
  for (Metric id : mcp::headline_metrics()) names.insert(metric_info(id).name);
  EXPECT_EQ(names.size(), mcp::headline_metrics().size());
}

// A report of 12 findings that did not pass (about 300 bytes each, 3.6 kB in all), 3 long warnings
// (240 bytes each once cut), a broken invariant and 90 table names (2.5 kB): 7 kB or more with
// everything, over the 6 kB budget. The findings fit on their own: the notices' texts and the table
// names go, never a finding, and findings_not_shown is 0 (issue 89: a report invariant's notice
// pushed 7 of 12 findings out). With findings of 1 kB each, only the budget cuts them, and
// findings_not_shown counts exactly those left out.
json::object summary_doc(std::size_t finding_bytes) {
  json::array findings;
  for (int i = 0; i < 12; ++i)
    findings.push_back(json::object{{"id", "rule." + std::to_string(i)},
                                    {"title", "A rule"},
                                    {"status", i % 2 ? "warn" : "fail"},
                                    {"problem", std::string(finding_bytes, 'p')},
                                    {"recommendation", std::string(finding_bytes, 'r')}});
  json::array warnings;
  for (int i = 0; i < 3; ++i) warnings.push_back(json::string(std::string(400, 'w')));
  json::object tables;
  for (int i = 0; i < 90; ++i) tables[fmt::format("a_table_with_a_long_name_{:02}", i)] = json::object{};
  json::array invariants{json::object{{"invariant", "compute.throughput_matches_mfu"},
                                      {"withheld", json::array{"compute.tflops_achieved"}}}};
  return {{"findings", findings}, {"run_warnings", warnings}, {"tables", tables}, {"invariants", invariants}};
}

TEST(McpSummary, NoticesNeverDisplaceAFinding) {
  mcp::StoredReport fits;
  fits.id = "r1";
  fits.doc = summary_doc(120);
  json::object out = mcp::report_summary(fits, false);
  EXPECT_GT(json::serialize(summary_doc(120)).size(), mcp::kSummaryBudgetBytes);
  EXPECT_EQ(out.at("findings").as_array().size(), 12u);
  EXPECT_EQ(out.at("findings_not_shown").to_number<std::int64_t>(), 0);
  EXPECT_EQ(out.at("warnings_total").to_number<std::int64_t>(), 3);
  EXPECT_LE(json::serialize(out).size(), mcp::kSummaryBudgetBytes);

  mcp::StoredReport big;
  big.id = "r2";
  big.doc = summary_doc(1000);  // each text cut to 320 bytes: 12 x ~720 = 8.6 kB of findings
  json::object cut = mcp::report_summary(big, false);
  std::size_t shown = cut.at("findings").as_array().size();
  EXPECT_LT(shown, 12u);
  EXPECT_EQ(shown + static_cast<std::size_t>(cut.at("findings_not_shown").to_number<std::int64_t>()), 12u);
  EXPECT_TRUE(cut.at("warnings").as_array().empty());
  EXPECT_FALSE(cut.contains("tables"));
  EXPECT_LE(json::serialize(cut).size(), mcp::kSummaryBudgetBytes);
}

// analyze on a hand-built trace: the verdict and metrics equal the CLI's own JSON report of it, and
// table pages through the `iterations` table row by row.
TEST_F(McpServerTest, AnalyzeAndTableGiveTheClisNumbers) {
  std::string trace = five_step_trace(root_ + "/run.json");
  CommandResult cli = run_perfgate("analyze " + trace + " -q --json " + root_ + "/cli.json");
  ASSERT_LE(cli.exit_code, 1) << cli.out;
  std::ifstream in(root_ + "/cli.json");
  json::value expected = json::parse(std::string(std::istreambuf_iterator<char>(in), {}));

  json::object r =
      call("analyze", {{"paths", json::array{json::string("run.json")}}});  // relative to the root
  ASSERT_EQ(r.at("isError"), json::value(false)) << json::serialize(r);
  const json::object& s = r.at("structuredContent").as_object();
  EXPECT_EQ(s.at("verdict"), expected.at("verdict"));
  for (const auto& [name, value] : s.at("metrics").as_object())
    EXPECT_EQ(value, expected.at("metrics").at(name)) << name;
  EXPECT_EQ(s.at("metrics").at("steps.count"), json::value(5));  // five ProfilerStep ranges built above
  std::string id = json::value_to<std::string>(s.at("report_id"));

  const json::array& rows = expected.at("workers").at(0).at("tables").at("iterations").at("rows").as_array();
  ASSERT_EQ(rows.size(), 5u);
  json::array seen;
  json::value offset = 0;
  while (!offset.is_null()) {
    json::object page =
        call("table", {{"report", id}, {"table", "iterations"}, {"offset", offset}, {"limit", 2}});
    const json::object& p = page.at("structuredContent").as_object();
    EXPECT_LE(p.at("rows").as_array().size(), 2u);
    for (const json::value& row : p.at("rows").as_array()) seen.push_back(row);
    offset = p.at("next_offset");
  }
  EXPECT_EQ(seen, rows);
  // Sorted descending by a column, filtered: checked against the rows themselves.
  json::object top =
      call("table", {{"report", id}, {"table", "iterations"}, {"sort", "-number"}, {"limit", 1}});
  EXPECT_EQ(top.at("structuredContent").at("rows").at(0), rows.back());

  json::object res =
      reply(R"({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"perfgate://report/)" + id +
            R"("}})")
          .at("result")
          .as_object();
  json::value whole = json::parse(json::value_to<std::string>(res.at("contents").at(0).at("text")));
  EXPECT_EQ(whole.at("metrics"), expected.at("metrics"));
}

// The binary end to end: a 100 MB line is skipped with an error, the next request is answered, the
// end of the input ends the server with 0, and standard output holds nothing but JSON-RPC lines.
TEST(McpStdio, A100MegabyteLineThenAPingThenEndOfInput) {
  std::string dir = temp_dir();
  std::string command =
      "{ head -c 100000000 /dev/zero | tr '\\0' x; printf '\\n{\"jsonrpc\":\"2.0\",\"id\":5,"
      "\"method\":\"ping\"}\\n'; } | " +
      std::string(PERFGATE_BINARY) + " mcp --root " + dir + " 2>" + dir + "/log.txt";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_TRUE(pipe);
  std::string out;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  int status = ::pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  std::istringstream lines(out);
  std::string first, second, third;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_FALSE(std::getline(lines, third)) << out;
  EXPECT_EQ(json::parse(first).at("error").at("code"), json::value(-32600)) << first;
  EXPECT_EQ(json::parse(second).at("id"), json::value(5)) << second;
}

}  // namespace
}  // namespace perfgate::testing
