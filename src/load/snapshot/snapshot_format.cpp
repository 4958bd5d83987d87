// PyTorch's memory snapshot (torch.cuda.memory._dump_snapshot) as a format of the registry
// (load/reader.h): the pickle unpickled as it streams, without importing or calling anything, each
// segment and trace entry taken into the model (Profile::memory_snapshot) as it is read, and the
// devices' traces replayed into allocator samples.
#include <memory>

#include "load/reader.h"
#include "load/snapshot/snapshot_reader.h"

namespace perfgate {
namespace {

Sniffed sniff(const FileHead& head) {
  return snapshot::detect(head.bytes()) ? Sniffed::Yes : Sniffed::No;
}

void read(const ReaderInput& in, const ProfileSink& emit) {
  // Streamed: the values alive at once count against the limit, not the file.
  std::uint64_t bytes = 0;
  auto snap = std::make_shared<MemorySnapshot>(snapshot::read_snapshot_stream(
      [&] { return in.bytes.open(); }, in.name(), {in.options.max_input_memory, 128}, &bytes,
      in.options.read.memory_categories));
  if (in.progress) in.progress(bytes);
  Profile profile;
  profile.worker = in.worker;
  profile.source_path = in.name();
  profile.source_bytes = bytes;
  snapshot::replay_snapshot(*snap, profile);
  profile.memory_snapshot = std::move(snap);
  profile.info.format = "pytorch-memory-snapshot";
  profile.info.family = DeviceFamily::Gpu;
  emit(std::move(profile));
}

}  // namespace

extern const Reader kMemorySnapshotReader{"pytorch-memory-snapshot", "a PyTorch memory snapshot", sniff,
                                          read};

}  // namespace perfgate
