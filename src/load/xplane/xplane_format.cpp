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

// The planes are read where they lie in the whole message, so the bytes are read whole first (a
// gzipped profile, profile.xplane.pb.gz, inflated): refused at once when the file's size passes the
// memory limit, and as the inflated bytes grow past it.
void read(const ReaderInput& in, const ProfileSink& emit) {
  std::vector<Profile> workers =
      xplane::read_space_workers(read_whole(in.bytes, in.options.max_input_memory), in.name(),
                                 {.max_memory = in.options.max_input_memory});
  if (in.progress) in.progress(in.bytes.stored_bytes());
  // Devices that step on their own are a worker each (xplane/device_groups.h): WORKER-gpu4, ...
  for (Profile& p : workers) {
    p.worker = workers.size() > 1 ? in.worker + "-" + p.worker : in.worker;
    emit(std::move(p));
  }
}

}  // namespace

extern const Reader kXplaneReader{"xplane", "an XSpace profile (JAX, TensorFlow)", sniff, read};

}  // namespace perfgate
