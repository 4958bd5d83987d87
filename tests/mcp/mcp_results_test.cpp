// perfgate mcp's results (issue 76): every tool's structuredContent as its outputSchema declares,
// the same JSON as its text block; report ids that last in the cache folder; list_profiles; the
// discovery prompt. Cancellation, progress and ping during a run: mcp_cancel_test.cpp.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "mcp/report_cache.h"
#include "support/helpers.h"
#include "support/mcp_server_fixture.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// The text block is the structured content's JSON, for results and tool errors alike.
void expect_text_is_the_json(const json::object& result) {
  const json::array& content = result.at("content").as_array();
  ASSERT_EQ(content.size(), 1u);
  EXPECT_EQ(content[0].at("type"), json::value("text"));
  EXPECT_EQ(json::parse(content[0].at("text").as_string()), result.at("structuredContent"))
      << json::serialize(result);
}

// The properties a schema's "required" lists (in each of its anyOf alternatives).
std::set<std::string> required_of(const json::object& schema, std::size_t alternative) {
  std::set<std::string> out;
  for (const json::value& name : schema.at("anyOf").at(alternative).at("required").as_array())
    out.insert(json::value_to<std::string>(name));
  return out;
}

TEST_F(McpServerTest, EveryToolDeclaresAnOutputSchemaWithItsErrorForm) {
  json::value r = reply(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  for (const json::value& t : r.at("result").at("tools").as_array()) {
    const json::object& schema = t.at("outputSchema").as_object();
    EXPECT_EQ(schema.at("type"), json::value("object")) << t.at("name");
    EXPECT_EQ(required_of(schema, 1), (std::set<std::string>{"error", "exit_code"})) << t.at("name");
    for (const std::string& name : required_of(schema, 0))
      EXPECT_TRUE(schema.at("properties").as_object().contains(name)) << t.at("name") << " " << name;
  }
}

TEST_F(McpServerTest, TheTextBlockIsTheStructuredContentsJson) {
  five_step_trace(root_ + "/run.json");
  json::object analyzed = call("analyze", {{"paths", json::array{"run.json"}}});
  ASSERT_EQ(analyzed.at("isError"), json::value(false)) << json::serialize(analyzed);
  expect_text_is_the_json(analyzed);
  EXPECT_EQ(analyzed.at("structuredContent").at("report_id_lasts"), json::value(false));  // read-only
  std::string id = json::value_to<std::string>(analyzed.at("structuredContent").at("report_id"));
  json::object page = call("table", {{"report", id}, {"table", "iterations"}, {"limit", 2}});
  expect_text_is_the_json(page);
  // The rows are in the text: a client that reads only `content` gets the data, and where the rest is.
  json::value text = json::parse(page.at("content").at(0).at("text").as_string());
  EXPECT_EQ(text.at("rows").as_array().size(), 2u);
  EXPECT_EQ(text.at("next_offset"), json::value(2));
  expect_text_is_the_json(call("metrics", {{"prefix", "steps."}}));
  expect_text_is_the_json(call("table", {{"report", "r99"}}));  // an error
}

// Every kernel of a trace with names of 400 bytes: pages stay under the 64 kB text cap, and paging
// through them gives every row.
// Issue 93: the text blocks printed numbers in Boost's exponent form ("gpu.utilization_pct":5.5514085E1,
// 18 in one analyze) where --json prints 55.514085. The reply line's structured content and the text
// block now write each number alike, as the JSON report does: the text is the line's structured
// content character for character, and no number has an exponent.
TEST_F(McpServerTest, TextNumbersAreTheStructuredOnesCharacterForCharacter) {
  five_step_trace(root_ + "/run.json");
  json::object request{
      {"jsonrpc", "2.0"},
      {"id", 1},
      {"method", "tools/call"},
      {"params", {{"name", "analyze"}, {"arguments", {{"paths", json::array{"run.json"}}}}}}};
  std::optional<std::string> line = server_.handle_line(json::serialize(request));
  ASSERT_TRUE(line);
  json::value reply = json::parse(*line);
  std::string text = json::value_to<std::string>(reply.at("result").at("content").at(0).at("text"));
  EXPECT_NE(line->find("\"structuredContent\":" + text), std::string::npos) << *line;
  EXPECT_FALSE(std::regex_search(text, std::regex("[0-9][eE][-+]?[0-9]"))) << text;
  EXPECT_NE(text.find("\"gpu.utilization_pct\":"), std::string::npos) << text;
}

// Issue 93: explain of a rule that names no table gave `evidence: []` and no word why.
TEST_F(McpServerTest, ExplainSaysWhyEvidenceIsEmpty) {
  five_step_trace(root_ + "/run.json");
  json::object analyzed = call("analyze", {{"paths", json::array{"run.json"}}});
  std::string id = json::value_to<std::string>(analyzed.at("structuredContent").at("report_id"));
  json::object explained = call("explain", {{"report", id}, {"finding", "dataloader.bottleneck"}});
  const json::object& out = explained.at("structuredContent").as_object();
  EXPECT_TRUE(out.at("evidence").as_array().empty());
  EXPECT_NE(json::value_to<std::string>(out.at("evidence_note")).find("the rule names no table"),
            std::string::npos);
}

TEST_F(McpServerTest, LargeTablesArePagedUnderTheTextCap) {
  TraceBuilder b;
  b.step(1, 0, 1'000'000);
  for (int k = 0; k < 600; ++k)
    b.launch(std::string(400, 'a') + std::to_string(k), 10 + k * 100, 20 + k * 100, 50);
  b.write(root_ + "/wide.json");
  json::object analyzed = call("analyze", {{"paths", json::array{"wide.json"}}});
  std::string id = json::value_to<std::string>(analyzed.at("structuredContent").at("report_id"));
  std::size_t rows = 0, pages = 0;
  json::value offset = 0;
  while (!offset.is_null()) {
    json::object page =
        call("table", {{"report", id}, {"table", "kernels"}, {"offset", offset}, {"limit", 200}});
    ASSERT_EQ(page.at("isError"), json::value(false)) << json::serialize(page);
    EXPECT_LE(page.at("content").at(0).at("text").as_string().size(), mcp::kMaxTextBytes);
    expect_text_is_the_json(page);
    rows += page.at("structuredContent").at("rows").as_array().size();
    offset = page.at("structuredContent").at("next_offset");
    ++pages;
  }
  EXPECT_EQ(rows, 600u);
  EXPECT_GT(pages, 3u);  // 600 rows of over 400 bytes: more than 48 kB a page would hold
}

class McpWritableTest : public McpServerTest {
 protected:
  McpWritableTest() : McpServerTest(true) {}
};

// A report analysed by one server is read by another (a later process) by its id, from the cache
// folder under the first root; the same files and arguments give the same id, a changed file another.
TEST_F(McpWritableTest, ReportIdsLastAcrossServers) {
  five_step_trace(root_ + "/run.json");
  json::object first = call("analyze", {{"paths", json::array{"run.json"}}});
  ASSERT_EQ(first.at("isError"), json::value(false)) << json::serialize(first);
  std::string id = json::value_to<std::string>(first.at("structuredContent").at("report_id"));
  EXPECT_TRUE(mcp::is_content_id(id)) << id;
  EXPECT_EQ(first.at("structuredContent").at("report_id_lasts"), json::value(true));
  EXPECT_TRUE(fs::exists(root_ + "/.perfgate-cache/" + id + ".json"));
  json::object rows_here = call("table", {{"report", id}, {"table", "iterations"}});

  mcp::Session later_session(options(root_, false));  // even a read-only one reads the cache
  mcp::Server later(later_session);
  auto later_call = [&](const std::string& tool, const json::object& args) {
    json::object request{{"jsonrpc", "2.0"},
                         {"id", 1},
                         {"method", "tools/call"},
                         {"params", {{"name", tool}, {"arguments", args}}}};
    return json::parse(*later.handle_line(json::serialize(request))).at("result").as_object();
  };
  json::object rows_later = later_call("table", {{"report", id}, {"table", "iterations"}});
  ASSERT_EQ(rows_later.at("isError"), json::value(false)) << json::serialize(rows_later);
  EXPECT_EQ(rows_later.at("structuredContent").at("rows"), rows_here.at("structuredContent").at("rows"));
  json::object explained = later_call("explain", {{"report", id}, {"metric", "steps.count"}});
  EXPECT_EQ(explained.at("structuredContent").at("metric").at("value"), json::value(5));
  json::value resource = json::parse(*later.handle_line(
      R"({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"perfgate://report/)" + id +
      R"("}})"));
  EXPECT_EQ(json::parse(resource.at("result").at("contents").at(0).at("text").as_string())
                .at("metrics")
                .at("steps.count"),
            json::value(5));

  json::object again = call("analyze", {{"paths", json::array{"run.json"}}});
  EXPECT_EQ(again.at("structuredContent").at("report_id"), json::value(id));
  five_step_trace(root_ + "/run.json", 300);  // another trace at the same path
  json::object changed = call("analyze", {{"paths", json::array{"run.json"}}});
  EXPECT_NE(changed.at("structuredContent").at("report_id"), json::value(id));
  json::object other_options =
      call("analyze", {{"paths", json::array{"run.json"}}, {"options", {{"skip_first", 1}}}});
  EXPECT_NE(other_options.at("structuredContent").at("report_id"),
            changed.at("structuredContent").at("report_id"));
}

