#include "history/libpq_library.h"

#include <mutex>
#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/shared_library.h"

namespace perfgate::history {
namespace {

// Empty when loaded; else why not.
std::string load(LibpqLibrary& lib) {
  void* handle = nullptr;
  if (std::string problem = open_shared_library(PERFGATE_LIBPQ_SONAME,
                                                "for the PostgreSQL history (Debian package libpq5)", handle);
      !problem.empty())
    return problem;
#define PERFGATE_LIBPQ_LOOKUP(name)                                                                         \
  if (std::string problem = find_library_function(handle, PERFGATE_LIBPQ_SONAME, #name, "libpq", lib.name); \
      !problem.empty())                                                                                     \
    return problem;
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
