// libFuzzer harness: bytes as a PyTorch memory snapshot, through the sniff, the restricted
// unpickler (values bounded to 64 MiB, nesting to 128), the snapshot's reading and its replay into
// allocator samples; both ways: the whole value (pickle::unpickle, read_snapshot) and the streamed
// reading the reader uses (read_snapshot_stream: two passes over the bytes, the lists drained item by
// item, over a source read a piece at a time); and the sniff that names a pickle no reader claims
// (load/detect.cpp: another pickle, or one cut short before its first key). InputError is the documented
// outcome for a bad file; any other exception, a crash or a sanitizer report is a bug.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "common/errors.h"
#include "io/byte_source.h"
#include "load/reader.h"
#include "load/snapshot/pickle.h"
#include "load/snapshot/snapshot_reader.h"

namespace {

// The bytes in pieces of at most 7 (so that values straddle the reader's windows).
class PieceSource : public perfgate::ByteSource {
 public:
  explicit PieceSource(std::string_view bytes) : bytes_(bytes) {}
  std::size_t read(char* out, std::size_t size) override {
    std::size_t n = std::min({size, bytes_.size() - at_, std::size_t{7}});
    std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
    return n;
  }
  std::uint64_t file_bytes_consumed() const override { return at_; }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)perfgate::snapshot::detect(bytes);
  const std::string path = "fuzz.pickle";
  try {
    (void)perfgate::sniff_input(std::make_unique<perfgate::MemoryInput>(path, std::string(bytes)));
  } catch (const perfgate::InputError&) {
  }
  try {
    perfgate::pickle::Value root = perfgate::pickle::unpickle(bytes, path, {std::uint64_t{64} << 20, 128});
    perfgate::Profile profile;
    perfgate::MemorySnapshot snapshot =
        perfgate::snapshot::read_snapshot(root, path, {}, std::uint64_t{64} << 20);
    perfgate::snapshot::replay_snapshot(snapshot, profile);
  } catch (const perfgate::InputError&) {
  }
  try {
    auto open = [&] { return std::make_unique<PieceSource>(bytes); };
    perfgate::Profile profile;
    perfgate::MemorySnapshot snapshot =
        perfgate::snapshot::read_snapshot_stream(open, path, {std::uint64_t{64} << 20, 128});
    perfgate::snapshot::replay_snapshot(snapshot, profile);
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
