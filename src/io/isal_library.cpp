#include "io/isal_library.h"

#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/shared_library.h"

namespace perfgate {
namespace {

IsalLibrary load() {
  void* handle = open_shared_library_or_throw<InputError>(PERFGATE_ISAL_SONAME,
                                                          "to inflate gzip (Debian package libisal2)");
  IsalLibrary lib;
#define PERFGATE_ISAL_LOOKUP(name) \
  find_library_function_or_throw<InputError>(handle, PERFGATE_ISAL_SONAME, #name, "ISA-L", lib.name);
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
