#include "mcp/server.h"

#include <iostream>
#include <new>

#include <fmt/format.h>

#include "common/version.h"

namespace perfgate::mcp {
namespace {

const json::object& params_object(const json::object& params, std::string_view key) {
  static const json::object none;
  const json::value* v = params.if_contains(key);
  if (!v || v->is_null()) return none;
  if (!v->is_object()) throw RpcError(kInvalidParams, fmt::format("\"{}\" must be an object", key));
  return v->get_object();
}

std::string required_string(const json::object& params, std::string_view key) {
  const json::value* v = params.if_contains(key);
  if (!v || !v->is_string())
    throw RpcError(kInvalidParams, fmt::format("\"{}\" (a string) is required", key));
  return std::string(v->get_string());
}

constexpr std::string_view kInstructions =
    "perfgate analyses deep-learning profiles. Call analyze with trace paths (under the server's roots) to "
    "get the "
    "verdict, headline metrics and findings with a report id; then table (paged rows), explain (a finding or "
    "metric), compare (against a baseline), metrics (the catalog) and trend (a run history). The whole "
    "report is "
    "the resource perfgate://report/{id} (also /html and /markdown).";

}  // namespace

json::value Server::initialize(const json::object& params) {
  std::string asked = required_string(params, "protocolVersion");
  // The client's revision when this server speaks it, else the newest this server does (the client
  // then decides whether it can go on).
  protocol_version_ = std::string(kProtocolVersions[0]);
  for (std::string_view v : kProtocolVersions)
    if (v == asked) protocol_version_ = asked;
  return json::object{
      {"protocolVersion", protocol_version_},
      {"capabilities",
       {{"tools", {{"listChanged", false}}}, {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
      {"serverInfo", {{"name", "perfgate"}, {"title", "perfgate"}, {"version", kVersion}}},
      {"instructions", kInstructions}};
}

json::value Server::dispatch(const Request& request) {
  const std::string& m = request.method;
  const json::object& p = request.params;
  if (m == "initialize") return initialize(p);
  if (m == "ping") return json::object{};
  if (m == "tools/list") return json::object{{"tools", session_.tool_list()}};
  if (m == "tools/call") {
    std::string name = required_string(p, "name");
    return session_.call_tool(name, params_object(p, "arguments"));
  }
  if (m == "resources/list") return json::object{{"resources", session_.resource_list()}};
  if (m == "resources/templates/list")
    return json::object{{"resourceTemplates", session_.resource_templates()}};
  if (m == "resources/read") return session_.read_resource(required_string(p, "uri"));
  throw RpcError(kMethodNotFound, fmt::format("method not found: {}", m));
}

std::optional<json::object> Server::handle(const json::value& message) {
  CheckedMessage checked = check_message(message);
  if (checked.error) return checked.error;
  if (!checked.request) return std::nullopt;  // a response: this server asks nothing
  const Request& request = *checked.request;
  // Notifications (initialized, cancelled, progress, roots/list_changed) need no reply; the server
  // acts on none of them: every request is answered before the next is read.
  if (request.notification) return std::nullopt;
  try {
    return result_reply(request.id, dispatch(request));
  } catch (const RpcError& e) {
    return error_reply(request.id, e.code, e.what());
  } catch (const std::bad_alloc&) {
    return error_reply(request.id, kInternalError, "out of memory");
  } catch (const std::exception& e) {
    return error_reply(request.id, kInternalError, std::string("internal error: ") + e.what());
  }
}

std::optional<std::string> Server::handle_line(std::string_view line) {
  std::string why;
  std::optional<json::value> message = parse_message(line, why);
  if (!message) return json::serialize(error_reply(nullptr, kParseError, "parse error: " + why));
  if (!message->is_array()) {
    std::optional<json::object> reply = handle(*message);
    if (!reply) return std::nullopt;
    return json::serialize(*reply);
  }
  const json::array& batch = message->get_array();
  if (batch.empty()) return json::serialize(error_reply(nullptr, kInvalidRequest, "an empty batch"));
  if (batch.size() > kMaxBatch)
    return json::serialize(
        error_reply(nullptr, kInvalidRequest,
                    fmt::format("a batch of {} messages; at most {}", batch.size(), kMaxBatch)));
  json::array replies;
  for (const json::value& one : batch)
    if (std::optional<json::object> reply = handle(one)) replies.push_back(std::move(*reply));
  if (replies.empty()) return std::nullopt;
  return json::serialize(replies);
}

std::string Server::too_long_reply() const {
  return json::serialize(
      error_reply(nullptr, kInvalidRequest,
                  fmt::format("message over {} bytes, skipped (perfgate mcp --max-message-bytes)",
                              session_.options().max_message_bytes)));
}

int serve(LineReader& reader, Server& server, const std::function<bool(std::string_view)>& write) {
  std::string line;
  for (;;) {
    LineReader::Status status = reader.next(line);
    if (status == LineReader::Status::End) return 0;
    std::optional<std::string> reply =
        status == LineReader::Status::TooLong ? server.too_long_reply() : server.handle_line(line);
    if (reply && !write(*reply + "\n")) {
      std::cerr << "perfgate mcp: the client closed its end; stopping\n";
      return 0;
    }
  }
}

}  // namespace perfgate::mcp
