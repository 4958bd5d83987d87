#include "io/sqlite_library.h"

#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/shared_library.h"

namespace perfgate {
namespace {

SqliteLibrary load() {
  void* handle = nullptr;
  if (std::string problem = open_shared_library(PERFGATE_SQLITE_SONAME,
                                                "to read SQLite files (Debian package libsqlite3-0)", handle);
      !problem.empty())
    throw InputError(problem);
  SqliteLibrary lib;
#define PERFGATE_SQLITE_LOOKUP(name)                                                        \
  if (std::string problem =                                                                 \
          find_library_function(handle, PERFGATE_SQLITE_SONAME, #name, "SQLite", lib.name); \
      !problem.empty())                                                                     \
    throw InputError(problem);
  PERFGATE_SQLITE_FUNCTIONS(PERFGATE_SQLITE_LOOKUP)
#undef PERFGATE_SQLITE_LOOKUP
  return lib;  // the handle stays open: the functions are used until the process ends
}

}  // namespace

const SqliteLibrary& sqlite_library() {
  static const SqliteLibrary lib = load();
  return lib;
}

}  // namespace perfgate
