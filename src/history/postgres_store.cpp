// The history in a PostgreSQL database, for CI runners on several machines. Every statement is
// sent with its values as parameters (PQexecParams), never spliced into the SQL. Each record is
// one transaction; ids come from an identity column, so concurrent writers never conflict, and
// the rare serialization failure or deadlock is retried.
#include <cctype>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "common/errors.h"
#include "history/connections.h"
#include "history/history.h"
#include "history/libpq_library.h"
#include "history/postgres_location.h"

namespace perfgate::history {
namespace {

// pg_type's oid of bytea (server/catalog/pg_type.dat): a column of this type is decoded from hex.
constexpr Oid kByteaType = 17;

// The advisory lock that serialises migrations: any fixed number ("perfgat" in ASCII).
constexpr std::int64_t kMigrationLock = 0x70657266676174;

struct ConnectionCloser {
  const LibpqLibrary* pq;
  void operator()(PGconn* c) const { pq->PQfinish(c); }
};
struct ResultCloser {
  const LibpqLibrary* pq;
  void operator()(PGresult* r) const { pq->PQclear(r); }
};
using ResultHandle = std::unique_ptr<PGresult, ResultCloser>;

// "?" placeholders as PostgreSQL's "$1", "$2", ... (perfgate's SQL has no "?" in string literals).
std::string numbered_parameters(std::string_view sql) {
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?')
      out += fmt::format("${}", ++n);
    else
      out += c;
  }
  return out;
}

std::string parameter_text(const SqlValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);  // shortest exact form
  return as_text(v);
}

// libpq's own reading of the string, which it connects with: refused when it fails, without
// libpq's message (it quotes the string); the password it reads is a secret too.
void parse_with_libpq(const LibpqLibrary& pq, PostgresLocation& location) {
  char* error = nullptr;
  PQconninfoOption* options = pq.PQconninfoParse(location.conninfo.c_str(), &error);
  if (error) pq.PQfreemem(error);
  if (!options)
    throw ConfigError(
        fmt::format("{}: libpq cannot read the connection string (an unknown keyword or "
                    "parameter, or a malformed value); it is not printed, as it may hold a "
                    "password",
                    location.description));
  for (PQconninfoOption* o = options; o->keyword; ++o)
    if (o->val && std::string_view(o->keyword) == "password") location.add_secret(o->val);
  pq.PQconninfoFree(options);
}

// libpq's messages end with a newline; a message of ours is one line.
std::string one_line(const char* message) {
  std::string text = message ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return text;
}

class PostgresConnection final : public SqlConnection {
 public:
  PostgresConnection(const std::string& text, Access access)
      : location_(parse_postgres_location(text)),
        where_(location_.description),
        pq_(libpq_library(where_)),
        conn_(nullptr, {&pq_}) {
    parse_with_libpq(pq_, location_);
    // Defaults first: the string's own settings (its "dbname" expands into them) override them.
    const char* keys[] = {"connect_timeout", "application_name", "client_encoding", "dbname", nullptr};
    const char* values[] = {"20", "perfgate", "UTF8", location_.conninfo.c_str(), nullptr};
    conn_.reset(pq_.PQconnectdbParams(keys, values, 1));
    if (!conn_) throw InputError(fmt::format("{}: cannot connect: out of memory", where_));
    if (pq_.PQstatus(conn_.get()) != CONNECTION_OK)
      throw InputError(
          fmt::format("{}: cannot connect: {}", where_, libpq_text(pq_.PQerrorMessage(conn_.get()))));
    // NOTICEs ("table exists, skipping", ...) would otherwise go to stderr.
    pq_.PQsetNoticeProcessor(
        conn_.get(), [](void*, const char*) {}, nullptr);
    // bytea values come back as hex, whatever the server's default; a reader writes nothing,
    // whatever its role may do.
    execute("SET bytea_output = hex");
    if (access == Access::Read) execute("SET default_transaction_read_only = on");
  }

  Dialect dialect() const override { return Dialect::Postgres; }
  const std::string& where() const override { return where_; }

