#include "render/xlsx/xlsx_library.h"

#include <string>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/shared_library.h"

// libxlsxwriter deflates each part of a workbook through minizip at zlib's default level (6), and
// 1.1.4 lets no caller choose: at that level zlib was 15% of the CPU of a run writing every report
// on ResNet-50 (perf). An executable that exports this symbol (CMakeLists.txt:
// --export-dynamic-symbol) is where libxlsxwriter's call lands, loaded RTLD_LOCAL as it is, since
// the process's global scope is searched first; the part is then opened at level 1. Anywhere else
// (a front end that does not export it) minizip is called directly and the workbook is the same,
// only smaller and slower to write. docs/performance.md, issue 96's second stop.
namespace perfgate {
namespace {

using OpenZipEntry = int (*)(void*, const char*, const void*, const void*, unsigned, const void*, unsigned,
                             const char*, int, int, int, int, int, int, const char*, unsigned long,
                             unsigned long, unsigned long, int);
OpenZipEntry g_open_zip_entry = nullptr;  // set once, by load(), before any workbook is written
constexpr int kWorkbookDeflateLevel = 1;
constexpr int kZipParamError = -102;  // minizip's ZIP_PARAMERROR

}  // namespace
}  // namespace perfgate

extern "C" __attribute__((visibility("default"))) int zipOpenNewFileInZip4_64(
    void* file, const char* filename, const void* zipfi, const void* extrafield_local,
    unsigned size_extrafield_local, const void* extrafield_global, unsigned size_extrafield_global,
    const char* comment, int method, int level, int raw, int window_bits, int mem_level, int strategy,
    const char* password, unsigned long crc_for_crypting, unsigned long version_made_by,
    unsigned long flag_base, int zip64) {
  if (!perfgate::g_open_zip_entry) return perfgate::kZipParamError;
  if (level != 0) level = perfgate::kWorkbookDeflateLevel;
  return perfgate::g_open_zip_entry(file, filename, zipfi, extrafield_local, size_extrafield_local,
                                    extrafield_global, size_extrafield_global, comment, method, level, raw,
                                    window_bits, mem_level, strategy, password, crc_for_crypting,
                                    version_made_by, flag_base, zip64);
}

namespace perfgate {
namespace {

XlsxLibrary load() {
  void* handle = open_shared_library_or_throw<OutputError>(
      PERFGATE_XLSXWRITER_SONAME, "to write the workbook (Debian package libxlsxwriter4)");
  XlsxLibrary lib;
#define PERFGATE_XLSX_LOOKUP(name)                                                       \
  find_library_function_or_throw<OutputError>(handle, PERFGATE_XLSXWRITER_SONAME, #name, \
                                              "libxlsxwriter version", lib.name);
  PERFGATE_XLSX_FUNCTIONS(PERFGATE_XLSX_LOOKUP)
#undef PERFGATE_XLSX_LOOKUP
  // minizip's own entry, found through libxlsxwriter's handle (its dependencies, not the process's
  // global scope, where the one below is): what the workbook's parts are handed on to.
  g_open_zip_entry = reinterpret_cast<OpenZipEntry>(shared_library_symbol(handle, "zipOpenNewFileInZip4_64"));
  return lib;  // the handle stays open: the functions are used until the process ends
}

}  // namespace

const XlsxLibrary& xlsx_library() {
  static const XlsxLibrary lib = load();
  return lib;
}

}  // namespace perfgate
