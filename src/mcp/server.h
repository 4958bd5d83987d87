// The MCP server's protocol layer: a line in, the reply line out (initialize and version
// negotiation, ping, tools/*, resources/*), and the stdio loop around it. Nothing but replies is
// ever written to its output.
#pragma once

#include <functional>
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

  // The reply to one message line (a request, a notification or a batch); nullopt when none is due.
  std::optional<std::string> handle_line(std::string_view line);
  // The error reply to a line past the message limit (whose id could not be read).
  std::string too_long_reply() const;

  const std::string& protocol_version() const { return protocol_version_; }

 private:
  std::optional<json::object> handle(const json::value& message);
  json::value dispatch(const Request& request);
  json::value initialize(const json::object& params);

  Session& session_;
  std::string protocol_version_;  // negotiated; empty before initialize
};

// Serves until the input ends (or the output is closed): each line of `reader` handled, each reply
// written with `write` (false: the client is gone). Returns the exit code: 0.
int serve(LineReader& reader, Server& server, const std::function<bool(std::string_view)>& write);

}  // namespace perfgate::mcp
