// libFuzzer harness: bytes as what an MCP client writes to `perfgate mcp`: framed into lines by the
// message reader (a small limit, so that long lines are skipped as they stream; the first byte sets
// the read size) and each line handled by the server with a session whose only root is an empty
// folder. Every line must get a well-formed reply or none, never an exception.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <boost/json.hpp>

#include "mcp/line_reader.h"
#include "mcp/server.h"

namespace {

perfgate::mcp::Session& session() {
  static perfgate::mcp::Session s([] {
    perfgate::mcp::McpOptions o;
    std::string root =
        std::filesystem::temp_directory_path() / ("perfgate_mcp_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(root);
    o.roots = {root};
    o.run.threads = 1;
    return o;
  }());
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t chunk = 1 + data[0] % 64;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  perfgate::mcp::LineReader reader(
      [&rest](char* into, std::size_t want) {
        std::size_t n = std::min(want, rest.size());
        std::copy_n(rest.data(), n, into);
        rest.remove_prefix(n);
        return n;
      },
      4096, chunk);
  perfgate::mcp::Server server(session());
  std::string line;
  for (;;) {
    auto status = reader.next(line);
    if (status == perfgate::mcp::LineReader::Status::End) break;
    std::optional<std::string> reply = status == perfgate::mcp::LineReader::Status::TooLong
                                           ? server.too_long_reply()
                                           : server.handle_line(line);
    if (reply && !boost::json::parse(*reply).is_structured())
      std::abort();  // a reply is an object or a batch
  }
  return 0;
}
