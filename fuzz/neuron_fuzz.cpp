// libFuzzer harness: bytes as an AWS Neuron device profile (the full JSON, or summary-json when the
// first byte is odd), read by the streaming reader with a memory limit of 256 MiB. InputError is
// the documented outcome for a bad profile; any other exception, a crash or a sanitizer report is
// a bug.
#include <cstdint>
#include <memory>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "io/byte_source.h"
#include "load/neuron/neuron_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".json");
  bool summary_json = size > 0 && (data[0] & 1) != 0;
  try {
    perfgate::neuron::read_profile(perfgate::open_plain_file(path), path, {},
                                   {.summary_json = summary_json, .max_memory = std::uint64_t{256} << 20},
                                   [](perfgate::Profile&&) {});
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