// A cache folder that is a link out of the roots is refused: nothing is written outside.
TEST_F(McpWritableTest, ACacheFolderLinkedOutOfTheRootsIsRefused) {
  std::string outside = temp_dir();
  fs::create_directory_symlink(outside, root_ + "/.perfgate-cache");
  five_step_trace(root_ + "/run.json");
  json::object r = call("analyze", {{"paths", json::array{"run.json"}}});
  EXPECT_EQ(r.at("structuredContent").at("exit_code"), json::value(2)) << json::serialize(r);
  EXPECT_TRUE(fs::is_empty(outside));
}

TEST_F(McpServerTest, ListProfilesFindsWhatAReaderClaimsAndFollowsNoLink) {
  five_step_trace(root_ + "/run.json");
  fs::create_directories(root_ + "/sub/.hidden");
  five_step_trace(root_ + "/sub/.hidden/skipped.json");
  std::ofstream(root_ + "/sub/notes.txt") << "not a profile\n";
  std::string outside = temp_dir();
  five_step_trace(outside + "/out.json");
  fs::create_symlink(outside + "/out.json", root_ + "/sub/link.json");
  fs::create_directory_symlink(outside, root_ + "/linked");
  json::object r = call("list_profiles", {});
  ASSERT_EQ(r.at("isError"), json::value(false)) << json::serialize(r);
  expect_text_is_the_json(r);
  const json::object& out = r.at("structuredContent").as_object();
  ASSERT_EQ(out.at("total"), json::value(1)) << json::serialize(out);
  const json::object& p = out.at("profiles").at(0).as_object();
  EXPECT_EQ(p.at("path"), json::value(root_ + "/run.json"));
  EXPECT_EQ(p.at("format"), json::value("kineto-json"));
  EXPECT_EQ(p.at("bytes").to_number<std::uint64_t>(), fs::file_size(root_ + "/run.json"));
  EXPECT_EQ(out.at("next_offset"), json::value(nullptr));
  json::object outside_folder = call("list_profiles", {{"folder", outside}});
  EXPECT_EQ(outside_folder.at("structuredContent").at("exit_code"), json::value(2));
}

