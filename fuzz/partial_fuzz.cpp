// libFuzzer harness: bytes as a partial report (perfgate analyze --partial), decoded as `perfgate
// merge` decodes one, with a memory limit of 256 MiB. Bytes that start like a partial report are
// the whole file (its header is fuzzed); others are the body's encoding before compression, wrapped
// in a valid header with the right length and checksum, so that the fuzzer reaches the decoder of
// every field instead of stopping at the checksum. InputError is the documented outcome; anything
// else, a crash, a leak, a sanitizer report or more memory than the fuzzer's RSS limit, is a bug.
#include <cstdint>
#include <string>

#include <boost/json.hpp>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "io/io.h"
#include "report/partial.h"

namespace {

// A valid partial report around `body` (gzip), with this build's header and a right check line.
std::string wrapped(const std::string& body) {
  static const std::string empty = perfgate::encode_partial(perfgate::PartialReport{});
  std::size_t first = empty.find('\n'), second = empty.find('\n', first + 1);
  boost::json::object header = boost::json::parse(empty.substr(first + 1, second - first - 1)).as_object();
  header["body_bytes"] = body.size();
  std::string head = empty.substr(0, first + 1) + boost::json::serialize(header) + "\n";
  char check[16];
  std::snprintf(check, sizeof check, "crc32 %08x\n",
                perfgate::crc32_update(perfgate::crc32_update(0, head), body));
  return head + check + body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string file =
      perfgate::starts_like_partial(bytes) ? std::string(bytes) : wrapped(perfgate::fuzz::gzip(bytes));
  try {
    perfgate::PartialReport partial = perfgate::decode_partial(file, "fuzz.pgp", std::uint64_t{256} << 20);
    (void)partial;
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
