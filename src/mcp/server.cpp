#include "mcp/server.h"

#include <condition_variable>
#include <iostream>
#include <new>
#include <thread>

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

constexpr std::size_t kMaxCancelled = 64;

constexpr std::string_view kInstructions =
    "perfgate analyses deep-learning profiles. list_profiles finds them under the server's roots; analyze "
    "(trace paths) gives the verdict, headline metrics and findings with a report id; then table (paged "
    "rows), events (the instances of a kernel or op), explain (a finding or metric), compare (against a "
    "baseline), metrics (the catalog) and trend (a run history). The whole report is the resource "
    "perfgate://report/{id} (also /html and /markdown). The prompt discover walks through them.";

}  // namespace

json::value Server::initialize(const json::object& params) {
  std::string asked = required_string(params, "protocolVersion");
  // The client's revision when this server speaks it, else the newest this server does (the client
  // then decides whether it can go on).
  protocol_version_ = std::string(kProtocolVersions[0]);
  for (std::string_view v : kProtocolVersions)
    if (v == asked) protocol_version_ = asked;
  return json::object{{"protocolVersion", protocol_version_},
                      {"capabilities",
                       {{"tools", {{"listChanged", false}}},
                        {"resources", {{"subscribe", false}, {"listChanged", false}}},
                        {"prompts", {{"listChanged", false}}}}},
                      {"serverInfo", {{"name", "perfgate"}, {"title", "perfgate"}, {"version", kVersion}}},
                      {"instructions", kInstructions}};
}

json::value Server::call_tool(const json::object& params) {
  std::string name = required_string(params, "name");
  CallContext context{.cancelled = &running_cancelled_, .progress = progress_to(params)};
  return session_.call_tool(name, params_object(params, "arguments"), std::move(context));
}

// notifications/progress for the call's _meta.progressToken, growing (a value not above the last
// is dropped); none without a token or a notifier.
CallContext::Progress Server::progress_to(const json::object& params) {
  const json::object& meta = params_object(params, "_meta");
  const json::value* token = meta.if_contains("progressToken");
  if (!token || !notify_) return {};
  if (!token->is_string() && !token->is_int64() && !token->is_uint64())
    throw RpcError(kInvalidParams, "\"_meta.progressToken\" must be a string or an integer");
  if (token->is_string() && token->get_string().size() > kMaxEchoedBytes)
    throw RpcError(kInvalidParams,
                   "\"_meta.progressToken\" is longer than " + std::to_string(kMaxEchoedBytes) + " bytes");
  struct State {
    std::mutex mutex;
    double last = -1;
  };
  auto state = std::make_shared<State>();
  return [notify = notify_, token = *token, state](double done, double total, const std::string& message) {
    std::lock_guard lock(state->mutex);
    if (done <= state->last) return;
    state->last = done;
    notify(
        {{"jsonrpc", "2.0"},
         {"method", "notifications/progress"},
         {"params", {{"progressToken", token}, {"progress", done}, {"total", total}, {"message", message}}}});
  };
}

void Server::cancel(const json::value& id) {
  std::lock_guard lock(calls_mutex_);
  if (!running_.is_null() && running_ == id) {
    running_cancelled_ = true;
    return;
  }
  cancelled_.push_back(id);
  if (cancelled_.size() > kMaxCancelled) cancelled_.pop_front();
}

bool Server::begin(const json::value& id) {
  std::lock_guard lock(calls_mutex_);
  for (auto it = cancelled_.begin(); it != cancelled_.end(); ++it)
    if (*it == id) {
      cancelled_.erase(it);
      return false;
    }
  running_ = id;
  running_cancelled_ = false;
  return true;
}

bool Server::end() {
  std::lock_guard lock(calls_mutex_);
  running_ = nullptr;
  return !running_cancelled_.exchange(false);
}

json::value Server::dispatch(const Request& request) {
  const std::string& m = request.method;
  const json::object& p = request.params;
  if (m == "initialize") return initialize(p);
  if (m == "ping") return json::object{};
  if (m == "tools/list") return json::object{{"tools", session_.tool_list()}};
  if (m == "tools/call") return call_tool(p);
  if (m == "resources/list") return json::object{{"resources", session_.resource_list()}};
  if (m == "resources/templates/list")
    return json::object{{"resourceTemplates", session_.resource_templates()}};
  if (m == "resources/read") return session_.read_resource(required_string(p, "uri"));
  if (m == "prompts/list") return json::object{{"prompts", prompt_list()}};
  if (m == "prompts/get") return get_prompt(required_string(p, "name"), params_object(p, "arguments"));
  throw RpcError(kMethodNotFound, fmt::format("method not found: {}", m));
}