TEST_F(McpServerTest, TheDiscoveryPromptIsListedAndGot) {
  json::value list = reply(R"({"jsonrpc":"2.0","id":1,"method":"prompts/list"})");
  EXPECT_EQ(list.at("result").at("prompts").at(0).at("name"), json::value("discover"));
  json::value got = reply(
      R"({"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"discover","arguments":{"folder":"runs"}}})");
  std::string text(got.at("result").at("messages").at(0).at("content").at("text").as_string());
  for (std::string_view tool : {"list_profiles", "analyze", "explain", "table", "compare"})
    EXPECT_NE(text.find(tool), std::string::npos) << tool;
  EXPECT_NE(text.find("runs"), std::string::npos);
  EXPECT_EQ(error_code(R"({"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"nope"}})"),
            -32602);
  json::value init = reply(
      R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  EXPECT_TRUE(init.at("result").at("capabilities").as_object().contains("prompts"));
}

// compare by time window (issue 76, item 5): the same trace's steps 1-2 as the baseline of its steps
// 4-5, whose kernels are 30 us longer (five_step_trace: 200 + 10 s us in step s); one GPU likewise.
TEST_F(McpServerTest, CompareTwoTimeWindowsOfOneTrace) {
  five_step_trace(root_ + "/run.json");
  json::object early =
      call("analyze", {{"paths", json::array{"run.json"}}, {"options", {{"time_stop_us", 2900}}}});
  ASSERT_EQ(early.at("isError"), json::value(false)) << json::serialize(early);
  std::string id = json::value_to<std::string>(early.at("structuredContent").at("report_id"));
  json::object compared = call("compare", {{"paths", json::array{"run.json"}},
                                           {"options", {{"time_start_us", 4000}, {"device", 0}}},
                                           {"baseline_report", id}});
  ASSERT_EQ(compared.at("isError"), json::value(false)) << json::serialize(compared);
  const json::value& changes = compared.at("structuredContent").at("changes");
  bool gemm_slower = false;
  for (const json::value& row : changes.at("slower").as_array())
    gemm_slower = gemm_slower || row.at("name") == json::value("gemm_kernel");
  EXPECT_TRUE(gemm_slower) << json::serialize(changes);
  EXPECT_EQ(compared.at("structuredContent").at("baseline").at("steps"), json::value(2))
      << json::serialize(compared.at("structuredContent").at("baseline"));
  json::object wrong = call("analyze", {{"paths", json::array{"run.json"}}, {"options", {{"device", 4}}}});
  EXPECT_EQ(wrong.at("isError"), json::value(true));
  EXPECT_NE(json::serialize(wrong).find("ran no GPU work on GPU 4 (GPUs 0)"), std::string::npos)
      << json::serialize(wrong);
  json::object typed =
      call("analyze", {{"paths", json::array{"run.json"}}, {"options", {{"time_start_us", "x"}}}});
  EXPECT_EQ(typed.at("isError"), json::value(true));
  json::object past =
      call("analyze", {{"paths", json::array{"run.json"}}, {"options", {{"time_stop_us", 1e16}}}});
  EXPECT_EQ(past.at("isError"), json::value(true)) << "past any trace's clock";
}

