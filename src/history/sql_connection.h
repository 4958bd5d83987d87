// What the history store needs from a database, so that one implementation of the store (SQL text,
// migrations, records, queries) serves SQLite and PostgreSQL alike. Statements take `?` parameters
// (PostgreSQL's connection rewrites them to $1, $2, ...): values are never spliced into SQL text.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace perfgate::history {

using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

// A value read back that is not what its column holds (a store changed by hand): "'1.1x', not a
// whole number".
class ValueError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Column values read back: SQLite gives typed values, PostgreSQL text; both convert here, and
// throw ValueError for a value that is not of the type asked for (a real number is a whole
// number only when it is one, within 64 bits).
std::int64_t as_integer(const SqlValue& v);
double as_real(const SqlValue& v);
std::optional<double> as_optional_real(const SqlValue& v);
std::string as_text(const SqlValue& v);

enum class Dialect { Sqlite, Postgres };

// Thrown by a statement when another writer holds the lock or the server asks for a retry
// (SQLITE_BUSY after the busy timeout, a PostgreSQL serialization failure or deadlock): the
// transaction is rolled back and tried again.
class RetryableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual Dialect dialect() const = 0;
  // The store for messages: "sqlite FILE" or the URI without password.
  virtual const std::string& where() const = 0;
  // Runs one statement; returns its rows (none for statements without results).
  virtual std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
  // Runs `work` in a transaction that writes: committed when it returns, rolled back when it
  // throws; retried a bounded number of times on RetryableError. `work` may run more than once.
  virtual void write_transaction(const std::function<void()>& work) = 0;
  // Runs `work` on one consistent snapshot of the database.
  virtual void read_transaction(const std::function<void()>& work) = 0;
  // The tables of the database (PostgreSQL: of the current schema).
  virtual std::vector<std::string> table_names() = 0;
  // Inside a write transaction: waits until no other connection migrates the schema.
  virtual void lock_schema() = 0;

  void execute(std::string_view sql, const std::vector<SqlValue>& params = {}) { query(sql, params); }
  // INSERT of many rows, a few hundred per statement.
  void insert_rows(std::string_view table, const std::vector<std::string_view>& columns,
                   const std::vector<SqlRow>& rows);

 protected:
  // `begin`, `work`, COMMIT; on any exception a rollback; on RetryableError, after a pause, all of
  // it again, up to kTransactionAttempts times (then InputError).
  void run_transaction(std::string_view begin, const std::function<void()>& work);
  // Ends the open transaction, if any, without throwing.
  virtual void rollback() noexcept = 0;
};

// How many times a transaction is tried when it keeps meeting other writers.
inline constexpr int kTransactionAttempts = 8;

// Sleeps before attempt `attempt` (1-based) of a contended transaction: growing, with jitter so
// that writers that collided do not collide again.
void back_off(int attempt);

}  // namespace perfgate::history
