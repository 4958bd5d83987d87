// A throw-away PostgreSQL server for tests: a cluster in a temporary folder (initdb, pg_ctl from
// Debian's postgresql package), on a free localhost port, with trust authentication. It is stopped
// and its folder removed when the object goes, and by a watchdog process if the test process dies
// first, so no server outlives the test.
#pragma once

#include <memory>
#include <string>

namespace perfgate::testing {

class PostgresServer {
 public:
  // Starts a server; check available() (and why_not()) before use.
  PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;
  ~PostgresServer();

  bool available() const { return why_not_.empty(); }
  // PostgreSQL's programs are there (ci/setup.sh --tests installs them): a server that does not
  // start is then a failure, not a reason to skip.
  bool installed() const { return installed_; }
  const std::string& why_not() const { return why_not_; }
  // A new, empty database: its URI ("postgresql://perfgate@127.0.0.1:PORT/NAME").
  std::string create_database();
  // Runs SQL in database `name` (the last part of its URI) as the server's owner, through psql;
  // throws when it fails.
  void run_sql(const std::string& name, const std::string& sql);
  // The URI of database `name` for another role (trust authentication: no password).
  std::string uri_as(const std::string& role, const std::string& name) const;

  // The server of this test process, started on first use.
  static PostgresServer& shared();

 private:
  bool run(const std::string& command, bool as_server_user);
  void start();
  void stop();

  std::string bin_;  // /usr/lib/postgresql/N/bin
  std::string dir_;  // the temporary folder: data/, the log, the socket
  int port_ = 0;
  bool installed_ = false;
  bool as_root_ = false;  // initdb refuses root: the server then runs as the postgres user
  bool running_ = false;
  int databases_ = 0;
  std::string why_not_;
};

}  // namespace perfgate::testing
