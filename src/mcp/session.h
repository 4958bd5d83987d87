// What one `perfgate mcp` server holds: its options, the roots, and the reports analysed so far
// (each kept as its report model, its JSON report parsed, and the rules it was gated with); the
// tools and resources read them.
#pragma once

#include <boost/json.hpp>

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "mcp/roots.h"
#include "report_model/report.h"

namespace perfgate::mcp {

namespace json = boost::json;

// The documented limits (docs/agents.md#limits).
inline constexpr std::size_t kDefaultMaxMessageBytes = 4 * 1024 * 1024;  // a request line
inline constexpr std::size_t kMaxReportsKept = 16;                       // the oldest is dropped
inline constexpr std::int64_t kMaxTableRows = 200;                       // rows per `table` call
inline constexpr std::size_t kMaxResultBytes = 64 * 1024;                // a tool result, roughly
inline constexpr std::size_t kSummaryBudgetBytes = 6 * 1024;             // analyze's and compare's
inline constexpr std::size_t kResourcePageBytes = 4 * 1024 * 1024;       // a resources/read reply's text

struct McpOptions {
  std::vector<std::string> roots;  // --root; none: the working folder
  bool allow_write = false;        // --allow-write: analyze may record runs into a history
  std::string max_input_memory;    // --max-input-memory, as analyze's
  unsigned threads = 0;            // --threads
  std::size_t max_message_bytes = kDefaultMaxMessageBytes;
  // --max-memory, resolved (engine/memory_budget.h; 0: no budget). The reports kept hold at most
  // half of it: past that the oldest are dropped, the newest always kept.
  std::uint64_t max_memory = 0;
  std::size_t resource_page_bytes = kResourcePageBytes;
};

struct StoredReport {
  std::string id;  // "r1", "r2", ...
  // How the report was asked for (its paths resolved under the roots), so that `compare` can
  // analyse the same run again against a baseline.
  RunRequest request;
  std::shared_ptr<const ReportModel> model;
  std::shared_ptr<const RuleBook> book;  // the rules it was gated with
  json::object doc;  // the JSON report (render_json), which every tool reads: the CLI's numbers
  // What it holds: `doc` as allocated (counted by its memory resource) and the model, counted as
  // the size of its JSON text.
  std::uint64_t bytes = 0;
};

// A tool's answer: the structured result and its short rendering as text.
struct ToolOutput {
  json::object structured;
  std::string text;
};

class Session {
 public:
  explicit Session(McpOptions options);

  const McpOptions& options() const { return options_; }
  const Roots& roots() const { return roots_; }

  // Keeps a gated report under a new id (dropping the oldest past kMaxReportsKept, or while the
  // reports kept hold more than kept_budget()).
  const StoredReport& keep(RunRequest request, ReportModel model, std::shared_ptr<const RuleBook> book);
  // The report of that id; ConfigError naming the ids kept when there is none.
  const StoredReport& report(const std::string& id) const;
  const std::deque<StoredReport>& reports() const { return reports_; }
  // The bytes the kept reports hold, and the most they may (0: no budget but kMaxReportsKept).
  std::uint64_t kept_bytes() const { return kept_bytes_; }
  std::uint64_t kept_budget() const { return options_.max_memory / 2; }

  json::array tool_list() const;
  // A tools/call result: {content, structuredContent, isError}. An unknown tool is an RpcError
  // (invalid params); a tool that fails is a result with isError and the CLI's message and exit code.
  json::object call_tool(std::string_view name, const json::object& arguments);

  json::array resource_list() const;
  json::array resource_templates() const;
  json::object read_resource(const std::string& uri) const;

 private:
  McpOptions options_;
  Roots roots_;
  std::deque<StoredReport> reports_;
  std::uint64_t kept_bytes_ = 0;
  std::size_t next_id_ = 1;
};

// The tools, one file per family (analyze_tool.cpp, table_tool.cpp, catalog_tools.cpp, trend_tool.cpp).
ToolOutput analyze_tool(Session& session, const json::object& args);
ToolOutput compare_tool(Session& session, const json::object& args);
ToolOutput table_tool(Session& session, const json::object& args);
ToolOutput metrics_tool(Session& session, const json::object& args);
ToolOutput explain_tool(Session& session, const json::object& args);
ToolOutput trend_tool(Session& session, const json::object& args);

// Each tool's name, description and input schema (tool_schemas.cpp).
json::array tool_definitions();

}  // namespace perfgate::mcp
