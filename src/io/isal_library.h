// ISA-L's igzip, loaded when the first gzip stream is inflated rather than when perfgate starts:
// Debian's libisal.so.2 is linked -z now, so linking it cost every run 208 symbol bindings at
// start-up (0.15 M instructions; issue 96: a run's fixed cost). As for SQLite (sqlite_library.h),
// it stays Debian's shared library and the package depends on libisal2 (cmake/Packaging.cmake).
#pragma once

#include <isa-l/igzip_lib.h>

namespace perfgate {

// clang-format off
#define PERFGATE_ISAL_FUNCTIONS(X) X(isal_inflate_init) X(isal_inflate_reset) X(isal_inflate)
// clang-format on

struct IsalLibrary {
#define PERFGATE_ISAL_MEMBER(name) decltype(&::name) name = nullptr;
  PERFGATE_ISAL_FUNCTIONS(PERFGATE_ISAL_MEMBER)
#undef PERFGATE_ISAL_MEMBER
};

// Loads the library on first use (any thread). Throws InputError when it cannot be loaded.
const IsalLibrary& isal_library();

}  // namespace perfgate
