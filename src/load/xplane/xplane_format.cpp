// The XSpace protobuf (JAX, TensorFlow: `*.xplane.pb`) as a format of the registry (load/reader.h).
#include "load/reader.h"
#include "load/xplane/xplane_reader.h"
#include "load/xplane/xspace.h"

namespace perfgate {
namespace {

// By content: a planes field whose plane is named as XProf names them (xspace.h).
Sniffed sniff(const FileHead& head) {
  return xplane::looks_like_xspace(head.bytes()) ? Sniffed::Yes : Sniffed::No;
}

void read(const ReaderInput& in, const ProfileSink& emit) {
  Profile p = xplane::read_file(in.file.path, {.max_memory = in.options.max_input_memory});
  p.worker = in.file.worker;
  if (in.progress) in.progress(in.file.bytes);
  emit(std::move(p));
}

}  // namespace

// Gzipped profiles (profile.xplane.pb.gz) are read too: read_file inflates them first.
extern const Reader kXplaneReader{"xplane", "an XSpace profile (JAX, TensorFlow)", sniff, read,
                                  /*reads_gzip=*/true};

}  // namespace perfgate
