#include "load/neuron/neuron_reader.h"

#include <boost/json/basic_parser_impl.hpp>

#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/input_limit.h"
#include "load/json_stream.h"
#include "load/load.h"
#include "load/neuron/profile_builder.h"
#include "load/neuron/row_handler.h"
#include "load/neuron/text_filter.h"

namespace perfgate::neuron {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;
constexpr int kMaxDepth = 64;

boost::json::parse_options parse_options() {
  boost::json::parse_options options;
  options.max_depth = kMaxDepth;
  options.allow_invalid_utf8 = true;  // repaired when names are kept
  return options;
}

bool only_space(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// What the instruction rows lack, said once: a summary-json has none.
void describe(Profile& p) {
  if (!p.neuron.full_profile)
    p.notes.push_back(note<NoteId::neuron_summary_only>());
  else if (p.neuron.instructions.empty())
    p.notes.push_back(note<NoteId::neuron_no_instructions>());
}

}  // namespace

void read_profile(std::unique_ptr<ByteSource> source, const std::string& path,
                  const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options,
                  const std::function<void(Profile&&)>& emit) {
  ProfileBuilder builder(options.summary_json);
  boost::json::basic_parser<RowHandler> parser(parse_options(), builder, options.summary_json);
  NonFiniteFilter filter;
  std::vector<char> buffer(kChunk);
  std::size_t carried = 0;   // bytes kept from the last chunk (a word cut in two)
  std::uint64_t offset = 0;  // bytes of the file parsed so far
  bool first = true;
  for (;;) {
    std::size_t n = source->read(buffer.data() + carried, buffer.size() - carried);
    bool last = n == 0;
    std::string_view in(buffer.data(), carried + n);
    if (first && in.starts_with("\xEF\xBB\xBF")) {
      in.remove_prefix(3);
      offset += 3;
    }
    first = false;
    std::size_t used = 0;
    std::string_view text = filter.filter(in, last, used);
    boost::system::error_code ec;
    if (!text.empty()) {
      std::size_t parsed = parser.done() ? 0 : parser.write_some(true, text.data(), text.size(), ec);
      if (ec) throw json_parse_error(parser, path, ec, offset + parsed);
      if (parsed < text.size() && !only_space(text.substr(parsed)))
        throw InputError(fmt::format("{}: invalid JSON: extra data after the document (at byte {})", path,
                                     offset + parsed));
    }
    offset += used;
    carried = in.size() - used;
    std::copy(in.data() + used, in.data() + in.size(), buffer.data());
    check_input_memory(path, builder.memory_bytes(), options.max_memory);
    if (on_progress) on_progress(source->file_bytes_consumed());
    if (last) break;
  }
  finish_json(parser, path, offset);
  std::vector<Profile> profiles = builder.finish(path);
  bool any = false;
  bool several = profiles.size() > 1;
  for (Profile& p : profiles) {
    if (several) p.worker = p.info.trace_name;  // the node id, after the file's worker name
    if (p.neuron.summary.empty() && p.neuron.instructions.empty() && p.neuron.dmas.empty()) continue;
    any = true;
    p.info.rank = rank_from_file_name(path);
    if (filter.replaced() > 0)
      p.notes.push_back(note<NoteId::neuron_non_finite>(arg<"count">(filter.replaced())));
    describe(p);
    emit(std::move(p));
  }
  if (!any)
    throw NotAProfileError(
        fmt::format("{}: a JSON document without a Neuron profile's summary, instruction or DMA rows", path));
}

}  // namespace perfgate::neuron
