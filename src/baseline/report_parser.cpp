#include "baseline/report_parser.h"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <cctype>
#include <memory>

#include <fmt/format.h>

#include "baseline/report_handler.h"
#include "common/errors.h"
#include "io/gzip.h"
#include "io/input_limit.h"

namespace perfgate {
namespace {

namespace json = boost::json;

bool only_space(const char* data, std::size_t n) {
  return std::all_of(data, data + n, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

}  // namespace

ReportFields parse_report_file(const std::string& path, std::uint64_t max_text, std::uint64_t max_memory) {
  std::unique_ptr<ByteSource> source = open_maybe_gzip_file(path);  // a .json.gz report too
  ReportFields out;
  json::basic_parser<ReportHandler> parser(json::parse_options{}, out, path, max_memory);
  std::vector<char> buffer(std::size_t{1} << 16);
  std::uint64_t offset = 0;
  bool first = true;
  for (;;) {
    std::size_t n = source->read(buffer.data(), buffer.size());
    const char* data = buffer.data();
    if (first && n >= 3 && std::equal(data, data + 3, "\xEF\xBB\xBF")) {
      data += 3;  // a UTF-8 byte order mark
      n -= 3;
    }
    first = false;
    boost::system::error_code ec;
    if (n == 0) {
      if (!parser.done()) parser.write_some(false, nullptr, 0, ec);
      if (ec || !parser.done())
        throw InputError(fmt::format("{}: invalid JSON at byte {}: {}", path, offset,
                                     ec ? ec.message() : "the document ends early"));
      break;
    }
    std::size_t used = parser.done() ? 0 : parser.write_some(true, data, n, ec);
    if (ec)
      throw InputError(fmt::format("{}: invalid JSON at byte {}: {}", path, offset + used, ec.message()));
    if (used < n && !only_space(data + used, n - used))
      throw InputError(
          fmt::format("{}: invalid JSON at byte {}: extra data after the document", path, offset + used));
    offset += n;
    if (offset > max_text)
      throw InputError(fmt::format("{}: not a usable perfgate report: larger than {} of JSON", path,
                                   byte_size_text(max_text)));
  }
  return out;
}

}  // namespace perfgate
