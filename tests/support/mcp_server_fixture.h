// A `perfgate mcp` server in the test's process, over a fresh temporary root: a line in, its reply
// parsed; `call` is one tools/call. Notifications the server sends (progress) are kept in `sent`.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "mcp/server.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {

// Five steps 1000 µs apart: an aten::mm op at +10 µs, a gemm_kernel at +50 µs lasting kernel_us + 10,
// + 20, ... µs and, with `allreduce`, an allreduce recorded by a record_param_comms op at +600 µs.
inline std::string five_step_trace(const std::string& path, int kernel_us = 200, bool allreduce = false) {
  TraceBuilder b;
  for (int s = 1; s <= 5; ++s) {
    double t = s * 1000.0;
    b.step(s, t, 900);
    b.op("aten::mm", t + 10, 100, s);
    b.launch("gemm_kernel", t + 20, t + 50, kernel_us + 10 * s, s);
    if (allreduce)
      b.op(
          "record_param_comms", t + 600, 30, 100 + s, 1,
          R"("Collective name": "allreduce", "dtype": "Float", "In msg nelems": 1024, "Out msg nelems": 1024, )"
          R"("Group size": 2)");
  }
  return b.write(path);
}

class McpServerTest : public ::testing::Test {
 protected:
  McpServerTest() : McpServerTest(false) {}
  explicit McpServerTest(bool allow_write)
      : root_(temp_dir()), session_(options(root_, allow_write)), server_(session_) {
    server_.set_notifier([this](boost::json::object n) { sent_.push_back(std::move(n)); });
  }

  static mcp::McpOptions options(const std::string& root, bool allow_write = false) {
    mcp::McpOptions o;
    o.roots = {root};
    o.run.threads = 1;
    o.allow_write = allow_write;
    return o;
  }

  boost::json::value reply(std::string_view line) {
    std::optional<std::string> r = server_.handle_line(line);
    return r ? boost::json::parse(*r) : boost::json::value(nullptr);
  }
  int error_code(std::string_view line) {
    boost::json::value r = reply(line);
    return static_cast<int>(r.at("error").at("code").as_int64());
  }
  boost::json::object call(const std::string& tool, const boost::json::object& args,
                           const boost::json::object& meta = {}) {
    boost::json::object params{{"name", tool}, {"arguments", args}};
    if (!meta.empty()) params["_meta"] = meta;
    boost::json::object request{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", params}};
    return reply(boost::json::serialize(request)).at("result").as_object();
  }

  std::string root_;
  mcp::Session session_;
  mcp::Server server_;
  std::vector<boost::json::object> sent_;
};

}  // namespace perfgate::testing
