// The MCP server's protocol layer: a line in, the reply line out (initialize and version
// negotiation, ping, tools/*, resources/*, prompts/*), notifications out (progress), and the stdio
// loop around it: the requests are run in order on a worker thread while the reading thread answers
// ping and takes cancellations. Nothing but JSON-RPC messages is ever written to its output.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "mcp/jsonrpc.h"
#include "mcp/line_reader.h"
#include "mcp/session.h"

namespace perfgate::mcp {

// The protocol revisions this server speaks, newest first (https://modelcontextprotocol.io/specification).
inline constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                         "2024-11-05"};
inline constexpr std::size_t kMaxBatch = 64;  // messages in one JSON-RPC batch (2025-03-26 and before)

class Server {
 public:
  explicit Server(Session& session) : session_(session) {}

  // The reply to one message line (a request, a notification or a batch); nullopt when none is due
  // (a cancelled request gets none).
  std::optional<std::string> handle_line(std::string_view line);
  // What the reading thread does itself while a request runs: a ping's reply, or "" for a
  // notifications/cancelled it took; nullopt for every other line (handle_line, in order).
  std::optional<std::string> answer_at_once(std::string_view line);
  // Where the server's notifications go (notifications/progress), from any thread; unset: dropped.
  using Notifier = std::function<void(json::object)>;
  void set_notifier(Notifier notify) { notify_ = std::move(notify); }
  // The client cancelled request `id` (notifications/cancelled): when it runs, or once it does, it
  // stops and gets no reply.
  void cancel(const json::value& id);
  // The error reply to a line past the message limit (whose id could not be read).
  std::string too_long_reply() const;

  const std::string& protocol_version() const { return protocol_version_; }

 private:
  std::optional<json::object> handle(const json::value& message);
  json::value dispatch(const Request& request);
  json::value initialize(const json::object& params);
  json::value call_tool(const json::object& params);
  CallContext::Progress progress_to(const json::object& params);
  // Marks `id` as the request running (false: cancelled before it ran), then as none.
  bool begin(const json::value& id);
  bool end();  // false: cancelled while it ran

  Session& session_;
  std::string protocol_version_;  // negotiated; empty before initialize
  Notifier notify_;
  std::mutex calls_mutex_;
  json::value running_;  // the id of the request running; null: none
  std::atomic<bool> running_cancelled_{false};
  std::deque<json::value> cancelled_;  // ids cancelled before they ran (the last kMaxCancelled)
};

// Serves until the input ends (or the output is closed): each line of `reader` handled, each reply
// written with `write` (false: the client is gone). Returns the exit code: 0.
int serve(LineReader& reader, Server& server, const std::function<bool(std::string_view)>& write);

}  // namespace perfgate::mcp