// The engine's and the analysis' errors name a field of the request as this server's argument, not
// as the command line's flag (issue 90): options.iter_start, not --iter-start.
TEST_F(McpServerTest, RequestErrorsNameTheArguments) {
  five_step_trace(root_ + "/run.json");
  auto error_of = [&](const json::object& options) {
    json::object r = call("analyze", {{"paths", json::array{"run.json"}}, {"options", options}});
    EXPECT_EQ(r.at("isError"), json::value(true)) << json::serialize(r);
    EXPECT_EQ(r.at("structuredContent").at("exit_code"), json::value(2)) << json::serialize(r);
    return json::value_to<std::string>(r.at("structuredContent").at("error"));
  };
  EXPECT_EQ(error_of({{"iter_start", 5}, {"iter_stop", 2}}),
            "options.iter_start 5 is after options.iter_stop 2");
  EXPECT_EQ(error_of({{"fail_on", "often"}}),
            "options.fail_on 'often': error, warning, inconclusive or never");
  EXPECT_EQ(error_of({{"time_start_us", 3000}, {"time_stop_us", 2000}}),
            "options.time_start_us 3000.000 us is not before options.time_stop_us 2000.000 us");
  EXPECT_EQ(error_of({{"skip_first", 9}}).find("options.skip_first 9 leaves no step"), 0u);
}

}  // namespace
}  // namespace perfgate::testing
