// libFuzzer harness (issue #44): a whole partial report, header and body together, read as
// `perfgate merge` reads a part from disk: the file's header checked against its size and checksum
// (cli/part_files.h), then the file decoded with a memory limit of 64 MiB. The fuzzer's bytes are
// the header line (JSON, any field) and, after its first newline, the body's encoding before
// compression; the harness adds the schema line, gzips the body and writes the right check line,
// so that every header fact is fuzzed against every body instead of stopping at the checksum. The
// first byte's low bit chooses whether `body_bytes` is set to the body's real length (when the
// header parses) or left as fuzzed. InputError is the documented outcome; a crash, a leak, a
// sanitizer report or more memory than the fuzzer's RSS limit (-rss_limit_mb) is a bug.
#include <cstdint>
#include <cstdio>
#include <string>

#include <boost/json.hpp>

#include "common/errors.h"
#include "engine/part_files.h"
#include "fuzz/fuzz_file.h"
#include "io/io.h"
#include "report/partial.h"

namespace {

// The header line as fuzzed, or with `body_bytes` set to the body's length.
std::string header_line(std::string_view fuzzed, std::size_t body_bytes, bool fix_length) {
  if (!fix_length) return std::string(fuzzed);
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(fuzzed, ec);
  if (ec || !v.is_object()) return std::string(fuzzed);
  v.as_object()["body_bytes"] = body_bytes;
  return boost::json::serialize(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t newline = in.find('\n');
  std::string_view fuzzed_header = in.substr(0, newline);
  std::string body =
      perfgate::fuzz::gzip(newline == std::string_view::npos ? std::string_view() : in.substr(newline + 1));
  std::string head = std::string(perfgate::kPartialSchema) + "\n" +
                     header_line(fuzzed_header, body.size(), (data[0] & 1) != 0) + "\n";
  char check[16];
  std::snprintf(check, sizeof check, "crc32 %08x\n",
                perfgate::crc32_update(perfgate::crc32_update(0, head), body));
  std::string file = head + check + body;
  std::string path =
      perfgate::fuzz::write_input(reinterpret_cast<const std::uint8_t*>(file.data()), file.size(), ".pgp");
  constexpr std::uint64_t kLimit = std::uint64_t{64} << 20;
  try {
    perfgate::PartialHeader header = perfgate::read_checked_partial_header(path, kLimit);
    perfgate::PartialReport partial =
        perfgate::decode_partial(perfgate::read_partial_file(path, kLimit), path, kLimit);
    (void)header;
    (void)partial;
  } catch (const perfgate::InputError&) {
  }
  std::remove(path.c_str());
  return 0;
}
