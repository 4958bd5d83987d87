// A partial report's file: the schema line, the header as one line of JSON (what a person or a
// script reads with `head -2`), then the workers and sums in binary_codec's encoding, gzipped.
#include <limits>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "common/binary_codec.h"
#include "common/errors.h"
#include "common/version.h"
#include "io/gzip.h"
#include "io/io.h"
#include "report/partial.h"

namespace perfgate {
namespace {

namespace json = boost::json;

std::uint32_t crc32_of(std::string_view bytes) {
  return crc32_update(0, bytes);
}

std::string hex(std::uint64_t v, int digits) {
  return fmt::format("{:0{}x}", v, digits);
}

// The encoding's shape: a partial report of a build whose structs differ is refused.
std::string layout_digest() {
  std::string s;
  binary_codec::signature<PartialRun>(s);
  return fmt::format("{}-{}", hex(crc32_of(s), 8), s.size());
}

// The body inflated, at most `limit` bytes (0: no limit).
std::string gunzip(std::string_view in, std::uint64_t limit, const std::string& path) {
  std::string out;
  switch (gzip_inflate(in, limit, out)) {
    case Inflated::Whole:
      break;
    case Inflated::OverLimit:
      throw InputError(
          fmt::format("{}: the partial report's workers are over the input memory limit "
                      "(--max-input-memory)",
                      path));
    case Inflated::Corrupt:
      throw InputError(
          fmt::format("{}: the partial report is corrupt (its compressed workers do not inflate)", path));
  }
  return out;
}

json::value optional_json(const std::optional<std::int64_t>& v) {
  return v ? json::value(*v) : json::value(nullptr);
}

json::object header_json(const PartialReport& p, std::string_view body) {
  const PartialHeader& h = p.header;
  json::array inputs;
  for (const PartialInput& i : h.inputs)
    inputs.push_back(json::object{{"path", i.input.path},
                                  {"bytes", i.input.bytes},
                                  {"format", i.input.format},
                                  {"worker", i.input.worker},
                                  {"folder", i.input.folder},
                                  {"crc32", hex(i.crc32, 8)},
                                  {"skipped", i.skipped}});
  json::array ranks;
  std::optional<std::int64_t> world_size;
  for (const PositionedWorker& w : p.run.workers) {
    ranks.push_back(optional_json(w.worker.info.rank));
    if (w.worker.info.world_size) world_size = std::max(world_size.value_or(0), *w.worker.info.world_size);
  }
  const AnalysisOptions& o = h.options;
  return json::object{
      {"schema", kPartialSchema},
      {"perfgate", kVersion},
      {"layout", layout_digest()},
      {"rules_digest", h.rules_digest},
      {"options",
       json::object{{"iter_start", optional_json(o.window.iter_start)},
                    {"iter_stop", optional_json(o.window.iter_stop)},
                    {"skip_first", o.window.skip_first},
                    {"time_start", optional_json(o.window.time_start)},
                    {"time_stop", optional_json(o.window.time_stop)},
                    {"device", o.device ? json::value(std::int64_t{*o.device}) : json::value(nullptr)},
                    {"key_op", o.key_op},
                    {"step_pattern", o.step_pattern},
                    {"detailed_workers", o.detailed_workers}}},
      {"inputs", std::move(inputs)},
      {"workers", p.run.workers.size()},
      {"ranks", std::move(ranks)},
      {"world_size", optional_json(world_size)},
      {"slice", h.sliced ? json::value(json::array{h.slice_index, h.slice_count}) : json::value(nullptr)},
      {"body_bytes", body.size()}};
}

// Reads the header's fields, naming the first that is missing or of the wrong type.
class HeaderReader {
 public:
  HeaderReader(const json::object& o, const std::string& path) : o_(o), path_(path) {}
  const json::value& at(std::string_view key, const json::object* in = nullptr) const {
    const json::object& obj = in ? *in : o_;
    if (const json::value* v = obj.if_contains(key)) return *v;
    throw bad(key);
  }
  std::string text(std::string_view key, const json::object* in = nullptr) const {
    const json::value& v = at(key, in);
    if (!v.is_string()) throw bad(key);
    return std::string(v.get_string());
  }
  std::int64_t integer(std::string_view key, const json::object* in = nullptr) const {
    const json::value& v = at(key, in);
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64() && v.get_uint64() <= std::numeric_limits<std::int64_t>::max())
      return static_cast<std::int64_t>(v.get_uint64());
    throw bad(key);
  }
  std::uint64_t count(std::string_view key, const json::object* in = nullptr) const {
    std::int64_t v = integer(key, in);
    if (v < 0) throw bad(key);
    return static_cast<std::uint64_t>(v);
  }
  std::optional<std::int64_t> maybe_integer(std::string_view key, const json::object* in) const {
    if (at(key, in).is_null()) return std::nullopt;
    return integer(key, in);
  }
  const json::object& object(std::string_view key) const {
    if (const json::object* v = at(key).if_object()) return *v;
    throw bad(key);
  }
  const json::array& array(std::string_view key) const {
    if (const json::array* v = at(key).if_array()) return *v;
    throw bad(key);
  }
  InputError bad(std::string_view key) const {
    return InputError(fmt::format("{}: the partial report's header has no valid '{}'", path_, key));
  }

