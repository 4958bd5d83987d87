// libFuzzer harness: bytes as a PyTorch memory snapshot, through the sniff, the restricted
// unpickler (values bounded to 64 MiB, nesting to 128), the snapshot's reading and its replay into
// allocator samples. InputError is the documented outcome for a bad file; any other exception, a crash or a
// sanitizer report is a bug.
#include <cstdint>
#include <string>
#include <string_view>

#include "load/snapshot/pickle.h"
#include "load/snapshot/snapshot_reader.h"
#include "perfgate/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)perfgate::snapshot::detect(bytes);
  const std::string path = "fuzz.pickle";
  try {
    perfgate::pickle::Value root = perfgate::pickle::unpickle(bytes, path, {std::uint64_t{64} << 20, 128});
    perfgate::Profile profile;
    perfgate::MemorySnapshot snapshot = perfgate::snapshot::read_snapshot(root, path);
    perfgate::snapshot::replay_snapshot(snapshot, profile);
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
