// The MCP stdio transport's framing: one JSON-RPC message per line. A line past the limit is
// skipped as it streams in (never held whole), so a client cannot make the server hold more than
// the limit and one read's chunk.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace perfgate::mcp {

class LineReader {
 public:
  // Reads up to `size` bytes into `into`; returns how many, 0 at the end of the input (or on an
  // error: a client that went away ends the session the same way).
  using Read = std::function<std::size_t(char* into, std::size_t size)>;
  enum class Status { Line, TooLong, End };

  LineReader(Read read, std::size_t max_line_bytes, std::size_t chunk_bytes = 64 * 1024);

  // The next non-empty line, without its "\n" (or "\r\n"); TooLong for one past the limit, whose
  // bytes are dropped up to its end; End when the input has ended.
  Status next(std::string& line);

 private:
  bool fill();  // false at the end of the input
  Status skip_rest_of_line();

  Read read_;
  std::size_t max_line_;
  std::size_t chunk_;
  std::string buffer_;
  std::size_t start_ = 0;  // the unread bytes of buffer_ begin here
  bool ended_ = false;
};

}  // namespace perfgate::mcp
