// libFuzzer harness: bytes as an Nsight Systems SQLite export, written to a temp .sqlite file and
// read by the nsys reader (every process's profile built). InputError is the documented outcome
// for a file that is not a readable export; anything else is a bug.
#include <cstdint>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "load/nsys/nsys_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".sqlite");
  try {
    perfgate::nsys::read_export(perfgate::FileInput(path), "fuzz",
                                [](perfgate::Profile&& profile) { (void)profile; });
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
