#include "io/sqlite_library.h"

#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/shared_library.h"

namespace perfgate {
namespace {

SqliteLibrary load() {
  void* handle = open_shared_library_or_throw<InputError>(
      PERFGATE_SQLITE_SONAME, "to read SQLite files (Debian package libsqlite3-0)");
  SqliteLibrary lib;
#define PERFGATE_SQLITE_LOOKUP(name) \
  find_library_function_or_throw<InputError>(handle, PERFGATE_SQLITE_SONAME, #name, "SQLite", lib.name);
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
