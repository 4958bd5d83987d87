// libFuzzer harness: bytes as rocprofv3's JSON (gzip when they start with its magic), read by the
// streaming reader with a memory limit of 256 MiB; as rocprof v1's results.json where they begin as
// it does ('{ "traceEvents":[{}'). InputError is the documented outcome for a bad
// document; any other exception, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <memory>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "io/gzip.h"
#include "load/rocprof/rocprof_reader.h"
#include "load/rocprof/rocprof_v1.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".json");
  try {
    auto input = perfgate::inflate_if_gzip(std::make_unique<perfgate::FileInput>(path));
    std::string head(1024, '\0');
    head.resize(input->open({.map = false})->read(head.data(), head.size()));
    if (perfgate::rocprof::looks_like_v1_json(head)) {
      perfgate::rocprof::read_v1_json(*input->open({.map = false}), path, std::uint64_t{256} << 20, {},
                                      [](perfgate::Profile&&) {});
      return 0;
    }
    perfgate::rocprof::read_document(*input->open({.map = false}), path,
                                     {.max_memory = std::uint64_t{256} << 20}, {},
                                     [](perfgate::Profile&&) {});
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
