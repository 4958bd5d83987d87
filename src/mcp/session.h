// What one `perfgate mcp` server holds: its options, the roots, and the reports analysed so far
// (each kept as its report model, its JSON report parsed, and the rules it was gated with); the
// tools and resources read them.
#pragma once

#include <boost/json.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "engine/request_options.h"
#include "mcp/report_cache.h"
#include "mcp/roots.h"
#include "report_model/report.h"

namespace perfgate::mcp {

namespace json = boost::json;

// The documented limits (docs/agents.md#limits).
inline constexpr std::size_t kDefaultMaxMessageBytes = 4 * 1024 * 1024;  // a request line
inline constexpr std::size_t kMaxReportsKept = 16;                       // the oldest is dropped
inline constexpr std::int64_t kMaxTableRows = 200;                       // rows per `table` call
inline constexpr std::size_t kMaxResultBytes = 48 * 1024;                // a tool result's page, roughly
inline constexpr std::size_t kMaxTextBytes = 64 * 1024;                  // a result's text block, at most
inline constexpr std::size_t kSummaryBudgetBytes = 6 * 1024;             // analyze's and compare's
inline constexpr std::size_t kResourcePageBytes = 4 * 1024 * 1024;       // a resources/read reply's text

struct McpOptions {
  std::vector<std::string> roots;  // --root; none: the working folder
  bool allow_write = false;        // --allow-write: analyze may record runs into a history
  // The server's flags of the run's options (kShownByMcpServer: --threads, --max-input-memory,
  // --max-memory, --spill-dir), every call's limits.
  RequestSettings run;
  std::size_t max_message_bytes = kDefaultMaxMessageBytes;
  // --max-memory and --spill-dir, resolved (engine/memory_budget.h; 0 bytes: no budget): each
  // request's (RunLimits::memory). The reports kept hold at most half of it: past that the oldest
  // are dropped, the newest always kept.
  MemoryBudget memory;
  std::size_t resource_page_bytes = kResourcePageBytes;
};

struct StoredReport {
  // A content id ("r" and 16 hex digits: report_cache.h) where the server may write, else "r1",
  // "r2", ... for as long as this server runs.
  std::string id;
  bool lasts = false;  // stored in the cache folder: a later server finds it by its id
  // Why a writing server's report is not in the cache folder (a full disk): its id lasts while this
  // server runs. Empty otherwise.
  std::string not_stored;
  // The call that made it: {tool, arguments, run}, run being the arguments that make the same run
  // again (its paths resolved under the roots), so that `compare` can analyse it against a baseline.
  json::object call;
  // Null for a report read from the cache folder (made by an earlier server): its JSON is then the
  // file `cached_path`.
  std::shared_ptr<const ReportModel> model;
  std::string cached_path;
  std::shared_ptr<const RuleBook> book;  // the rules it was gated with
  json::object doc;  // the JSON report (render_json), which every tool reads: the CLI's numbers
  // What it holds: `doc` as allocated (counted by its memory resource) and the model, counted as
  // the size of its JSON text.
  std::uint64_t bytes = 0;
};

// A tool's answer: its structured result (structuredContent, as its outputSchema declares), which
// the text block repeats as JSON (docs/agents.md#results).
using ToolOutput = json::object;

// What a tools/call is told and tells while it runs: the client's cancellation, and where its
// progress goes (unset: the client asked for none). Progress must grow; a smaller value is dropped.
struct CallContext {
  using Progress = std::function<void(double done, double total, const std::string& message)>;
  const std::atomic<bool>* cancelled = nullptr;
  Progress progress;

  bool stop_requested() const { return cancelled && cancelled->load(); }
  void tell(double done, double total, const std::string& message) const {
    if (progress) progress(done, total, message);
  }
};

class Session {
 public:
  explicit Session(McpOptions options);

  const McpOptions& options() const { return options_; }
  const Roots& roots() const { return roots_; }

  // Keeps a gated report (dropping the oldest past kMaxReportsKept, or while the reports kept hold
  // more than kept_budget()) under its id: a content id of the call and the files the run read
  // (`reads`), the report stored in the cache folder, where the server may write; else a new one.
  const StoredReport& keep(json::object call, const std::vector<std::string>& reads, ReportModel model,
                           std::shared_ptr<const RuleBook> book);
  // The report of that id, kept or in the cache folder; ConfigError naming the ids kept when none.
  const StoredReport& report(const std::string& id);
  const std::deque<StoredReport>& reports() const { return reports_; }
  // The bytes the kept reports hold, and the most they may (0: no budget but kMaxReportsKept).
  std::uint64_t kept_bytes() const { return kept_bytes_; }
  std::uint64_t kept_budget() const { return options_.memory.bytes / 2; }

  json::array tool_list() const;
  // A tools/call result: {content, structuredContent, isError}. An unknown tool is an RpcError
  // (invalid params); a tool that fails is a result with isError and the CLI's message and exit code.
  // RunStopped (engine/run_request.h) passes through: a cancelled call gets no reply.
  json::object call_tool(std::string_view name, const json::object& arguments, CallContext context = {});
  // The context of the call running now.
  const CallContext& call() const { return call_; }

  json::array resource_list() const;
  json::array resource_templates() const;
  json::object read_resource(const std::string& uri);

 private:
  const StoredReport& hold(StoredReport stored, const std::string& json_text);
  // The same with its JSON parsed, `bytes` what it holds.
  const StoredReport& hold_parsed(StoredReport stored, json::object doc, std::uint64_t bytes);
  const StoredReport* cached(const std::string& id);
  McpOptions options_;
  Roots roots_;
  ReportCache cache_;
  std::deque<StoredReport> reports_;
  std::uint64_t kept_bytes_ = 0;
  std::size_t next_id_ = 1;
  CallContext call_;
};

// The tools, one file per family (analyze_tool.cpp, table_tool.cpp, catalog_tools.cpp, trend_tool.cpp).
ToolOutput analyze_tool(Session& session, const json::object& args);
ToolOutput compare_tool(Session& session, const json::object& args);
ToolOutput table_tool(Session& session, const json::object& args);
ToolOutput metrics_tool(Session& session, const json::object& args);
ToolOutput explain_tool(Session& session, const json::object& args);
ToolOutput trend_tool(Session& session, const json::object& args);
ToolOutput list_profiles_tool(Session& session, const json::object& args);
ToolOutput events_tool(Session& session, const json::object& args);

// The request that makes a run again from a call's `run` arguments (paths, rules, set, disable,
// options), as analyze reads them (analyze_tool.cpp).
// `settings`: what the call gave besides them (its baselines, its history), the server's limits
// put on top.
RunRequest run_request_of(const Session& session, const json::object& run, RequestSettings settings = {});

// The argument that gives a field of the engine's request (RequestError::field(), a run option of
// engine/request_options.def): options.iter_start, options.time_start_us, workload.
std::string argument_of(std::string_view field);

// Each tool's name, description, input and output schemas (tool_schemas.cpp).
json::array tool_definitions();

// The prompts (prompts.cpp): prompts/list's, and prompts/get's messages (RpcError for an unknown name).
json::array prompt_list();
json::object get_prompt(const std::string& name, const json::object& arguments);

}  // namespace perfgate::mcp
