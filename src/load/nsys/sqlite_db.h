// A small read-only view of an SQLite file: prepared statements, columns found by name.
// Every SQLite error becomes an InputError naming the file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.h"
#include "io/sqlite_library.h"

namespace perfgate::nsys {

class SqliteDb;

// One prepared SELECT; rows are stepped through, never held.
class Statement {
 public:
  Statement(const SqliteDb& db, const std::string& sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  bool next();  // false after the last row
  void reset();
  void bind(int index, std::int64_t value);
  bool is_null(int column) const;
  // 0 for NULL. Text, a blob or a real in an integer column also reads as 0 and marks the row bad.
  std::int64_t integer(int column) const;
  // True when integer() met a value that is not an integer in the current row.
  bool bad_value() const { return bad_value_; }
  std::optional<std::int64_t> optional_integer(int column) const;
  std::string_view text(int column) const;  // valid until the next step

 private:
  const SqliteDb& db_;
  const SqliteLibrary& sql_;
  sqlite3_stmt* stmt_ = nullptr;
  mutable bool bad_value_ = false;
};

class SqliteDb {
 public:
  // Opens a plain file on disk by its path, read-only and immutable: nothing is ever written beside
  // the file. Other bytes (gzip'd, in memory) are read whole, up to `max_memory` (0: no limit), and
  // opened where they lie in memory (sqlite3_deserialize). Errors name the input.
  SqliteDb(const ByteInput& input, std::uint64_t max_memory);
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  const std::string& path() const { return path_; }
  bool has_table(std::string_view name) const;
  // The table's column names in order; empty when the table does not exist.
  std::vector<std::string> columns(const std::string& table) const;
  [[noreturn]] void fail(std::string_view what) const;

 private:
  friend class Statement;
  struct Close {
    void operator()(sqlite3* db) const { sqlite_library().sqlite3_close(db); }
  };
  void open(const std::string& uri, int flags);

  const SqliteLibrary& sql_ = sqlite_library();
  std::string path_;
  std::string bytes_;  // the database where it is not a file on disk; outlives the connection
  // Owned from the first line of the constructor: a constructor that throws (a corrupt file) still
  // closes the connection, which sqlite3_open_v2 makes even when it fails.
  std::unique_ptr<sqlite3, Close> db_;
  std::vector<std::string> tables_;  // sorted
};

// Builds "SELECT <wanted columns that exist, others as NULL> FROM table": a statement reads
// columns by name whatever their order or number in this schema version. "end" is quoted.
std::string select_columns(const SqliteDb& db, const std::string& table,
                           const std::vector<std::string_view>& wanted, std::string_view tail = {});

}  // namespace perfgate::nsys
