#include "mcp/jsonrpc.h"

#include "render/json_writer.h"

namespace perfgate::mcp {

CheckedMessage check_message(const json::value& message) {
  CheckedMessage out;
  const json::object* object = message.if_object();
  if (!object) {
    out.error = error_reply(nullptr, kInvalidRequest, "a JSON-RPC message is an object");
    return out;
  }
  // The id to answer: a string or a number; anything else cannot be echoed, so the reply's is null.
  json::value id = nullptr;
  const json::value* given_id = object->if_contains("id");
  bool valid_id = !given_id || given_id->is_string() || given_id->is_int64() || given_id->is_uint64();
  if (given_id && valid_id) id = *given_id;
  const json::value* version = object->if_contains("jsonrpc");
  if (!version || !version->is_string() || version->get_string() != "2.0") {
    out.error = error_reply(id, kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
    return out;
  }
  const json::value* method = object->if_contains("method");
  if (!method) {
    // A response (result or error) to a request the server never sends: nothing to answer.
    if (given_id && (object->contains("result") || object->contains("error"))) return out;
    out.error = error_reply(id, kInvalidRequest, "a request has a \"method\"");
    return out;
  }
  if (!method->is_string()) {
    out.error = error_reply(id, kInvalidRequest, "\"method\" must be a string");
    return out;
  }
  if (!valid_id) {
    out.error = error_reply(nullptr, kInvalidRequest, "\"id\" must be a string or an integer");
    return out;
  }
  if (given_id && given_id->is_string() && given_id->get_string().size() > kMaxEchoedBytes) {
    out.error = error_reply(nullptr, kInvalidRequest,
                            "\"id\" is longer than " + std::to_string(kMaxEchoedBytes) + " bytes");
    return out;
  }
  Request request;
  request.id = id;
  request.notification = !given_id;
  request.method = std::string(method->get_string());
  if (const json::value* params = object->if_contains("params")) {
    if (params->is_object()) {
      request.params = params->get_object();
    } else if (!params->is_null()) {
      // MCP's params are always named (an object).
      out.error = error_reply(id, kInvalidParams, "\"params\" must be an object");
      if (request.notification) out.error.reset();
      return out;
    }
  }
  out.request = std::move(request);
  return out;
}

std::optional<json::value> parse_message(std::string_view line, std::string& why, std::size_t max_depth) {
  json::parse_options options;
  options.max_depth = max_depth;
  boost::system::error_code ec;
  json::value value = json::parse(line, ec, {}, options);
  if (ec) {
    why = ec.message();
    return std::nullopt;
  }
  return value;
}

namespace {

void write_value(JsonWriter& w, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      w.null();
      break;
    case json::kind::bool_:
      w.value(v.get_bool());
      break;
    case json::kind::int64:
      w.value(v.get_int64());
      break;
    case json::kind::uint64:
      w.value(v.get_uint64());
      break;
    case json::kind::double_:
      w.value(v.get_double());
      break;
    case json::kind::string:
      w.value(std::string_view(v.get_string()));
      break;
    case json::kind::array:
      w.begin_array();
      for (const json::value& item : v.get_array()) write_value(w, item);
      w.end_array();
      break;
    case json::kind::object:
      w.begin_object();
      for (const auto& [key, item] : v.get_object()) {
        w.key(JsonKey(std::string_view(key)));
        write_value(w, item);
      }
      w.end_object();
      break;
  }
}

}  // namespace

std::string json_text(const json::value& value) {
  JsonWriter w(0);
  write_value(w, value);
  return w.str();
}

json::object result_reply(const json::value& id, json::value result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json::object error_reply(const json::value& id, int code, std::string_view message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

}  // namespace perfgate::mcp