 private:
  const json::object& o_;
  const std::string& path_;
};

std::uint32_t parse_crc(const HeaderReader& r, std::string_view key, const json::object* in) {
  std::string text = r.text(key, in);
  std::uint32_t v = 0;
  if (text.size() != 8 || text.find_first_not_of("0123456789abcdef") != std::string::npos) throw r.bad(key);
  for (char c : text) v = v * 16 + static_cast<std::uint32_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  return v;
}

PartialHeader read_header(const json::object& o, const std::string& path) {
  HeaderReader r(o, path);
  PartialHeader h;
  h.perfgate_version = r.text("perfgate");
  h.layout = r.text("layout");
  h.rules_digest = r.text("rules_digest");
  const json::object& opt = r.object("options");
  h.options.window.iter_start = r.maybe_integer("iter_start", &opt);
  h.options.window.iter_stop = r.maybe_integer("iter_stop", &opt);
  h.options.window.skip_first = r.integer("skip_first", &opt);
  h.options.window.time_start = r.maybe_integer("time_start", &opt);
  h.options.window.time_stop = r.maybe_integer("time_stop", &opt);
  if (std::optional<std::int64_t> device = r.maybe_integer("device", &opt))
    h.options.device = static_cast<std::int32_t>(*device);
  h.options.key_op = r.text("key_op", &opt);
  h.options.step_pattern = r.text("step_pattern", &opt);
  h.options.detailed_workers = r.count("detailed_workers", &opt);
  for (const json::value& v : r.array("inputs")) {
    const json::object* in = v.if_object();
    if (!in) throw r.bad("inputs");
    PartialInput i;
    i.input = {r.text("path", in), r.count("bytes", in), r.text("format", in), r.text("worker", in),
               r.text("folder", in)};
    i.crc32 = parse_crc(r, "crc32", in);
    i.skipped = r.text("skipped", in);
    h.inputs.push_back(std::move(i));
  }
  for (const json::value& v : r.array("ranks")) {
    if (v.is_null())
      h.ranks.emplace_back();
    else if (v.is_int64())
      h.ranks.emplace_back(v.get_int64());
    else
      throw r.bad("ranks");
  }
  h.world_size = r.maybe_integer("world_size", nullptr);
  if (h.world_size && (*h.world_size < 1 || *h.world_size > kMaxWorldSize))
    throw InputError(
        fmt::format("{}: the partial report states an implausible world size of {} ranks (at most {})", path,
                    *h.world_size, kMaxWorldSize));
  if (r.count("workers") != h.ranks.size()) throw r.bad("workers");
  // null: a part written without --slice, a slice of its own inputs.
  h.sliced = !r.at("slice").is_null();
  if (h.sliced) {
    const json::array& slice = r.array("slice");
    if (slice.size() != 2 || !slice[0].is_int64() || !slice[1].is_int64() || slice[0].get_int64() < 0 ||
        slice[0].get_int64() >= slice[1].get_int64() || slice[1].get_int64() > kMaxWorldSize)
      throw r.bad("slice");
    h.slice_index = static_cast<std::uint64_t>(slice[0].get_int64());
    h.slice_count = static_cast<std::uint64_t>(slice[1].get_int64());
  }
  h.body_bytes = r.count("body_bytes");
  return h;
}

// The header line, parsed: a partial report of another schema or build is refused here.
json::object parse_header_line(std::string_view line, const std::string& path) {
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec || !v.is_object())
    throw InputError(fmt::format("{}: the partial report's header is not JSON ({})", path,
                                 ec ? ec.message() : "not an object"));
  return std::move(v.as_object());
}

