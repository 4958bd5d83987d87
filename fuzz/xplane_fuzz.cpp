// libFuzzer harness: bytes as an XSpace protobuf (JAX, TensorFlow: *.xplane.pb), read by the
// wire-format reader with a memory limit of 256 MiB, as the loader reads it (a worker per group of
// devices that step on their own). InputError is the documented outcome for a bad
// profile; any other exception, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>

#include "common/errors.h"
#include "load/xplane/xplane_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    perfgate::xplane::read_space_workers(bytes, "fuzz.xplane.pb", {.max_memory = std::uint64_t{256} << 20});
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
