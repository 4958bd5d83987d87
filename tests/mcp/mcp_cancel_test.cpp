// perfgate mcp while a tool runs (issue 76): notifications/cancelled stops an analysis (no reply,
// no report kept), ping is answered while it runs (it runs on the worker thread of `serve`), and a
// progressToken gets growing notifications/progress.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "mcp/line_reader.h"
#include "support/helpers.h"
#include "support/mcp_server_fixture.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

std::string tools_call(int id, const std::string& path, const json::object& meta = {}) {
  json::object params{{"name", "analyze"}, {"arguments", {{"paths", json::array{json::string(path)}}}}};
  if (!meta.empty()) params["_meta"] = meta;
  return json::serialize(
      json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}});
}

std::string cancelled(int id) {
  return json::serialize(json::object{{"jsonrpc", "2.0"},
                                      {"method", "notifications/cancelled"},
                                      {"params", {{"requestId", id}, {"reason", "test"}}}});
}

// A trace of `steps` steps of 40 ops and kernels each: a few seconds to read and analyse on one thread.
std::string big_trace(const std::string& path, int steps) {
  TraceBuilder b;
  for (int s = 1; s <= steps; ++s) {
    double t = s * 10'000.0;
    b.step(s, t, 9'000);
    for (int k = 0; k < 40; ++k) {
      b.op("aten::mm", t + 10 + k * 200, 100, s * 100 + k);
      b.launch("gemm_kernel_" + std::to_string(k % 7), t + 20 + k * 200, t + 50 + k * 200, 80, s * 100 + k);
    }
  }
  return b.write(path);
}

TEST_F(McpServerTest, ARequestCancelledBeforeItRunsGetsNoReply) {
  big_trace(root_ + "/t.json", 2);
  EXPECT_FALSE(server_.handle_line(cancelled(9)));
  EXPECT_FALSE(server_.handle_line(tools_call(9, "t.json")));
  EXPECT_TRUE(session_.reports().empty());
  // Another id runs as before.
  std::optional<std::string> r = server_.handle_line(tools_call(10, "t.json"));
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(*r).at("result").at("isError"), json::value(false)) << *r;
}

TEST_F(McpServerTest, AProgressTokenGetsGrowingProgressToTheEnd) {
  big_trace(root_ + "/t.json", 50);
  std::optional<std::string> r = server_.handle_line(tools_call(3, "t.json", {{"progressToken", "tok"}}));
  ASSERT_TRUE(r);
  ASSERT_GE(sent_.size(), 2u);  // at least the gate's and the end's
  double last = -1;
  for (const json::object& n : sent_) {
    EXPECT_EQ(n.at("method"), json::value("notifications/progress"));
    EXPECT_EQ(n.at("params").at("progressToken"), json::value("tok"));
    double progress = n.at("params").at("progress").to_number<double>();
    EXPECT_GT(progress, last);
    last = progress;
  }
  EXPECT_EQ(last, 100.0);
  EXPECT_EQ(sent_.back().at("params").at("total"), json::value(100.0));
  // Without a token: none.
  sent_.clear();
  server_.handle_line(tools_call(4, "t.json"));
  EXPECT_TRUE(sent_.empty());
}

// Issue 92, item 6: a 3 MiB progressToken was echoed in every notification (34.6 MB for a 5 s call).
// A token or an id longer than 256 bytes is refused; 256 are echoed.
TEST_F(McpServerTest, ALongProgressTokenOrIdIsRefused) {
  big_trace(root_ + "/t.json", 2);
  std::optional<std::string> r =
      server_.handle_line(tools_call(5, "t.json", {{"progressToken", std::string(3 << 20, 'x')}}));
  ASSERT_TRUE(r);
  json::object reply = json::parse(*r).as_object();
  EXPECT_EQ(reply.at("id"), json::value(5));
  EXPECT_EQ(reply.at("error").at("code"), json::value(-32602)) << *r;
  EXPECT_TRUE(sent_.empty());
  EXPECT_TRUE(session_.reports().empty());
  json::object call = json::parse(tools_call(6, "t.json")).as_object();
  call["id"] = std::string(257, 'i');
  r = server_.handle_line(json::serialize(call));
  ASSERT_TRUE(r);
  reply = json::parse(*r).as_object();
  EXPECT_TRUE(reply.at("id").is_null());
  EXPECT_EQ(reply.at("error").at("code"), json::value(-32600)) << *r;
  call["id"] = std::string(256, 'i');
  r = server_.handle_line(json::serialize(call));
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(*r).at("id"), json::value(std::string(256, 'i')));
}

