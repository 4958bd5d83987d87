#include "io/isal_library.h"

#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/shared_library.h"

namespace perfgate {
namespace {

IsalLibrary load() {
  void* handle = nullptr;
  if (std::string problem =
          open_shared_library(PERFGATE_ISAL_SONAME, "to inflate gzip (Debian package libisal2)", handle);
      !problem.empty())
    throw InputError(problem);
  IsalLibrary lib;
#define PERFGATE_ISAL_LOOKUP(name)                                                                         \
  if (std::string problem = find_library_function(handle, PERFGATE_ISAL_SONAME, #name, "ISA-L", lib.name); \
      !problem.empty())                                                                                    \
    throw InputError(problem);
  PERFGATE_ISAL_FUNCTIONS(PERFGATE_ISAL_LOOKUP)
#undef PERFGATE_ISAL_LOOKUP
  return lib;  // the handle stays open: the functions are used until the process ends
}

}  // namespace

const IsalLibrary& isal_library() {
  static const IsalLibrary lib = load();
  return lib;
}

}  // namespace perfgate
