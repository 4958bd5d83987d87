// The Nsight Systems SQLite export as a format of the registry (load/reader.h).
#include <string_view>

#include "common/errors.h"
#include "load/nsys/nsys_reader.h"
#include "load/nsys/sqlite_db.h"
#include "load/reader.h"
#include "load/rocprof/rocprof_v1.h"

namespace perfgate {
namespace {

// Any SQLite database: an nsys export, or rocprof v1's results.db (its tables HIP, OPS, COPY, KERN);
// any other is refused by its tables (NotAProfileError).
Sniffed sniff(const FileHead& head) {
  return head.bytes().starts_with(std::string_view("SQLite format 3\0", 16)) ? Sniffed::Yes : Sniffed::No;
}

void read(const ReaderInput& in, const ProfileSink& emit) {
  bool fold = in.options.read.fold_nested_nvtx_ops;
  try {
    nsys::read_export(in.bytes, in.worker, emit,
                      {.fold_nested_ops = fold, .max_memory = in.options.max_input_memory});
  } catch (const NotAProfileError&) {
    nsys::SqliteDb db(in.bytes, in.options.max_input_memory);
    if (!rocprof::is_v1_database(db)) throw;
    Profile p = rocprof::read_v1_database(db);
    p.worker = in.worker;
    emit(std::move(p));
  }
  if (in.progress) in.progress(in.bytes.stored_bytes());
}

}  // namespace

extern const Reader kNsysSqliteReader{
    "nsys-sqlite", "an Nsight Systems SQLite export or a rocprof v1 results.db", sniff, read};

}  // namespace perfgate
