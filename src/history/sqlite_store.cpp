// The history in a SQLite file. Many CI jobs may record into one file at once (on one machine, or
// a local disk: WAL needs shared memory, so not a network file system): WAL lets readers go on
// while one writer writes; writers queue on the busy timeout, and a transaction that still finds
// the lock taken is rolled back and tried again after a random pause.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/path_confinement.h"
#include "history/connections.h"
#include "io/byte_source.h"
#include "io/sqlite_library.h"
#include "io/sqlite_uri.h"

namespace perfgate::history {
namespace {

namespace fs = std::filesystem;

constexpr int kBusyTimeoutMs = 5000;

// Opened on the first history opened (io/sqlite_library.h).
const SqliteLibrary& sqlite() {
  return sqlite_library();
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite().sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

struct StatementFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite().sqlite3_finalize(s); }
};
using StatementHandle = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

bool is_contention(int rc) {
  int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

// The folder of a file can take new files (SQLite's -wal and -shm beside it).
bool folder_writable(const std::string& path) {
  fs::path folder = fs::path(path).parent_path();
  return ::access(folder.empty() ? "." : folder.c_str(), W_OK) == 0;
}

// A read-only open of a WAL-mode file fails on its first read when SQLite cannot make the WAL
// index beside it.
bool cannot_make_wal_index(int rc) {
  return rc == SQLITE_READONLY_DIRECTORY || rc == SQLITE_READONLY_CANTINIT || (rc & 0xff) == SQLITE_CANTOPEN;
}

class SqliteConnection final : public SqlConnection {
 public:
  // `checked`: a reader checks the whole file first (check_integrity). Telling what kind of SQLite
  // file a path is (sqlite_file_kind) reads its table names only: a look at an Nsight Systems
  // export of hundreds of MB must not read every page of it.
  SqliteConnection(const std::string& path, Access access, bool checked = true)
      : where_(path), access_(access), checked_(checked) {
    // SQLite's open(2) of a FIFO waits for a writer: every path is looked at first (a file put in
    // its place between the two needs write access to the folder, which the history's owner has).
    // Under a confinement (perfgate mcp) the file is opened where its links lead, once that is
    // checked to be beneath a root, and never through a link again (SQLITE_OPEN_NOFOLLOW).
    bool confined = paths_confined();
    std::string file = check_confined_path(path);
    bool exists = check_regular_file(path, /*missing_ok=*/true);
    if (access == Access::Read) {
      if (!exists) throw InputError(fmt::format("{}: no such history file", path));
      if (confined)
        open_confined_for_reading(file);
      else
        open_for_reading();
      return;
    }
    if (!exists) check_folder_for_a_new_file(file);
    if (confined) refuse_linked_companions(file);
    open(file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | (confined ? SQLITE_OPEN_NOFOLLOW : 0));
    check_integrity();
    execute("PRAGMA foreign_keys = ON");
    // Never switch a database that is something else (an Nsight Systems export) to WAL: that
    // rewrites its header. Such a file is refused when its schema is read.
    if (!sqlite().sqlite3_db_readonly(db_.get(), "main")) use_wal();
  }

  Dialect dialect() const override { return Dialect::Sqlite; }
  const std::string& where() const override { return where_; }

  std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite().sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
    StatementHandle statement(raw);
    check(rc, "cannot prepare a statement");
    for (std::size_t i = 0; i < params.size(); ++i) bind(statement.get(), static_cast<int>(i) + 1, params[i]);
    std::vector<SqlRow> rows;
    while ((rc = sqlite().sqlite3_step(statement.get())) == SQLITE_ROW)
      rows.push_back(row_of(statement.get()));
    if (rc != SQLITE_DONE) check(rc, "cannot run a statement");
    return rows;
  }

  void write_transaction(const std::function<void()>& work) override {
    run_transaction("BEGIN IMMEDIATE", work);
  }
  void read_transaction(const std::function<void()>& work) override { run_transaction("BEGIN", work); }

  std::vector<std::string> table_names() override {
    std::vector<std::string> names;
    for (const SqlRow& row : query(
             "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
             "ORDER BY name",
             {}))
      names.push_back(as_text(row.front()));
    return names;
  }

  void lock_schema() override {}  // BEGIN IMMEDIATE holds the file's write lock already

 private:
  void open(const std::string& name, int flags) {
    sqlite3* raw = nullptr;
    int rc = sqlite().sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
    db_.reset(raw);  // owned from here on, even when the open failed
    if (rc != SQLITE_OK) fail("cannot open the history", rc);
    sqlite().sqlite3_extended_result_codes(db_.get(), 1);
    sqlite().sqlite3_busy_timeout(db_.get(), kBusyTimeoutMs);
  }

  void open_for_reading() {
    open(where_, SQLITE_OPEN_READONLY);
    int rc =
        sqlite().sqlite3_exec(db_.get(), "SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) {
      if (checked_) check_integrity("read");
      return;
    }
    if (!cannot_make_wal_index(rc) || folder_writable(where_)) fail("cannot read the history", rc);
    std::error_code ec;
    if (fs::file_size(where_ + "-wal", ec) > 0 && !ec)
      throw InputError(fmt::format(
          "{}: cannot read the history: its folder is not writable, and the commits in {}-wal can only "
          "be read with the WAL index {}-shm beside them (a perfgate that may write there reads it)",
          where_, where_, where_));
    open(sqlite_immutable_uri(where_), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    if (checked_) check_integrity("read");
  }

  // A confined reader creates nothing: a history without pending WAL commits is read immutable (no
  // -wal, -shm or lock); one with them only with the WAL index its writer left beside it.
  void open_confined_for_reading(const std::string& file) {
    refuse_linked_companions(file);
    std::error_code ec;
    bool pending = fs::file_size(file + "-wal", ec) > 0 && !ec;
    if (pending && fs::exists(file + "-shm", ec)) {
      open(file, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW);
      if (checked_) check_integrity("read");
      return;
    }
    if (pending)
      throw InputError(fmt::format(
          "{}: cannot read the history: the commits in {}-wal can only be read with the WAL index {}-shm "
          "beside them, which a read-only server does not create (a perfgate that may write there reads it)",
          where_, where_, where_));
    open(sqlite_immutable_uri(file), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW);
    if (checked_) check_integrity("read");
  }

  // SQLite opens a file's journal, WAL and WAL index by their names beside it, following links: a
  // link there could lead a write out of the roots.
  void refuse_linked_companions(const std::string& file) const {
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      std::error_code ec;
      if (fs::is_symlink(fs::symlink_status(file + suffix, ec)))
        throw InputError(
            fmt::format("{}{}: a symbolic link beside the history {}; remove it", where_, suffix, where_));
    }
  }

  // SQLite retries a failed create read-only and then reports ENOENT ("No such file or
  // directory") for a folder the user cannot write: the folder is looked at first, and named.
  static void check_folder_for_a_new_file(const std::string& path) {
    fs::path folder = fs::path(path).parent_path();
    std::string name = folder.empty() ? "." : folder.string();
    std::error_code ec;
    if (!fs::is_directory(name, ec))
      throw InputError(fmt::format("{}: cannot create the history in {}: no such folder", path, name));
    if (::access(name.c_str(), W_OK | X_OK) != 0)
      throw InputError(
          fmt::format("{}: cannot create the history in {}: {}", path, name, std::strerror(errno)));
  }

  // A run recorded into a damaged store could not be read back (issue #55): before anything is
  // written (the WAL switch included), PRAGMA quick_check, O(pages): about 7 ms per MB of history.
  // A reader checks too (issues 74, 78): `history list` and `trend` read no step, op or kernel rows, so a
  // damaged page among those went unnoticed while they printed results. `done` is what did not
  // happen: "recorded" or "read".
  void check_integrity(std::string_view done = "recorded") {
    for (int attempt = 1;; ++attempt) {
      std::string problems;
      int rc = quick_check(problems);
      if (is_contention(rc) && attempt < kTransactionAttempts) {
        back_off(attempt);
        continue;
      }
      if (rc == SQLITE_DONE && problems == "ok") return;
      if (rc != SQLITE_DONE && (rc & 0xff) != SQLITE_CORRUPT) fail("cannot check the history", rc);
      if (rc != SQLITE_DONE) problems = sqlite().sqlite3_errmsg(db_.get());
      throw InputError(
          fmt::format("{}: the history is damaged (quick_check: {}): nothing was {}; restore it from a copy",
                      where_, problems, done));
    }
  }

  // The check's rows joined ("ok" for a sound file); returns the last step's result code.
  int quick_check(std::string& problems) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite().sqlite3_prepare_v2(db_.get(), "PRAGMA quick_check(20)", -1, &raw, nullptr);
    StatementHandle statement(raw);
    if (rc != SQLITE_OK) return rc;
    while ((rc = sqlite().sqlite3_step(statement.get())) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite().sqlite3_column_text(statement.get(), 0));
      problems += (problems.empty() ? "" : "; ") + std::string(text ? text : "");
    }
    return rc;
  }

  bool empty_or_history() {
    std::vector<std::string> tables = table_names();
    return tables.empty() || std::find(tables.begin(), tables.end(), "schema_version") != tables.end();
  }

  // WAL is a property of the file: the first writer sets it, later ones find it set. Switching
  // needs the file to itself, so a writer that meets others doing the same waits and tries again.
  void use_wal() {
    for (int attempt = 1;; ++attempt) {
      try {
        if (!empty_or_history()) return;
        execute("PRAGMA journal_mode = WAL");
        // In WAL mode NORMAL is safe from corruption; a power cut may lose the last commits only.
        execute("PRAGMA synchronous = NORMAL");
        return;
      } catch (const RetryableError& e) {
        if (attempt == kTransactionAttempts)
          throw InputError(fmt::format("{}: still locked by other writers after {} attempts: {}", where_,
                                       attempt, e.what()));
        back_off(attempt);
      }
    }
  }

  void rollback() noexcept override {
    sqlite().sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }

  void bind(sqlite3_stmt* s, int index, const SqlValue& v) {
    int rc = SQLITE_OK;
    if (const auto* i = std::get_if<std::int64_t>(&v))
      rc = sqlite().sqlite3_bind_int64(s, index, *i);
    else if (const auto* d = std::get_if<double>(&v))
      rc = sqlite().sqlite3_bind_double(s, index, *d);
    else if (const auto* t = std::get_if<std::string>(&v))
      rc = sqlite().sqlite3_bind_text64(s, index, t->data(), t->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    else
      rc = sqlite().sqlite3_bind_null(s, index);
    check(rc, "cannot bind a value");
  }

  static SqlRow row_of(sqlite3_stmt* s) {
    SqlRow row;
    int columns = sqlite().sqlite3_column_count(s);
    for (int c = 0; c < columns; ++c) {
      switch (sqlite().sqlite3_column_type(s, c)) {
        case SQLITE_INTEGER:
          row.emplace_back(std::int64_t{sqlite().sqlite3_column_int64(s, c)});
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite().sqlite3_column_double(s, c));
          break;
        case SQLITE_NULL:
          row.emplace_back(std::monostate{});
          break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite().sqlite3_column_text(s, c));
          row.emplace_back(
              std::string(text ? text : "", static_cast<std::size_t>(sqlite().sqlite3_column_bytes(s, c))));
        }
      }
    }
    return row;
  }

  void check(int rc, std::string_view what) {
    if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
    if (is_contention(rc)) throw RetryableError(sqlite().sqlite3_errmsg(db_.get()));
    fail(access_ == Access::Read ? "cannot read the history" : what, rc);
  }

  // SQLite's message, and the system's where a file operation failed: "disk I/O error (No space
  // left on device)".
  [[noreturn]] void fail(std::string_view what, int rc) {
    int primary = rc & 0xff;
    if (primary == SQLITE_NOTADB)
      throw InputError(fmt::format("{}: not a perfgate history: not an SQLite database", where_));
    std::string why = db_ ? sqlite().sqlite3_errmsg(db_.get()) : sqlite().sqlite3_errstr(rc);
    int system_error = db_ ? sqlite().sqlite3_system_errno(db_.get()) : 0;
    bool from_a_file = primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN ||
                       primary == SQLITE_READONLY;
    if (from_a_file && system_error != 0) why += fmt::format(" ({})", std::strerror(system_error));
    throw InputError(fmt::format("{}: {}: {}", where_, what, why));
  }

  std::string where_;
  Access access_;
  bool checked_ = true;
  DbHandle db_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, Access access) {
  return std::make_unique<SqliteConnection>(path, access);
}

SqliteFileKind sqlite_file_kind(const std::string& path) {
  check_confined_path(path);
  if (!check_regular_file(path, /*missing_ok=*/true)) return SqliteFileKind::NotSqlite;
  std::error_code ec;
  if (fs::file_size(path, ec) == 0 && !ec) return SqliteFileKind::NoTables;  // SQLite's empty database
  // Only a file that starts like SQLite is opened by it.
  char head[16] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::size_t n = f ? std::fread(head, 1, sizeof head, f) : 0;
  if (f) std::fclose(f);
  if (n != sizeof head || std::memcmp(head, "SQLite format 3", sizeof head) != 0)
    return SqliteFileKind::NotSqlite;
  try {
    std::vector<std::string> tables = SqliteConnection(path, Access::Read, /*checked=*/false).table_names();
    if (tables.empty()) return SqliteFileKind::NoTables;
    auto has = [&](const char* name) {
      return std::find(tables.begin(), tables.end(), name) != tables.end();
    };
    return has("schema_version") && has("runs") ? SqliteFileKind::History : SqliteFileKind::Other;
  } catch (const std::exception&) {
    return SqliteFileKind::NotSqlite;  // damaged or unreadable: the reader that opens it says why
  }
}

}  // namespace perfgate::history