  // Strings go in binary format with their length: as they are (a NUL included) into a bytea
  // column, and into a text column (a version 1 store's) when they are UTF-8. Numbers go as text.
  std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params) override {
    std::vector<std::string> texts;
    std::vector<const char*> values;
    std::vector<int> lengths, formats;
    texts.reserve(params.size());
    for (const SqlValue& p : params) {
      const auto* bytes = std::get_if<std::string>(&p);
      texts.push_back(bytes ? *bytes : parameter_text(p));
      values.push_back(std::holds_alternative<std::monostate>(p) ? nullptr : texts.back().data());
      lengths.push_back(static_cast<int>(texts.back().size()));
      formats.push_back(bytes ? 1 : 0);
    }
    std::string text = numbered_parameters(sql);
    ResultHandle result(pq_.PQexecParams(conn_.get(), text.c_str(), static_cast<int>(values.size()), nullptr,
                                         values.data(), lengths.data(), formats.data(), 0),
                        {&pq_});
    check(result.get());
    return rows_of(result.get());
  }

  void write_transaction(const std::function<void()>& work) override { run_transaction("BEGIN", work); }
  void read_transaction(const std::function<void()>& work) override {
    run_transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work);
  }

  std::vector<std::string> table_names() override {
    std::vector<std::string> names;
    for (const SqlRow& row : query("SELECT table_name FROM information_schema.tables "
                                   "WHERE table_schema = current_schema() ORDER BY table_name",
                                   {}))
      names.push_back(as_text(row.front()));
    return names;
  }

  void lock_schema() override { execute("SELECT pg_advisory_xact_lock(?)", {kMigrationLock}); }

 private:
  void rollback() noexcept override {
    if (PGresult* r = pq_.PQexecParams(conn_.get(), "ROLLBACK", 0, nullptr, nullptr, nullptr, nullptr, 0))
      pq_.PQclear(r);
  }

  // A message of libpq or the server, on one line, without the password (libpq's may quote any
  // part of the connection string).
  std::string libpq_text(const char* message) const { return location_.scrubbed(one_line(message)); }

  void check(PGresult* result) {
    if (!result) throw InputError(fmt::format("{}: {}", where_, libpq_text(pq_.PQerrorMessage(conn_.get()))));
    ExecStatusType status = pq_.PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    std::string message = libpq_text(pq_.PQresultErrorMessage(result));
    const char* state = pq_.PQresultErrorField(result, PG_DIAG_SQLSTATE);
    std::string_view sqlstate = state ? state : "";
    // 40001 serialization_failure, 40P01 deadlock_detected: the server asks to try again.
    if (sqlstate == "40001" || sqlstate == "40P01") throw RetryableError(message);
    if (pq_.PQstatus(conn_.get()) != CONNECTION_OK)
      throw InputError(fmt::format("{}: the connection was lost: {}", where_, message));
    throw InputError(fmt::format("{}: {}", where_, message));
  }

  SqlRow row_of(PGresult* result, int row, int columns) const {
    SqlRow values;
    for (int c = 0; c < columns; ++c) {
      if (pq_.PQgetisnull(result, row, c)) {
        values.emplace_back(std::monostate{});
        continue;
      }
      std::string_view text(pq_.PQgetvalue(result, row, c),
                            static_cast<std::size_t>(pq_.PQgetlength(result, row, c)));
      values.emplace_back(pq_.PQftype(result, c) == kByteaType ? bytes_of(text) : std::string(text));
    }
    return values;
  }

  // A bytea value in its hex text form ("\x6d61696e"; bytea_output is set to hex) as its bytes.
  std::string bytes_of(std::string_view hex) const {
    auto digit = [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c | 0x20) - 'a' + 10;
    };
    if (!hex.starts_with("\\x") || hex.size() % 2 != 0)
      throw ValueError(fmt::format("a bytea value not in hex form ({}...)", hex.substr(0, 10)));
    std::string bytes;
    bytes.reserve(hex.size() / 2 - 1);
    for (std::size_t i = 2; i < hex.size(); i += 2)
      bytes += static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1]));
    return bytes;
  }

  std::vector<SqlRow> rows_of(PGresult* result) const {
    std::vector<SqlRow> rows;
    int n = pq_.PQntuples(result), columns = pq_.PQnfields(result);
    rows.reserve(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) rows.push_back(row_of(result, r, columns));
    return rows;
  }

  PostgresLocation location_;
  std::string where_;
  const LibpqLibrary& pq_;
  std::unique_ptr<PGconn, ConnectionCloser> conn_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_postgres(const std::string& location, Access access) {
  return std::make_unique<PostgresConnection>(location, access);
}

}  // namespace perfgate::history

namespace perfgate {

void check_history_location(const std::string& location) {
  if (!is_postgres_location(location)) return;
  history::PostgresLocation parsed = history::parse_postgres_location(location);
  history::parse_with_libpq(history::libpq_library(parsed.description), parsed);
}

}  // namespace perfgate
