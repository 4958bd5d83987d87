#include "render/xlsx/xlsx_library.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include "common/errors.h"

namespace perfgate {
namespace {

XlsxLibrary load() {
  void* handle = ::dlopen(PERFGATE_XLSXWRITER_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw OutputError(fmt::format("cannot load {} to write the workbook (Debian package libxlsxwriter4): {}",
                                  PERFGATE_XLSXWRITER_SONAME, ::dlerror()));
  XlsxLibrary lib;
#define PERFGATE_XLSX_LOOKUP(name)                                                            \
  lib.name = reinterpret_cast<decltype(lib.name)>(::dlsym(handle, #name));                    \
  if (!lib.name)                                                                              \
    throw OutputError(                                                                        \
        fmt::format("{} has no function {}: another libxlsxwriter version than perfgate was " \
                    "built with",                                                             \
                    PERFGATE_XLSXWRITER_SONAME, #name));
  PERFGATE_XLSX_FUNCTIONS(PERFGATE_XLSX_LOOKUP)
#undef PERFGATE_XLSX_LOOKUP
  return lib;  // the handle stays open: the functions are used until the process ends
}

}  // namespace

const XlsxLibrary& xlsx_library() {
  static const XlsxLibrary lib = load();
  return lib;
}

}  // namespace perfgate
