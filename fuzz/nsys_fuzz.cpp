// libFuzzer harness: bytes as an Nsight Systems SQLite export, written to a temp .sqlite file and
// read by the nsys reader (every process's profile built), and where it is not one, as rocprof v1's
// results.db (the SQLite format's fallback, load/nsys/nsys_format.cpp). InputError is the
// documented outcome for a file that is not a readable export; anything else is a bug.
#include <cstdint>

#include "common/errors.h"
#include "fuzz/fuzz_file.h"
#include "load/nsys/nsys_reader.h"
#include "load/nsys/sqlite_db.h"
#include "load/rocprof/rocprof_v1.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".sqlite");
  try {
    perfgate::FileInput input(path);
    try {
      perfgate::nsys::read_export(input, "fuzz", [](perfgate::Profile&& profile) { (void)profile; });
    } catch (const perfgate::NotAProfileError&) {
      perfgate::nsys::SqliteDb db(input, std::uint64_t{256} << 20);
      if (perfgate::rocprof::is_v1_database(db)) (void)perfgate::rocprof::read_v1_database(db);
    }
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