void check_build(const json::object& o, const std::string& path) {
  HeaderReader r(o, path);
  std::string version = r.text("perfgate");
  if (version != kVersion)
    throw InputError(
        fmt::format("{}: written by perfgate {}; this is perfgate {}: make every partial "
                    "report and the merge with one perfgate version",
                    path, version, kVersion));
  if (r.text("layout") != layout_digest())
    throw InputError(
        fmt::format("{}: written by another build of perfgate {} (its layout {} is not "
                    "this build's {}): make the partial reports with the perfgate "
                    "that merges them",
                    path, version, r.text("layout"), layout_digest()));
}

}  // namespace

bool starts_like_partial(std::string_view head) {
  return head.starts_with("perfgate-partial/");
}

std::string rules_digest(std::string_view rule_set_fingerprint) {
  return fmt::format("crc32:{}:{}", hex(crc32_of(rule_set_fingerprint), 8), rule_set_fingerprint.size());
}

std::string encode_partial(const PartialReport& partial) {
  binary_codec::Writer writer;
  writer.put(partial.run);
  std::string body = gzip_compress(writer.bytes());
  std::string out = std::string(kPartialSchema) + "\n" + json::serialize(header_json(partial, body)) + "\n";
  std::uint32_t check = crc32_update(crc32_of(out), body);
  out += "crc32 " + hex(check, 8) + "\n";
  out += body;
  return out;
}

void verify_partial_checksum(const PartialHeader& header, std::uint32_t crc32_without_check_line,
                             const std::string& path) {
  if (crc32_without_check_line != header.check_crc32)
    throw InputError(
        fmt::format("{}: the partial report is corrupt (its checksum over the header and the body does "
                    "not match)",
                    path));
}

