// libFuzzer harness: bytes as a Kineto / Chrome JSON trace (gzip when they start with its magic),
// read by the streaming reader with a memory limit of 256 MiB. InputError is the documented outcome
// for a bad trace (or one past the limit); any other exception, a crash or a sanitizer report is a
// bug.
#include <cstdint>
#include <memory>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "io/gzip.h"
#include "load/kineto/kineto_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".json");
  try {
    // A plain file is read as perfgate reads it: mapped, and parsed where it lies.
    std::unique_ptr<perfgate::ByteSource> source =
        perfgate::inflate_if_gzip(std::make_unique<perfgate::FileInput>(path))->open();
    // What the trace may make the reader hold is capped well below the fuzzer's RSS limit.
    perfgate::Profile profile =
        perfgate::kineto::read_trace(std::move(source), path, {}, {.max_memory = std::uint64_t{256} << 20});
    (void)profile;
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
