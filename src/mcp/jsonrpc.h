// JSON-RPC 2.0 as MCP uses it (https://www.jsonrpc.org/specification): a message checked into a
// request or a notification, or the error reply it gets; replies built and written as one line.
#pragma once

#include <boost/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace perfgate::mcp {

namespace json = boost::json;

// The specification's error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// Thrown by a method's handler: answered as a JSON-RPC error with this code.
struct RpcError : std::runtime_error {
  RpcError(int error_code, const std::string& message) : std::runtime_error(message), code(error_code) {}
  int code;
};

struct Request {
  json::value id;  // null for a notification
  bool notification = false;
  std::string method;
  json::object params;  // absent params: empty
};

// The longest request id or progress token echoed back (issue 92: a 3 MiB progressToken was echoed in
// every notification, 34.6 MB for a 5 s call): a longer one is refused.
inline constexpr std::size_t kMaxEchoedBytes = 256;

// A message checked: a request (or notification), a response from the client (which the server
// never asks for, so it is dropped), or the error reply an invalid message gets.
struct CheckedMessage {
  std::optional<Request> request;
  std::optional<json::object> error;
};
CheckedMessage check_message(const json::value& message);

// Parses a line as JSON, nested at most `max_depth` deep; nullopt (with the reason) if it is not.
std::optional<json::value> parse_message(std::string_view line, std::string& why, std::size_t max_depth = 64);

json::object result_reply(const json::value& id, json::value result);
json::object error_reply(const json::value& id, int code, std::string_view message);

// A message's or a text block's JSON, compact, its numbers as the JSON report writes them (55.514085,
// never Boost's 5.5514085E1; render/json_writer.h): a text block's numbers are then the structured
// content's, character for character (issue 93).
std::string json_text(const json::value& value);

}  // namespace perfgate::mcp