namespace {

struct HeaderSpan {
  json::object header;
  std::size_t end = 0;  // where the body starts
  std::uint32_t check = 0;
};

// The check line, `crc32 XXXXXXXX`, of the head ending at `end`.
std::uint32_t check_line(std::string_view bytes, std::size_t start, const std::string& path) {
  if (bytes.size() - start < kPartialCheckLineBytes)
    throw InputError(fmt::format("{}: the partial report is truncated in its header", path));
  std::string_view line = bytes.substr(start, kPartialCheckLineBytes);
  std::uint32_t v = 0;
  bool ok = line.starts_with("crc32 ") && line.back() == '\n';
  for (char c : line.substr(6, 8)) {
    ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    v = v * 16 + static_cast<std::uint32_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  if (!ok) throw InputError(fmt::format("{}: the partial report is corrupt (no valid check line)", path));
  return v;
}

// The schema line and the header line, checked: another schema or build is refused here.
HeaderSpan split_header(std::string_view bytes, const std::string& path) {
  std::size_t schema_end = bytes.find('\n');
  if (!starts_like_partial(bytes) || schema_end == std::string_view::npos)
    throw InputError(
        fmt::format("{}: not a perfgate partial report (perfgate analyze --partial writes "
                    "them); a trace is analysed with perfgate analyze",
                    path));
  std::string_view schema = bytes.substr(0, schema_end);
  if (schema != kPartialSchema)
    throw InputError(fmt::format("{}: a partial report of schema '{}'; this perfgate reads '{}'", path,
                                 schema, kPartialSchema));
  std::size_t header_end = bytes.find('\n', schema_end + 1);
  if (header_end == std::string_view::npos)
    throw InputError(fmt::format("{}: the partial report is truncated in its header", path));
  std::uint32_t check = check_line(bytes, header_end + 1, path);
  HeaderSpan span{parse_header_line(bytes.substr(schema_end + 1, header_end - schema_end - 1), path),
                  header_end + 1 + kPartialCheckLineBytes, check};
  check_build(span.header, path);
  return span;
}

// The header with where its body starts and what its check line says.
PartialHeader header_of(const HeaderSpan& span, const std::string& path) {
  PartialHeader h = read_header(span.header, path);
  h.head_bytes = span.end;
  h.check_crc32 = span.check;
  return h;
}

// Facts the header states that the body must bear out: the workers, their ranks and world size,
// and the inputs skipped (which hold no worker).
bool header_matches_body(const PartialHeader& h, const PartialRun& run) {
  if (run.workers.size() != h.ranks.size()) return false;
  std::optional<std::int64_t> world_size;
  for (std::size_t i = 0; i < run.workers.size(); ++i) {
    const PositionedWorker& w = run.workers[i];
    if (w.position.input >= h.inputs.size() || !h.inputs[w.position.input].skipped.empty()) return false;
    if (w.worker.info.rank != h.ranks[i] || (i > 0 && !(run.workers[i - 1].position < w.position)))
      return false;
    if (w.worker.info.world_size) world_size = std::max(world_size.value_or(0), *w.worker.info.world_size);
  }
  return world_size == h.world_size;
}

// The collectives refer to the part's inputs, and a rank's runs of calls are no more than the
// part's collectives (so a corrupt count cannot make the merge walk billions of indices).
bool collectives_consistent(const CollectiveSums& sums, std::size_t inputs) {
  for (const MatchedCollective& c : sums.collectives)
    if (c.timed > 0 && c.latest.input >= inputs) return false;
  for (const RankCollectiveSums& rank : sums.ranks) {
    if (rank.position.input >= inputs) return false;
    std::uint64_t calls = 0;
    for (const CollectiveSpan& span : rank.spans) {
      if (span.first + span.count < span.first) return false;
      calls += span.count;
    }
    if (calls > sums.collectives.size() || calls > rank.calls) return false;
  }
  return true;
}

}  // namespace

PartialHeader decode_partial_header(std::string_view head, const std::string& path) {
  return header_of(split_header(head, path), path);
}

PartialReport decode_partial(std::string_view bytes, const std::string& path, std::uint64_t max_memory) {
  HeaderSpan span = split_header(bytes, path);
  std::size_t check_at = span.end - kPartialCheckLineBytes;
  std::string_view body = bytes.substr(span.end);
  // Every byte is checked before the body is read: the header lines and the body, around the check line.
  PartialReport out;
  out.header.check_crc32 = span.check;
  verify_partial_checksum(out.header, crc32_update(crc32_of(bytes.substr(0, check_at)), body), path);
  out.header = header_of(span, path);
  if (body.size() != out.header.body_bytes)
    throw InputError(fmt::format("{}: the partial report is corrupt ({} body bytes, its header says {})",
                                 path, body.size(), out.header.body_bytes));
  // What decoding holds counts against one limit: the file, the inflated body, the decoded values.
  auto left = [&](std::uint64_t used) {
    return max_memory == 0 ? 0 : max_memory > used ? max_memory - used : 1;
  };
  std::string decoded = gunzip(body, left(bytes.size()), path);
  try {
    binary_codec::Reader reader(decoded, left(bytes.size() + decoded.size()));
    reader.get(out.run);
    if (!reader.done()) throw binary_codec::DecodeError{"bytes are left after its end"};
  } catch (const binary_codec::DecodeError& e) {
    throw InputError(fmt::format("{}: the partial report is corrupt: {}", path, e.what));
  } catch (const binary_codec::Reader::MemoryLimit&) {
    throw InputError(fmt::format(
        "{}: the partial report's workers are over the input memory limit (--max-input-memory)", path));
  }
  if (!header_matches_body(out.header, out.run) ||
      !collectives_consistent(out.run.collectives, out.header.inputs.size()))
    throw InputError(
        fmt::format("{}: the partial report is corrupt (its workers do not match its header)", path));
  return out;
}

}  // namespace perfgate
