// The Nsight Systems SQLite export as a format of the registry (load/reader.h).
#include <string_view>

#include "load/nsys/nsys_reader.h"
#include "load/reader.h"

namespace perfgate {
namespace {

// Any SQLite database: one that is not an nsys export is refused by its tables (NotAProfileError).
Sniffed sniff(const FileHead& head) {
  return head.bytes().starts_with(std::string_view("SQLite format 3\0", 16)) ? Sniffed::Yes : Sniffed::No;
}

void read(const ReaderInput& in, const ProfileSink& emit) {
  bool fold = !in.options.classification || in.options.classification->fold_nested_nvtx_ops;
  nsys::read_export(in.bytes, in.worker, emit,
                    {.fold_nested_ops = fold, .max_memory = in.options.max_input_memory});
  if (in.progress) in.progress(in.bytes.stored_bytes());
}

}  // namespace

extern const Reader kNsysSqliteReader{"nsys-sqlite", "an Nsight Systems SQLite export", sniff, read};

}  // namespace perfgate
