#include "io/sqlite_library.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate {
namespace {

SqliteLibrary load() {
  void* handle = ::dlopen(PERFGATE_SQLITE_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw InputError(fmt::format("cannot load {} to read SQLite files (Debian package libsqlite3-0): {}",
                                 PERFGATE_SQLITE_SONAME, ::dlerror()));
  SqliteLibrary lib;
#define PERFGATE_SQLITE_LOOKUP(name)                                                                   \
  lib.name = reinterpret_cast<decltype(lib.name)>(::dlsym(handle, #name));                             \
  if (!lib.name)                                                                                       \
    throw InputError(fmt::format("{} has no function {}: another SQLite than perfgate was built with", \
                                 PERFGATE_SQLITE_SONAME, #name));
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
