// libFuzzer harness: bytes as a PyTorch legacy profiler trace, through the sniff (a bounded parse
// of the first event) and the streaming reader with a memory limit of 256 MiB. InputError is the
// documented outcome for a bad trace; any other exception, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "io/byte_source.h"
#include "load/legacy/legacy_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)perfgate::legacy::detect(bytes);
  std::string path = perfgate::fuzz::write_input(data, size, ".json");
  try {
    perfgate::Profile profile =
        perfgate::legacy::read_trace(perfgate::open_plain_file(path), path, {}, std::uint64_t{256} << 20);
    (void)profile;
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
