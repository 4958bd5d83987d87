#include "history/libpq_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate::history {
namespace {

// Empty when loaded; else why not.
std::string load(LibpqLibrary& lib) {
  void* handle = ::dlopen(PERFGATE_LIBPQ_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return fmt::format("cannot load {} for the PostgreSQL history (Debian package libpq5): {}",
                       PERFGATE_LIBPQ_SONAME, ::dlerror());
#define PERFGATE_LIBPQ_LOOKUP(name)                                                         \
  lib.name = reinterpret_cast<decltype(lib.name)>(::dlsym(handle, #name));                  \
  if (!lib.name)                                                                            \
    return fmt::format("{} has no function {}: another libpq than perfgate was built with", \
                       PERFGATE_LIBPQ_SONAME, #name);
  PERFGATE_LIBPQ_FUNCTIONS(PERFGATE_LIBPQ_LOOKUP)
#undef PERFGATE_LIBPQ_LOOKUP
  return "";  // the handle stays open: the functions are used until the process ends
}

}  // namespace

const LibpqLibrary& libpq_library(const std::string& location) {
  static LibpqLibrary lib;
  static std::string problem;
  static std::once_flag once;
  std::call_once(once, [] { problem = load(lib); });
  if (!problem.empty()) throw InputError(fmt::format("{}: {}", location, problem));
  return lib;
}

}  // namespace perfgate::history
