#include "load/nsys/sqlite_db.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/sqlite_uri.h"

namespace perfgate::nsys {

SqliteDb::SqliteDb(const ByteInput& input, std::uint64_t max_memory) : path_(input.name()) {
  if (const std::string* file = input.file_path()) {
    open(sqlite_immutable_uri(*file), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  } else {
    bytes_ = read_whole(input, max_memory);
    open(":memory:", SQLITE_OPEN_READWRITE);
    // Read-only, and not freed by SQLite: the bytes are bytes_, used where they lie.
    auto* data = reinterpret_cast<unsigned char*>(bytes_.data());
    auto size = static_cast<sqlite3_int64>(bytes_.size());
    if (sql_.sqlite3_deserialize(db_.get(), "main", data, size, size, SQLITE_DESERIALIZE_READONLY) !=
        SQLITE_OK)
      fail("cannot open as SQLite");
  }
  // Tables are read in one pass each, so a large page cache buys nothing (the default is 2 MiB).
  if (sql_.sqlite3_exec(db_.get(), "PRAGMA cache_size = -512", nullptr, nullptr, nullptr) != SQLITE_OK)
    fail("cannot read as SQLite");
  Statement tables(*this, "SELECT name FROM sqlite_master WHERE type = 'table'");
  while (tables.next()) tables_.emplace_back(tables.text(0));
  std::sort(tables_.begin(), tables_.end());
}

SqliteDb::~SqliteDb() = default;

// One connection per thread that reads an export: SQLite's own mutexes would only cost.
void SqliteDb::open(const std::string& uri, int flags) {
  sqlite3* opened = nullptr;
  int rc = sql_.sqlite3_open_v2(uri.c_str(), &opened, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  db_.reset(opened);
  if (rc != SQLITE_OK) fail("cannot open as SQLite");
}

void SqliteDb::fail(std::string_view what) const {
  const char* why = db_ ? sql_.sqlite3_errmsg(db_.get()) : "out of memory";
  throw InputError(fmt::format("{}: {}: {}", path_, what, why));
}

bool SqliteDb::has_table(std::string_view name) const {
  return std::binary_search(tables_.begin(), tables_.end(), name);
}

std::vector<std::string> SqliteDb::columns(const std::string& table) const {
  std::vector<std::string> names;
  if (!has_table(table)) return names;
  Statement info(*this, fmt::format("SELECT name FROM pragma_table_info('{}')", table));
  while (info.next()) names.emplace_back(info.text(0));
  return names;
}

Statement::Statement(const SqliteDb& db, const std::string& sql) : db_(db), sql_(db.sql_) {
  if (sql_.sqlite3_prepare_v2(db.db_.get(), sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK)
    db.fail("cannot read the export");
}

Statement::~Statement() {
  sql_.sqlite3_finalize(stmt_);
}

bool Statement::next() {
  bad_value_ = false;
  int rc = sql_.sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("cannot read the export");
}

void Statement::reset() {
  sql_.sqlite3_reset(stmt_);
}

void Statement::bind(int index, std::int64_t value) {
  sql_.sqlite3_bind_int64(stmt_, index, value);
}

// Each column is read through its sqlite3_value: one sqlite3_column_* call a column (each costs a
// check of the statement and of allocation failures) instead of one for its type and one for its
// value. The value is unprotected, which is safe here: a connection is used by one thread (NOMUTEX).
bool Statement::is_null(int column) const {
  return sql_.sqlite3_value_type(sql_.sqlite3_column_value(stmt_, column)) == SQLITE_NULL;
}

std::int64_t Statement::integer(int column) const {
  sqlite3_value* value = sql_.sqlite3_column_value(stmt_, column);
  int type = sql_.sqlite3_value_type(value);
  if (type == SQLITE_INTEGER) return sql_.sqlite3_value_int64(value);
  if (type != SQLITE_NULL) bad_value_ = true;
  return 0;
}

std::optional<std::int64_t> Statement::optional_integer(int column) const {
  sqlite3_value* value = sql_.sqlite3_column_value(stmt_, column);
  int type = sql_.sqlite3_value_type(value);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type == SQLITE_INTEGER) return sql_.sqlite3_value_int64(value);
  bad_value_ = true;
  return 0;
}

std::string_view Statement::text(int column) const {
  sqlite3_value* value = sql_.sqlite3_column_value(stmt_, column);
  const unsigned char* p = sql_.sqlite3_value_text(value);
  if (!p) return {};
  return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(sql_.sqlite3_value_bytes(value))};
}

std::string select_columns(const SqliteDb& db, const std::string& table,
                           const std::vector<std::string_view>& wanted, std::string_view tail) {
  std::vector<std::string> have = db.columns(table);
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    if (i) sql += ", ";
    bool exists = std::find(have.begin(), have.end(), wanted[i]) != have.end();
    sql += exists ? fmt::format("\"{}\"", wanted[i]) : std::string("NULL");
  }
  return fmt::format("{} FROM \"{}\" {}", sql, table, tail);
}

}  // namespace perfgate::nsys
