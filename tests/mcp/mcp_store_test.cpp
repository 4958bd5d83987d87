// The MCP report store (.perfgate-cache/) as untrusted input (issue 92, item 3, and a PostgreSQL URI
// read as a path, item 6): a FIFO named as a
// report blocked `table` and every call after it; a 3 GiB sparse file was read whole (3.9 GB resident)
// before Boost.JSON's error named its own header; the folder grew without a cap (136 entries, 430 MB
// after about 75 calls); with its disk full `analyze` failed and lost the report it computed.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fmt/format.h>
#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "mcp/report_cache.h"
#include "mcp/roots.h"
#include "support/helpers.h"
#include "support/mcp_server_fixture.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

class McpStoreTest : public McpServerTest {
 protected:
  McpStoreTest() : McpServerTest(true) {}

  // A report stored by this server; its id.
  std::string analyzed() {
    five_step_trace(root_ + "/run.json");
    json::object r = call("analyze", {{"paths", json::array{"run.json"}}});
    EXPECT_EQ(r.at("structuredContent").at("report_id_lasts"), json::value(true)) << json::serialize(r);
    return json::value_to<std::string>(r.at("structuredContent").at("report_id"));
  }
  std::string stored(const std::string& id, const std::string& suffix = ".json") const {
    return root_ + "/" + std::string(mcp::kCacheFolder) + "/" + id + suffix;
  }
  // `table` of that id asked of a later server (read-only, with `max_input_memory`), which reads the
  // store: its error text, empty where it answered.
  std::string later_table_error(const std::string& id, const std::string& max_input_memory = "") const {
    mcp::McpOptions o = options(root_, false);
    if (!max_input_memory.empty()) o.run.max_input_memory = max_input_memory;
    mcp::Session later(o);
    json::object r = later.call_tool("table", {{"report", id}, {"table", "iterations"}});
    if (r.at("isError") == json::value(false)) return "";
    return json::value_to<std::string>(r.at("structuredContent").at("error"));
  }
};

