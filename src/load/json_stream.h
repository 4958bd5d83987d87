// What the readers that stream JSON through Boost.JSON's basic_parser (Kineto, legacy, Neuron, rocprof)
// say of a parse that fails: one wording for every format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <boost/json/basic_parser.hpp>

#include "common/errors.h"
#include "io/byte_source.h"

namespace perfgate {

// The error at byte `at` of the JSON text: the handler's own reason where it gave one (a value it
// refused), else the parser's.
template <typename Parser>
InputError json_parse_error(Parser& parser, const std::string& path, boost::system::error_code ec,
                            std::uint64_t at) {
  const std::string& why = parser.handler().error();
  return InputError(fmt::format("{}: {} (at byte {} of the JSON text)", path,
                                why.empty() ? "invalid JSON: " + ec.message() : why, at));
}

// Ends the parse after the input's last byte (`offset` bytes of text): a document cut short is a
// truncated file.
template <typename Parser>
void finish_json(Parser& parser, const std::string& path, std::uint64_t offset) {
  if (parser.done()) return;
  boost::system::error_code ec;
  parser.write_some(false, nullptr, 0, ec);
  if (ec == boost::json::error::incomplete || (!ec && !parser.done()))
    throw InputError(fmt::format(
        "{}: invalid JSON: the document ends early, after {} bytes (truncated file?)", path, offset));
  if (ec) throw json_parse_error(parser, path, ec, offset);
}

// Reads `source` through `parser` in chunks of `chunk` bytes, calls `after_chunk()` after each
// (memory checks, progress), and ends the parse as finish_json does. With `refuse_trailing`, text
// other than whitespace after the document is an error. Returns the bytes of text read.
template <typename Parser, typename AfterChunk>
std::uint64_t stream_json(Parser& parser, ByteSource& source, const std::string& path, std::size_t chunk,
                          bool refuse_trailing, AfterChunk&& after_chunk) {
  std::vector<char> buffer(chunk);
  std::uint64_t offset = 0;
  for (;;) {
    std::size_t n = source.read(buffer.data(), buffer.size());
    if (n == 0) break;
    boost::system::error_code ec;
    std::size_t parsed = parser.done() ? 0 : parser.write_some(true, buffer.data(), n, ec);
    if (ec) throw json_parse_error(parser, path, ec, offset + parsed);
    if (refuse_trailing && parsed < n &&
        std::string_view(buffer.data() + parsed, n - parsed).find_first_not_of(" \t\r\n") !=
            std::string_view::npos)
      throw InputError(
          fmt::format("{}: invalid JSON: extra data after the document (at byte {})", path, offset + parsed));
    offset += n;
    after_chunk();
  }
  finish_json(parser, path, offset);
  return offset;
}

}  // namespace perfgate
