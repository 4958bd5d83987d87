// PyTorch's legacy autograd-profiler trace as a format of the registry (load/reader.h).
#include "io/byte_source.h"
#include "load/legacy/legacy_reader.h"
#include "load/reader.h"

namespace perfgate {
namespace {

// A bare array whose first event is the legacy profiler's (legacy_reader.h).
Sniffed sniff(const FileHead& head) {
  return head.json().starts_with('[') && legacy::detect(head.json()) ? Sniffed::Yes : Sniffed::No;
}

void read(const ReaderInput& in, const ProfileSink& emit) {
  Profile profile = legacy::read_trace(open_plain_file(in.file.path), in.file.path, in.progress,
                                       in.options.max_input_memory);
  profile.worker = in.file.worker;
  profile.info.family = trace_family(profile);
  emit(std::move(profile));
}

}  // namespace

extern const Reader kLegacyJsonReader{"pytorch-legacy-json", "a PyTorch legacy profiler trace", sniff, read};

}  // namespace perfgate