std::optional<json::object> Server::handle(const json::value& message) {
  CheckedMessage checked = check_message(message);
  if (checked.error) return checked.error;
  if (!checked.request) return std::nullopt;  // a response: this server asks nothing
  const Request& request = *checked.request;
  // Notifications need no reply; of those a client sends (initialized, cancelled, progress,
  // roots/list_changed) the server acts on cancellations.
  if (request.notification) {
    if (request.method == "notifications/cancelled")
      if (const json::value* id = request.params.if_contains("requestId")) cancel(*id);
    return std::nullopt;
  }
  if (!begin(request.id)) return std::nullopt;  // cancelled before it ran
  try {
    json::value result = dispatch(request);
    if (!end()) return std::nullopt;  // cancelled as it ended: the client has stopped waiting
    return result_reply(request.id, std::move(result));
  } catch (const RunStopped&) {
    end();
    return std::nullopt;
  } catch (const RpcError& e) {
    if (!end()) return std::nullopt;
    return error_reply(request.id, e.code, e.what());
  } catch (const std::bad_alloc&) {
    if (!end()) return std::nullopt;
    return error_reply(request.id, kInternalError, "out of memory");
  } catch (const std::exception& e) {
    if (!end()) return std::nullopt;
    return error_reply(request.id, kInternalError, std::string("internal error: ") + e.what());
  }
}

std::optional<std::string> Server::handle_line(std::string_view line) {
  std::string why;
  std::optional<json::value> message = parse_message(line, why);
  if (!message) return json_text(error_reply(nullptr, kParseError, "parse error: " + why));
  if (!message->is_array()) {
    std::optional<json::object> reply = handle(*message);
    if (!reply) return std::nullopt;
    return json_text(*reply);
  }
  const json::array& batch = message->get_array();
  if (batch.empty()) return json_text(error_reply(nullptr, kInvalidRequest, "an empty batch"));
  if (batch.size() > kMaxBatch)
    return json_text(error_reply(nullptr, kInvalidRequest,
                                 fmt::format("a batch of {} messages; at most {}", batch.size(), kMaxBatch)));
  json::array replies;
  for (const json::value& one : batch)
    if (std::optional<json::object> reply = handle(one)) replies.push_back(std::move(*reply));
  if (replies.empty()) return std::nullopt;
  return json_text(replies);
}

std::optional<std::string> Server::answer_at_once(std::string_view line) {
  std::string why;
  std::optional<json::value> message = parse_message(line, why);
  if (!message || !message->is_object()) return std::nullopt;
  CheckedMessage checked = check_message(*message);
  if (!checked.request) return std::nullopt;
  const Request& request = *checked.request;
  if (request.method == "ping" && !request.notification)
    return json_text(result_reply(request.id, json::object{}));
  if (request.method == "notifications/cancelled" && request.notification) {
    if (const json::value* id = request.params.if_contains("requestId")) cancel(*id);
    return std::string();
  }
  return std::nullopt;
}

std::string Server::too_long_reply() const {
  return json_text(
      error_reply(nullptr, kInvalidRequest,
                  fmt::format("message over {} bytes, skipped (perfgate mcp --max-message-bytes)",
                              session_.options().max_message_bytes)));
}

namespace {

// The lines the worker thread handles, in order; closed when the input ends.
class LineQueue {
 public:
  void push(std::string line) {
    std::lock_guard lock(mutex_);
    lines_.push_back(std::move(line));
    ready_.notify_one();
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_one();
  }
  std::optional<std::string> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !lines_.empty(); });
    if (lines_.empty()) return std::nullopt;
    std::string line = std::move(lines_.front());
    lines_.pop_front();
    return line;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> lines_;
  bool closed_ = false;
};

}  // namespace

int serve(LineReader& reader, Server& server, const std::function<bool(std::string_view)>& write) {
  std::mutex output;
  std::atomic<bool> gone{false};
  auto send = [&](const std::string& message) {
    std::lock_guard lock(output);
    if (gone) return;
    if (!write(message + "\n")) {
      gone = true;
      std::cerr << "perfgate mcp: the client closed its end; stopping\n";
    }
  };
  server.set_notifier([&](json::object notification) { send(json_text(notification)); });
  LineQueue queue;
  std::thread worker([&] {
    while (std::optional<std::string> line = queue.pop())
      if (!gone)
        if (std::optional<std::string> reply = server.handle_line(*line)) send(*reply);
  });
  std::string line;
  while (!gone) {
    LineReader::Status status = reader.next(line);
    if (status == LineReader::Status::End) break;
    if (status == LineReader::Status::TooLong) {
      send(server.too_long_reply());
    } else if (std::optional<std::string> at_once = server.answer_at_once(line)) {
      if (!at_once->empty()) send(*at_once);
    } else {
      queue.push(std::move(line));
    }
  }
  // The requests read before the input ended are still answered (a client that closes its end
  // after sending them reads their replies).
  queue.close();
  worker.join();
  server.set_notifier(nullptr);
  return 0;
}

}  // namespace perfgate::mcp
