// libFuzzer harness: bytes as a capture folder's execution_details.json, beside two capture
// traces, listed as perfgate lists them (bounded, confined to the folder) and the listed files
// loaded. InputError is the documented outcome for a bad list; any other exception, a crash, a
// sanitizer report or a listed file outside the folder is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/errors.h"
#include "load/load.h"

namespace {

const std::string& folder() {
  static const std::string dir = [] {
    std::string d = (std::filesystem::temp_directory_path() /
                     ("perfgate-capture-fuzz-" + std::to_string(getpid())) / "capture_traces")
                        .string();
    std::filesystem::create_directories(d);
    std::filesystem::create_directories(d + "/../outside");
    const char* trace =
        R"({"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "pid": 1,
            "tid": 1, "ts": 0, "dur": 1, "args": {"correlation": 1}}]})";
    for (const char* name : {"/a.json", "/b.json", "/../outside/x.json"}) std::ofstream(d + name) << trace;
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& dir = folder();
  std::ofstream(dir + "/execution_details.json", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    perfgate::CaptureFiles found = perfgate::graph_capture_files(dir, std::uint64_t{64} << 20, 0);
    std::string inside = std::filesystem::weakly_canonical(dir).string() + "/";
    for (const std::string& file : found.files)
      if (std::filesystem::weakly_canonical(file).string().rfind(inside, 0) != 0) std::abort();
    if (!found.files.empty()) (void)perfgate::load_run(found.files, {});
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
