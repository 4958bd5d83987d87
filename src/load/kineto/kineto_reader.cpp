#include "load/kineto/kineto_reader.h"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/input_limit.h"
#include "load/json_stream.h"
#include "load/kineto/block_merger.h"
#include "load/kineto/event_builder.h"
#include "load/kineto/metadata.h"
#include "load/kineto/parallel_reader.h"
#include "load/kineto/trace_handler.h"
#include "load/kineto/trace_text.h"
#include "model/side_by_side.h"

namespace perfgate::kineto {
namespace {

constexpr std::size_t kChunkSize = 64 * 1024;      // bytes handed to the parser per read
constexpr std::size_t kLentChunkSize = 256 << 10;  // per view of a mapped file: its pages go after each

// The next bytes of the source: a view of them where it lends them, else read into `buffer`.
std::string_view next_text(ByteSource& source, std::vector<char>& buffer) {
  if (source.lends()) return source.lend(kLentChunkSize);
  if (buffer.empty()) buffer.resize(kChunkSize);
  return {buffer.data(), source.read(buffer.data(), buffer.size())};
}

}  // namespace

void complete_profile(Profile& profile, BlockMerger& merger, const TraceMetadataText& metadata,
                      std::uint64_t invalid_utf8, const std::string& path, unsigned threads) {
  if (!metadata.saw_trace_events)
    throw NotAProfileError(fmt::format("{}: not a Chrome/Kineto trace: no 'traceEvents' array", path));
  if (!metadata.too_long.empty())
    throw InputError(fmt::format("{}: top-level key '{}' is longer than {} bytes", path, metadata.too_long,
                                 TraceHandler::kMaxKeptString));
  merger.finish();
  if (auto problem = apply_metadata(metadata, profile); !problem.empty())
    throw InputError(fmt::format("{}: {}", path, problem));
  merger.describe_mtia_devices();
  if (invalid_utf8 > 0)
    profile.notes.push_back(note<NoteId::kineto_invalid_utf8>(arg<"count">(invalid_utf8)));
  // Host events and the other records are moved into place and ordered independently: side by
  // side where there are threads (the moves are mostly page faults of the new arrays).
  std::size_t overlapping = 0;
  run_side_by_side(threads, {[&] {
                               merger.move_host_records();
                               overlapping = build_host_tree(profile);
                             },
                             [&] {
                               merger.move_other_records();
                               sort_by_start(profile);
                             }});
  if (overlapping > 0)
    profile.notes.push_back(note<NoteId::kineto_host_ranges_overlap>(arg<"count">(overlapping)));
}

Profile read_trace(std::unique_ptr<ByteSource> source, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options) {
  Profile profile;
  profile.source_path = path;
  EventBlock block;
  EventBuilder builder(block, options.driver_calls);
  boost::json::basic_parser<TraceHandler> parser(trace_parse_options(kMaxJsonDepth), builder);
  std::vector<char> buffer;
  std::uint64_t offset = 0;  // bytes of JSON text parsed so far
  bool first_chunk = true;

  for (;;) {
    std::string_view text = next_text(*source, buffer);
    const char* data = text.data();
    std::size_t n = text.size();
    if (first_chunk) {
      std::size_t bom = byte_order_mark(data, n);
      data += bom;
      n -= bom;
      offset += bom;
    }
    first_chunk = false;
    boost::system::error_code ec;
    if (n == 0) {
      finish_json(parser, path, offset);
      break;
    }
    std::size_t used = parser.done() ? 0 : parser.write_some(true, data, n, ec);
    if (ec) throw json_parse_error(parser, path, ec, offset + used);
    parser.handler().keep_views();  // the buffer is read into again, or the mapped pages go
    if (used < n && !only_whitespace(data + used, n - used))
      throw InputError(
          fmt::format("{}: invalid JSON: extra data after the document (at byte {})", path, offset + used));
    source->release(data + n);
    offset += n;
    check_input_memory(path, builder.memory_bytes(), options.max_memory);
    if (on_progress) on_progress(source->file_bytes_consumed());
  }

  const TraceHandler& handler = parser.handler();
  BlockMerger merger(profile);
  merger.add(block);  // a single block always joins
  complete_profile(profile, merger, handler.metadata(), handler.invalid_utf8_strings(), path,
                   options.threads);
  return profile;
}

Profile read_trace(const SourceOpener& open, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options) {
  if (options.threads > 1) {
    if (auto profile = read_trace_in_pieces(*open(), path, on_progress, options)) return std::move(*profile);
  }
  return read_trace(open(), path, on_progress, options);
}

}  // namespace perfgate::kineto
