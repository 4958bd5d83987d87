#include "load/kineto/kineto_reader.h"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "load/kineto/event_builder.h"
#include "load/kineto/metadata.h"
#include "load/kineto/trace_handler.h"
#include "perfgate/errors.h"

namespace perfgate::kineto {
namespace {

constexpr std::size_t kChunkSize = 64 * 1024;  // bytes handed to the parser per read

boost::json::parse_options parse_options() {
  boost::json::parse_options options;
  options.max_depth = 64;
  options.allow_trailing_commas = true;  // some exporters leave one before the closing bracket
  options.allow_invalid_utf8 = true;     // Kineto has written raw bytes in names; they are escaped on output
  return options;
}

}  // namespace

Profile read_trace(std::unique_ptr<ByteSource> source, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options) {
  Profile profile;
  profile.source_path = path;
  EventBuilder builder(profile, options.driver_calls);
  boost::json::basic_parser<TraceHandler> parser(parse_options(), builder);
  std::vector<char> buffer(kChunkSize);
  std::uint64_t offset = 0;  // bytes of JSON text parsed so far
  bool first_chunk = true;

  auto fail = [&](boost::system::error_code ec, std::uint64_t at) {
    const std::string& why = parser.handler().error();
    return InputError(fmt::format("{}: {} (at byte {} of the JSON text)", path,
                                  why.empty() ? "invalid JSON: " + ec.message() : why, at));
  };
  auto only_whitespace = [](const char* p, std::size_t n) {
    return std::all_of(p, p + n, [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
  };

  for (;;) {
    std::size_t n = source->read(buffer.data(), buffer.size());
    const char* data = buffer.data();
    if (first_chunk && n >= 3 && std::equal(data, data + 3, "\xEF\xBB\xBF")) {
      data += 3;  // UTF-8 byte order mark
      n -= 3;
      offset += 3;
    }
    first_chunk = false;
    boost::system::error_code ec;
    if (n == 0) {
      if (!parser.done()) {
        parser.write_some(false, nullptr, 0, ec);
        if (ec == boost::json::error::incomplete || (!ec && !parser.done()))
          throw InputError(fmt::format(
              "{}: invalid JSON: the document ends early, after {} bytes (truncated file?)", path, offset));
        if (ec) throw fail(ec, offset);
      }
      break;
    }
    std::size_t used = parser.done() ? 0 : parser.write_some(true, data, n, ec);
    if (ec) throw fail(ec, offset + used);
    if (used < n && !only_whitespace(data + used, n - used))
      throw InputError(
          fmt::format("{}: invalid JSON: extra data after the document (at byte {})", path, offset + used));
    offset += n;
    if (on_progress) on_progress(source->file_bytes_consumed());
  }

  const TraceHandler& handler = parser.handler();
  if (!handler.metadata().saw_trace_events)
    throw InputError(fmt::format("{}: not a Chrome/Kineto trace: no 'traceEvents' array", path));
  builder.finish();
  if (auto problem = apply_metadata(handler.metadata(), profile); !problem.empty())
    throw InputError(fmt::format("{}: {}", path, problem));
  if (std::uint64_t bad = handler.invalid_utf8_strings(); bad > 0)
    profile.notes.push_back(
        fmt::format("{} string{} in the trace {} not valid UTF-8: the bad bytes are shown "
                    "as U+FFFD",
                    bad, bad == 1 ? "" : "s", bad == 1 ? "was" : "were"));
  sort_by_start(profile);
  if (std::size_t overlapping = build_host_tree(profile); overlapping > 0)
    profile.notes.push_back(
        fmt::format("{} host ranges overlap a sibling instead of nesting; each was attached to the nearest "
                    "range containing it",
                    overlapping));
  return profile;
}

}  // namespace perfgate::kineto
