// rocprofv3's JSON (`rocprofv3 --output-format json`, plain or gzip) as a format of the registry
// (load/reader.h).
#include "load/reader.h"
#include "load/rocprof/rocprof_reader.h"

namespace perfgate {
namespace {

Sniffed sniff(const FileHead& head) {
  return rocprof::looks_like_rocprof(head.json()) ? Sniffed::Yes : Sniffed::No;
}

// Each process of the document is a worker; one process keeps the file's worker name.
void read(const ReaderInput& in, const ProfileSink& emit) {
  std::vector<Profile> profiles;
  rocprof::read_document(*in.bytes.open({.map = false}), in.name(),
                         {.max_memory = in.options.max_input_memory}, in.progress,
                         [&](Profile&& p) { profiles.push_back(std::move(p)); });
  bool several = profiles.size() > 1;
  for (Profile& p : profiles) {
    p.worker = several ? in.worker + "/" + p.info.trace_name : in.worker;
    emit(std::move(p));
  }
}

}  // namespace

extern const Reader kRocprofJsonReader{"rocprofv3-json", "a rocprofv3 JSON trace", sniff, read};

}  // namespace perfgate