// The client's side of `serve`: lines handed to the server as the test decides, replies and
// notifications collected as they come.
class Pipe {
 public:
  std::size_t read(char* into, std::size_t size) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !input_.empty(); });
    std::size_t n = std::min(size, input_.size());
    std::copy_n(input_.begin(), n, into);
    input_.erase(input_.begin(), input_.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
  }
  bool write(std::string_view line) {
    std::lock_guard lock(mutex_);
    output_.push_back(json::parse(line).as_object());
    changed_.notify_all();
    return true;
  }
  void send(const std::string& line) {
    std::lock_guard lock(mutex_);
    input_.insert(input_.end(), line.begin(), line.end());
    input_.push_back('\n');
    changed_.notify_all();
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  // Waits (at most a minute) for a message that `match` accepts; whether one came.
  template <class Match>
  bool wait_for(Match match) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 60s, [&] { return std::any_of(output_.begin(), output_.end(), match); });
  }
  std::vector<json::object> output() {
    std::lock_guard lock(mutex_);
    return output_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<char> input_;
  bool closed_ = false;
  std::vector<json::object> output_;
};

bool has_id(const json::object& m, int id) {
  return m.contains("id") && m.at("id") == json::value(id);
}

// An analysis runs on the worker thread: a ping sent after its first progress is answered before it
// ends, and a cancellation stops it: no reply, no report kept; the server then answers as before.
TEST_F(McpServerTest, PingIsAnsweredAndCancellationStopsARunningAnalysis) {
  big_trace(root_ + "/big.json", 3000);
  Pipe pipe;
  mcp::LineReader reader([&](char* into, std::size_t size) { return pipe.read(into, size); }, 1 << 20);
  std::thread server([&] { mcp::serve(reader, server_, [&](std::string_view l) { return pipe.write(l); }); });
  auto started = std::chrono::steady_clock::now();
  pipe.send(tools_call(1, "big.json", {{"progressToken", 1}}));
  ASSERT_TRUE(pipe.wait_for([](const json::object& m) { return m.contains("method"); }));  // a progress
  pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  ASSERT_TRUE(pipe.wait_for([](const json::object& m) { return has_id(m, 2); }));
  bool analysis_answered_first = false;
  for (const json::object& m : pipe.output()) {
    if (has_id(m, 2)) break;
    analysis_answered_first = analysis_answered_first || has_id(m, 1);
  }
  EXPECT_FALSE(analysis_answered_first);
  pipe.send(cancelled(1));
  pipe.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})");  // runs once the analysis stops
  ASSERT_TRUE(pipe.wait_for([](const json::object& m) { return has_id(m, 3); }));
  auto stopped = std::chrono::steady_clock::now() - started;
  pipe.close();
  server.join();
  for (const json::object& m : pipe.output()) EXPECT_FALSE(has_id(m, 1)) << json::serialize(m);
  EXPECT_TRUE(session_.reports().empty());
  // What the whole analysis takes, for comparison: the cancelled one stopped well before.
  auto whole_started = std::chrono::steady_clock::now();
  ASSERT_TRUE(server_.handle_line(tools_call(4, "big.json")));
  auto whole = std::chrono::steady_clock::now() - whole_started;
  EXPECT_LT(stopped, whole / 2) << "cancelled after " << std::chrono::duration<double>(stopped).count()
                                << " s; whole " << std::chrono::duration<double>(whole).count() << " s";
}

}  // namespace
}  // namespace perfgate::testing
