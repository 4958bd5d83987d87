#include "support/postgres_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

// The newest PostgreSQL's programs under Debian's /usr/lib/postgresql/N/bin; empty when absent.
std::string find_bin() {
  std::error_code ec;
  int best = -1;
  std::string found;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    fs::path bin = entry.path() / "bin";
    int version = std::atoi(entry.path().filename().c_str());
    if (version > best && fs::exists(bin / "initdb") && fs::exists(bin / "pg_ctl")) {
      best = version;
      found = bin.string();
    }
  }
  return found;
}

// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice for port 0).
int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  ::close(s);
  return port;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

PostgresServer::PostgresServer() {
  bin_ = find_bin();
  installed_ = !bin_.empty();
  if (!installed_) {
    why_not_ =
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): ci/setup.sh --tests installs it";
    return;
  }
  as_root_ = ::geteuid() == 0;
  if (as_root_ && !::getpwnam("postgres")) {
    why_not_ = "running as root and there is no 'postgres' user to run the server as";
    return;
  }
  char pattern[] = "/tmp/perfgate-pg-XXXXXX";
  if (!::mkdtemp(pattern)) {
    why_not_ = "cannot make a temporary folder";
    return;
  }
  dir_ = pattern;
  start();
}

PostgresServer::~PostgresServer() {
  stop();
}

PostgresServer& PostgresServer::shared() {
  static PostgresServer server;
  return server;
}

bool PostgresServer::run(const std::string& command, bool as_server_user) {
  std::string line = as_server_user && as_root_ ? "runuser -u postgres -- " + command : command;
  // From "/": the server user may not be allowed into the test's working folder.
  return std::system(fmt::format("cd / && {} >>{}/commands.log 2>&1", line, dir_).c_str()) == 0;
}

void PostgresServer::start() {
  if (as_root_ && !run(fmt::format("chown postgres: {}", dir_), false)) {
    why_not_ = "cannot give the temporary folder to the postgres user";
    return;
  }
  // A watchdog stops the server and removes the folder if this process dies without doing so.
  std::string stop_command = fmt::format("{}{}/pg_ctl -D {}/data -m immediate stop",
                                         as_root_ ? "runuser -u postgres -- " : "", bin_, dir_);
  // The shell only puts the watchdog in the background: its status says nothing about the server.
  [[maybe_unused]] int watchdog = std::system(
      fmt::format("cd / && setsid sh -c 'while kill -0 {} 2>/dev/null; do sleep 1; done; {}; rm -rf {}' "
                  "</dev/null >/dev/null 2>&1 &",
                  ::getpid(), stop_command, dir_)
          .c_str());
  if (!run(fmt::format("{}/initdb -D {}/data -U perfgate -A trust -E UTF8 --locale=C --no-sync", bin_, dir_),
           true)) {
    why_not_ = "initdb failed:\n" + read_file(dir_ + "/commands.log");
    return;
  }
  // The port was free a moment ago; another test process may take it first, so a failed start
  // tries another.
  for (int attempt = 0; attempt < 3 && !running_; ++attempt) {
    port_ = free_port();
    running_ =
        run(fmt::format("{}/pg_ctl -D {}/data -l {}/server.log -w -t 60 -o '-c listen_addresses=127.0.0.1 "
                        "-p {} -k {} -c fsync=off -c synchronous_commit=off -c full_page_writes=off' start",
                        bin_, dir_, dir_, port_, dir_),
            true);
  }
  if (!running_)
    why_not_ = fmt::format("the test server did not start:\n{}\n{}", read_file(dir_ + "/commands.log"),
                           read_file(dir_ + "/server.log"));
}

void PostgresServer::stop() {
  if (dir_.empty()) return;
  if (running_) run(fmt::format("{}/pg_ctl -D {}/data -m fast -w stop", bin_, dir_), true);
  running_ = false;
  std::error_code ec;
  fs::remove_all(dir_, ec);
  dir_.clear();
}

std::string PostgresServer::create_database() {
  std::string name = fmt::format("history{}", ++databases_);
  if (!run(fmt::format("{}/createdb -h 127.0.0.1 -p {} -U perfgate {}", bin_, port_, name), false))
    throw std::runtime_error("createdb failed: " + read_file(dir_ + "/commands.log"));
  return fmt::format("postgresql://perfgate@127.0.0.1:{}/{}", port_, name);
}

void PostgresServer::run_sql(const std::string& name, const std::string& sql) {
  std::string file = dir_ + "/statement.sql";
  std::ofstream(file) << sql;
  if (!run(fmt::format("{}/psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p {} -U perfgate -d {} -f {}", bin_,
                       port_, name, file),
           false))
    throw std::runtime_error("psql failed: " + read_file(dir_ + "/commands.log"));
}

std::string PostgresServer::uri_as(const std::string& role, const std::string& name) const {
  return fmt::format("postgresql://{}@127.0.0.1:{}/{}", role, port_, name);
}

}  // namespace perfgate::testing
