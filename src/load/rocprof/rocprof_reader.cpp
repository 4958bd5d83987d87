#include "load/rocprof/rocprof_reader.h"

#include <boost/json/basic_parser_impl.hpp>

#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/input_limit.h"
#include "load/json_stream.h"
#include "load/rocprof/rocprof_builder.h"

namespace perfgate::rocprof {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;

bool holds_activity(const Profile& p) {
  return !p.gpu_activities.empty() || !p.runtime_calls.empty() || !p.host_events.empty();
}

}  // namespace

bool looks_like_rocprof(std::string_view head) {
  if (!head.starts_with('{')) return false;
  std::size_t at = head.find_first_not_of(" \t\r\n", 1);
  return at != std::string_view::npos && head.substr(at).starts_with("\"rocprofiler-sdk-tool\"");
}

void read_document(ByteSource& source, const std::string& path, const ReadOptions& options,
                   const std::function<void(std::uint64_t)>& on_progress,
                   const std::function<void(Profile&&)>& emit) {
  ProfileBuilder builder;
  boost::json::parse_options parse_options;
  parse_options.max_depth = 64;
  parse_options.allow_invalid_utf8 = true;
  boost::json::basic_parser<RocprofHandler> parser(parse_options, builder);
  stream_json(parser, source, path, kChunk, true, [&] {
    check_input_memory(path, builder.memory_bytes(), options.max_memory);
    if (on_progress) on_progress(source.file_bytes_consumed());
  });
  if (!parser.handler().saw_tool())
    throw NotAProfileError(
        fmt::format("{}: not a rocprofv3 JSON document (no 'rocprofiler-sdk-tool' list)", path));
  std::vector<Profile> profiles = builder.finish(path);
  bool any = false;
  for (Profile& p : profiles) {
    if (!holds_activity(p)) continue;
    any = true;
    emit(std::move(p));
  }
  if (!any)
    throw InputError(
        fmt::format("{}: a rocprofv3 document that holds no profiled activity (no kernel dispatch, memory "
                    "copy, HIP or RCCL API record, or roctx range)",
                    path));
}

}  // namespace perfgate::rocprof
