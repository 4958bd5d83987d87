// libFuzzer harness: bytes as rocprofv3's JSON (gzip when they start with its magic), read by the
// streaming reader with a memory limit of 256 MiB. InputError is the documented outcome for a bad
// document; any other exception, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <memory>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "io/gzip.h"
#include "load/rocprof/rocprof_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".json");
  try {
    auto input = perfgate::inflate_if_gzip(std::make_unique<perfgate::FileInput>(path));
    perfgate::rocprof::read_document(*input->open({.map = false}), path,
                                     {.max_memory = std::uint64_t{256} << 20}, {},
                                     [](perfgate::Profile&&) {});
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
