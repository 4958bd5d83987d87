// The two databases a history lives in, behind SqlConnection.
#pragma once

#include <memory>
#include <string>

#include "history/sql_connection.h"

namespace perfgate::history {

// Read: read-only, the file must exist; nothing is written, and no write access to the file or
// its folder is needed. Write: created when missing.
enum class Access { Read, Write };

// A SQLite file in WAL mode (readers never wait for the writer) with a busy timeout, whose write
// transactions begin IMMEDIATE (the write lock is taken first, so two writers never deadlock on
// an upgrade). For reading, a WAL-mode file in a folder this user cannot write (where SQLite
// cannot make the WAL index, FILE-shm) is read as immutable when it has no FILE-wal: every commit
// is then in the file itself.
std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, Access access);

// A PostgreSQL database by connection string (postgres_location.h), through libpq loaded at first
// use. Read: every transaction is read-only.
std::unique_ptr<SqlConnection> open_postgres(const std::string& location, Access access);

// What a file is to the history: not SQLite (or unreadable), SQLite without tables (an empty
// database, or a 0-byte file), perfgate's history (schema_version and runs), or another SQLite
// database (an Nsight Systems export).
enum class SqliteFileKind { NotSqlite, NoTables, History, Other };
SqliteFileKind sqlite_file_kind(const std::string& path);

}  // namespace perfgate::history
