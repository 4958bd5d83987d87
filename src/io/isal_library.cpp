#include "io/isal_library.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate {
namespace {

IsalLibrary load() {
  void* handle = ::dlopen(PERFGATE_ISAL_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw InputError(fmt::format("cannot load {} to inflate gzip (Debian package libisal2): {}",
                                 PERFGATE_ISAL_SONAME, ::dlerror()));
  IsalLibrary lib;
#define PERFGATE_ISAL_LOOKUP(name)                                                                    \
  lib.name = reinterpret_cast<decltype(lib.name)>(::dlsym(handle, #name));                            \
  if (!lib.name)                                                                                      \
    throw InputError(fmt::format("{} has no function {}: another ISA-L than perfgate was built with", \
                                 PERFGATE_ISAL_SONAME, #name));
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
