// PyTorch's memory snapshot (torch.cuda.memory._dump_snapshot) as a format of the registry
// (load/reader.h): the whole pickle read into memory (bounded by --max-input-memory), unpickled
// without importing or calling anything, and its devices' traces turned into the model
// (Profile::memory_snapshot) and allocator samples.
#include <memory>
#include <string>

#include "io/byte_source.h"
#include "io/gzip.h"
#include "io/input_limit.h"
#include "load/reader.h"
#include "load/snapshot/pickle.h"
#include "load/snapshot/snapshot_reader.h"

namespace perfgate {
namespace {

Sniffed sniff(const FileHead& head) {
  return snapshot::detect(head.bytes()) ? Sniffed::Yes : Sniffed::No;
}

std::string read_all(const ReaderInput& in) {
  std::unique_ptr<ByteSource> source = open_maybe_gzip_file(in.file.path);  // snapshot.pickle.gz too
  std::string bytes;
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  while (true) {
    std::size_t held = bytes.size();
    check_input_memory(in.file.path, held + kChunk,
                       in.options.max_input_memory == 0 ? 0 : in.options.max_input_memory + kChunk);
    bytes.resize(held + kChunk);
    std::size_t got = read_fully(*source, bytes.data() + held, kChunk);
    bytes.resize(held + got);
    if (in.progress) in.progress(bytes.size());
    if (got < kChunk) return bytes;
  }
}

void read(const ReaderInput& in, const ProfileSink& emit) {
  std::string bytes = read_all(in);
  // The values count against the limit beside the file's bytes, which are held until the end.
  std::uint64_t limit = in.options.max_input_memory;
  if (limit != 0) limit = limit > bytes.size() ? limit - bytes.size() : 1;
  pickle::Value root = pickle::unpickle(bytes, in.file.path, {limit, 128});
  Profile profile;
  profile.worker = in.file.worker;
  profile.source_path = in.file.path;
  profile.source_bytes = bytes.size();
  auto snap = std::make_shared<MemorySnapshot>(snapshot::read_snapshot(root, in.file.path));
  snapshot::replay_snapshot(*snap, profile);
  profile.memory_snapshot = std::move(snap);
  profile.info.format = "pytorch-memory-snapshot";
  profile.info.family = DeviceFamily::Gpu;
  emit(std::move(profile));
}

}  // namespace

extern const Reader kMemorySnapshotReader{"pytorch-memory-snapshot", "a PyTorch memory snapshot", sniff, read,
                                          /*reads_gzip=*/true};

}  // namespace perfgate
