// PyTorch's legacy autograd-profiler trace as a format of the registry (load/reader.h).
#include "load/legacy/legacy_reader.h"
#include "load/reader.h"

namespace perfgate {
namespace {

// A bare array whose first event is the legacy profiler's (legacy_reader.h).
Sniffed sniff(const FileHead& head) {
  return head.json().starts_with('[') && legacy::detect(head.json()) ? Sniffed::Yes : Sniffed::No;
}

void read(const ReaderInput& in, const ProfileSink& emit) {
  Profile profile = legacy::read_trace(in.bytes.open(), in.name(), in.progress, in.options.max_input_memory);
  profile.worker = in.worker;
  profile.info.family = trace_family(profile);
  emit(std::move(profile));
}

}  // namespace

extern const Reader kLegacyJsonReader{"pytorch-legacy-json", "a PyTorch legacy profiler trace", sniff, read};

}  // namespace perfgate
