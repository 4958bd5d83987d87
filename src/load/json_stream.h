// What the readers that stream JSON through Boost.JSON's basic_parser (Kineto, legacy, Neuron)
// say of a parse that fails: one wording for every format.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <boost/json/basic_parser.hpp>

#include "common/errors.h"

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

}  // namespace perfgate