// A FIFO in a report's place is refused by its kind, never opened: the call returns at once.
TEST_F(McpStoreTest, AFifoInTheStoreIsRefusedNotWaitedOn) {
  std::string id = analyzed();
  fs::remove(stored(id));
  ASSERT_EQ(::mkfifo(stored(id).c_str(), 0600), 0);
  std::string error = later_table_error(id);
  EXPECT_NE(error.find(stored(id)), std::string::npos) << error;
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

// A file past --max-input-memory is refused by its size, unread; under the default limit a sparse
// file of 3 GiB is refused at its first byte (parsed as it is read), without a library's internals.
TEST_F(McpStoreTest, AFileTooLargeOrNotJsonIsRefusedUnread) {
  std::string id = analyzed();
  fs::resize_file(stored(id), std::uint64_t{3} << 30);  // sparse past the report's bytes
  std::string limited = later_table_error(id, "1M");
  EXPECT_NE(limited.find("3 GiB is more than --max-input-memory (1 MiB)"), std::string::npos) << limited;
  std::ofstream(stored(id), std::ios::trunc) << "";
  fs::resize_file(stored(id), std::uint64_t{3} << 30);  // zeros from its first byte
  std::string zeros = later_table_error(id);
  EXPECT_NE(zeros.find("not JSON this server wrote (it stops making sense at byte 0)"), std::string::npos)
      << zeros;
  EXPECT_EQ(zeros.find(".hpp"), std::string::npos) << zeros;
  // A call file that is JSON but not a call.
  std::ofstream(stored(id, ".call.json"), std::ios::trunc) << R"({"tool": 1})";
  std::string call = later_table_error(id);
  EXPECT_NE(call.find("not a call this server stored"), std::string::npos) << call;
}

// With the cache folder unwritable (here a file in its place: ENOTDIR, as a full disk fails a write)
// analyze still returns its report, under an id that lasts while the server runs, and says why.
TEST_F(McpStoreTest, AFailedStoreStillReturnsTheReport) {
  std::ofstream(root_ + "/" + std::string(mcp::kCacheFolder)) << "in the way\n";
  five_step_trace(root_ + "/run.json");
  json::object r = call("analyze", {{"paths", json::array{"run.json"}}});
  ASSERT_EQ(r.at("isError"), json::value(false)) << json::serialize(r);
  const json::object& summary = r.at("structuredContent").as_object();
  EXPECT_EQ(summary.at("report_id_lasts"), json::value(false));
  EXPECT_NE(json::value_to<std::string>(summary.at("report_id_note")).find("not stored in .perfgate-cache/"),
            std::string::npos);
  std::string id = json::value_to<std::string>(summary.at("report_id"));
  EXPECT_FALSE(mcp::is_content_id(id)) << id;
  json::object page = call("table", {{"report", id}, {"table", "iterations"}});
  EXPECT_EQ(page.at("isError"), json::value(false)) << json::serialize(page);
}

// A PostgreSQL history is named as one, not read as a file under the first root ("<root>/postgresql://…:
// no such file or folder"), as a history, a baseline or compare's history.
TEST_F(McpServerTest, APostgresHistoryIsNamedNotReadAsAFile) {
  five_step_trace(root_ + "/run.json");
  const std::string uri = "postgresql://ci@db.example/perf";
  for (const json::object& args :
       {json::object{{"paths", json::array{"run.json"}}, {"history", uri}},
        json::object{{"paths", json::array{"run.json"}}, {"baseline", json::array{uri}}}}) {
    json::object r = call("analyze", args);
    std::string error = json::value_to<std::string>(r.at("structuredContent").at("error"));
    EXPECT_NE(error.find(uri + ": a PostgreSQL history is not read through the MCP server"),
              std::string::npos)
        << error;
    EXPECT_EQ(error.find(root_), std::string::npos) << error;
  }
  json::object compared = call("compare", {{"paths", json::array{"run.json"}}, {"history", uri}});
  EXPECT_NE(json::value_to<std::string>(compared.at("structuredContent").at("error")).find("PostgreSQL"),
            std::string::npos);
}

// The store keeps the newest reports within its count and its bytes; the one just stored stays
// whatever its size, and files the server did not write are left alone.
TEST(McpReportCache, KeepsTheNewestWithinItsLimits) {
  std::string root = temp_dir();
  mcp::Roots roots({root});
  std::string folder = root + "/" + std::string(mcp::kCacheFolder);
  auto id = [](int k) { return fmt::format("r{:016x}", k); };
  auto exists = [&](int k) { return fs::exists(folder + "/" + id(k) + ".json"); };
  json::object call{{"tool", "analyze"}, {"arguments", json::object{}}, {"run", json::object{}}};
  // Each report older than the next by an hour.
  auto store = [&](const mcp::ReportCache& cache, int k, const std::string& report) {
    cache.store(id(k), report, call);
    fs::last_write_time(folder + "/" + id(k) + ".json",
                        fs::file_time_type::clock::now() - std::chrono::hours(100 - k));
  };
  mcp::ReportCache by_count(roots, {.max_file_bytes = 0, .max_reports = 3, .max_bytes = 1 << 20});
  for (int k = 1; k <= 5; ++k) store(by_count, k, "{}");
  EXPECT_FALSE(exists(1));
  EXPECT_FALSE(exists(2));
  EXPECT_FALSE(fs::exists(folder + "/" + id(2) + ".call.json"));
  EXPECT_TRUE(exists(3) && exists(4) && exists(5));
  std::ofstream(folder + "/notes.json") << "{}";  // not a report id: not the server's

  // 400 kB reports under a 1 MiB cap: two stay; one of 2 MB stays alone, being the newest.
  mcp::ReportCache by_bytes(roots, {.max_file_bytes = 0, .max_reports = 100, .max_bytes = 1 << 20});
  std::string report = "[\"" + std::string(400'000, 'x') + "\"]";
  for (int k = 6; k <= 8; ++k) store(by_bytes, k, report);
  EXPECT_FALSE(exists(6));
  EXPECT_TRUE(exists(7) && exists(8));
  EXPECT_FALSE(exists(3));  // small, but older than the two that fill the cap with the newest
  store(by_bytes, 9, "[\"" + std::string(2'000'000, 'x') + "\"]");
  EXPECT_TRUE(exists(9));
  EXPECT_FALSE(exists(8));
  EXPECT_TRUE(fs::exists(folder + "/notes.json"));
}

}  // namespace
}  // namespace perfgate::testing
