#include "render/xlsx/xlsx_library.h"

#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/shared_library.h"

namespace perfgate {
namespace {

XlsxLibrary load() {
  void* handle = nullptr;
  if (std::string problem = open_shared_library(
          PERFGATE_XLSXWRITER_SONAME, "to write the workbook (Debian package libxlsxwriter4)", handle);
      !problem.empty())
    throw OutputError(problem);
  XlsxLibrary lib;
#define PERFGATE_XLSX_LOOKUP(name)                                                           \
  if (std::string problem = find_library_function(handle, PERFGATE_XLSXWRITER_SONAME, #name, \
                                                  "libxlsxwriter version", lib.name);        \
      !problem.empty())                                                                      \
    throw OutputError(problem);
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
