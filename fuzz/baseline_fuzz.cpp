// libFuzzer harness: bytes as a baseline report (a previous `--json` report; gzip when they start
// with its magic), read by read_baseline_report as `analyze --baseline report.json` reads it, with
// a memory limit of 256 MiB on what it keeps. InputError is the documented outcome (a file that is
// not a usable report, or past the limit); anything else, a crash, a leak, a sanitizer report or
// more memory than the fuzzer's RSS limit, is a bug.
#include <cstdint>

#include "baseline/baseline.h"
#include "common/errors.h"
#include "fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".json");
  try {
    perfgate::Baseline baseline = perfgate::read_baseline_report(path, std::uint64_t{256} << 20);
    (void)baseline;
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
