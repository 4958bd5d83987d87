// The two databases a history lives in, behind SqlConnection.
#pragma once

#include <memory>
#include <string>

#include "history/sql_connection.h"

namespace perfgate::history {

// A SQLite file in WAL mode (readers never wait for the writer) with a busy timeout, whose write
// transactions begin IMMEDIATE (the write lock is taken first, so two writers never deadlock on
// an upgrade). Without `create` the file must exist.
std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, bool create);

// A PostgreSQL database by URI (postgresql://USER:PASSWORD@HOST:PORT/DB?sslmode=...), through
// libpq loaded at first use.
std::unique_ptr<SqlConnection> open_postgres(const std::string& uri);

// True when `path` is a SQLite file whose tables include perfgate's schema_version and runs.
bool sqlite_file_has_history(const std::string& path);

}  // namespace perfgate::history
