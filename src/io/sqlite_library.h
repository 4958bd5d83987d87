// SQLite, loaded when a `.sqlite` export or a run history is first opened rather than when perfgate
// starts: Debian's libsqlite3.so.0 is linked -z now and exports its internals, so linking it cost
// every run 1,596 symbol bindings at start-up, 1.06 M instructions (issue 96: more than a third of an
// empty trace's run). It stays Debian's shared library, so that its security updates reach perfgate
// (issue #44; the package depends on libsqlite3-0, cmake/Packaging.cmake). The types and constants
// come from the headers, as for libxlsxwriter and libpq (render/xlsx/xlsx_library.h).
#pragma once

#include <sqlite3.h>

namespace perfgate {

// clang-format off
#define PERFGATE_SQLITE_FUNCTIONS(X)                                                                 \
  X(sqlite3_open_v2) X(sqlite3_close) X(sqlite3_close_v2) X(sqlite3_exec) X(sqlite3_errmsg)        \
  X(sqlite3_errstr) X(sqlite3_system_errno) X(sqlite3_extended_result_codes) X(sqlite3_busy_timeout) \
  X(sqlite3_db_readonly) X(sqlite3_deserialize) X(sqlite3_prepare_v2) X(sqlite3_step)              \
  X(sqlite3_reset) X(sqlite3_finalize) X(sqlite3_bind_int64) X(sqlite3_bind_double)                \
  X(sqlite3_bind_text64) X(sqlite3_bind_null) X(sqlite3_column_count) X(sqlite3_column_type)       \
  X(sqlite3_column_int64) X(sqlite3_column_double) X(sqlite3_column_text) X(sqlite3_column_bytes)  \
  X(sqlite3_column_value) X(sqlite3_value_type) X(sqlite3_value_int64) X(sqlite3_value_text)       \
  X(sqlite3_value_bytes)
// clang-format on

struct SqliteLibrary {
#define PERFGATE_SQLITE_MEMBER(name) decltype(&::name) name = nullptr;
  PERFGATE_SQLITE_FUNCTIONS(PERFGATE_SQLITE_MEMBER)
#undef PERFGATE_SQLITE_MEMBER
};

// Loads the library on first use (any thread). Throws InputError when it cannot be loaded.
const SqliteLibrary& sqlite_library();

}  // namespace perfgate
