// PostgreSQL connection strings (issue #28, item 2): what is one (never a file name), the
// malformed ones refused before libpq sees them, and a password that reaches no output, no
// message and no file, whatever command it is given to.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "common/errors.h"
#include "history/history.h"
#include "history/history_cli_support.h"
#include "history/postgres_location.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

TEST(PostgresLocation, WhatIsAConnectionString) {
  for (const char* text :
       {"postgresql://ci@db/perf", "postgres://db/perf", "POSTGRESQL://ci@db/perf", "PostgreS://db",
        "postgresql:/ci:x@h/db", "postgresql:ci@h", "host=db dbname=perf", "  dbname = perf", "service=perf"})
    EXPECT_TRUE(is_postgres_location(text)) << text;
  for (const char* text :
       {"perf.db", "./host=db.db", "/tmp/a=b.db", "history.sqlite", "C:\\perf.db", "", "=x", "postgresql"})
    EXPECT_FALSE(is_postgres_location(text)) << text;
}

TEST(PostgresLocation, DescriptionsNameNoPassword) {
  EXPECT_EQ(describe_history_location("postgresql://ci:s3cret@db.example.com:5433/perf?sslmode=require"),
            "postgresql://ci@db.example.com:5433/perf");
  EXPECT_EQ(describe_history_location("POSTGRES://ci:s3cret@db/perf"), "postgres://ci@db/perf");
  EXPECT_EQ(describe_history_location("postgresql://ci:p%40ss@[::1]:5432,h2:5433/perf"),
            "postgresql://ci@[::1]:5432,h2:5433/perf");
  EXPECT_EQ(describe_history_location("host=db port=5433 password='a b' dbname=perf user=ci sslmode=require"),
            "host=db port=5433 dbname=perf user=ci");
  EXPECT_EQ(describe_history_location("postgresql:/ci:s3cret@h/db"),
            "a malformed PostgreSQL connection string");
}

TEST(PostgresLocation, SecretsAreThePasswordAsWrittenAndAsRead) {
  history::PostgresLocation uri =
      history::parse_postgres_location("postgresql://ci:p%41ss%25w@h/db?password=q%2Fr&sslmode=require");
  EXPECT_EQ(uri.conninfo, "postgresql://ci:p%41ss%25w@h/db?password=q%2Fr&sslmode=require");
  EXPECT_EQ(uri.scrubbed("x p%41ss%25w y pAss%w z q%2Fr q/r"), "x *** y *** z *** ***");
  history::PostgresLocation keywords =
      history::parse_postgres_location(R"(host=h password='it\'s secret' dbname=perf)");
  EXPECT_EQ(keywords.scrubbed(R"(it's secret, 'it\'s secret')"), "***, ***");
  EXPECT_EQ(history::parse_postgres_location("Postgres://h/db").conninfo, "postgres://h/db");
}

TEST(PostgresLocation, MalformedOnesAreRefusedWithoutQuotingThem) {
  struct Case {
    const char* text;
    const char* problem;
  };
  for (const Case& c : std::vector<Case>{
           {"postgresql://ci:Pa55%zzw0rd@h/db", "a '%' that does not begin a percent-encoded byte (%XX)"},
           {"postgresql://ci:Pa55w0rd@[::1:5432/db", "an IPv6 host without its closing ']'"},
           {"postgresql://ci:Pa55@w0rd@127.0.0.1/db", "an '@', '/' or '?' inside the user name or password"},
           {"postgresql://ci:Pa55/w0rd@127.0.0.1/db", "an '@', '/' or '?' inside the user name or password"},
           {"postgresql:/ci:Pa55w0rd@h/db", "it must begin postgresql:// (two slashes)"},
           {"postgresql://h:Pa55w0rd/db", "a port that is not a number"},
           {"postgresql://h/db?password=Pa55=w0rd", "a parameter that is not one KEY=VALUE"},
           {"postgresql://h/db?password=Pa55%00", "%00 (a NUL byte) is not allowed"},
           {"host=h password='Pa55w0rd", "a quoted value without its closing quote"},
           {"host=h password=Pa55 w0rd", "a word that is not KEY=VALUE"},
       }) {
    SCOPED_TRACE(c.text);
    try {
      check_history_location(c.text);
      FAIL() << "accepted";
    } catch (const ConfigError& e) {
      std::string message = e.what();
      EXPECT_TRUE(contains(message, c.problem)) << message;
      EXPECT_FALSE(contains(message, "Pa55")) << message;
      EXPECT_FALSE(contains(message, "w0rd")) << message;
    }
  }
}

// Every file under `dir`, by name and content.
std::string everything_in(const std::string& dir) {
  std::string all;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    all += entry.path().string() + "\n" + (entry.is_regular_file() ? read_text(entry.path().string()) : "");
  return all;
}

// The issue's strings and their kin, through history list, analyze --history --record and
// analyze --baseline: the password's text is nowhere, and each gets its exit code.
TEST(PostgresLocationCli, APasswordReachesNoOutputAndNoFile) {
  CleanCiEnvironment clean;
  struct Case {
    std::string location;
    std::vector<std::string> secret;  // parts of the password no output may hold
    int exit_code;                    // 2: refused before any work; 3: cannot connect
  };
  const std::string server = "127.0.0.1:1";  // nothing listens on port 1: refused at once
  std::vector<Case> cases = {
      {"postgresql://ci:Pa55%zzw0rd@h/db", {"Pa55", "zzw0rd"}, 2},
      {"postgresql://ci:Pa55w0rd@[::1:5432/db", {"Pa55w0rd"}, 2},
      {"postgresql://ci:Pa55@w0rd@" + server + "/db", {"Pa55", "w0rd"}, 2},
      {"postgresql://ci:Pa55/w0rd@" + server + "/db", {"Pa55", "w0rd"}, 2},
      {"postgresql:/ci:S3cret@h/db", {"S3cret"}, 2},
      {"host=127.0.0.1 port=1 password=S3cret dbname=perf", {"S3cret"}, 3},
      {"host=h password=Zq9 Xk7=y", {"Zq9", "Xk7"}, 2},
      {"POSTGRESQL://ci:S3cret@" + server + "/db", {"S3cret"}, 3},
      {"postgresql://ci:p%41ss%25w0rd@" + server + "/db", {"p%41ss", "pAss", "w0rd"}, 3},
      {"postgresql://ci@" + server + "/db?password=S3cret", {"S3cret"}, 3},
  };
  std::string base = temp_dir();
  std::string trace = training_trace_file(base, steady());
  for (const Case& c : cases) {
    std::vector<std::string> commands = {
        fmt::format("history list '{}'", c.location),
        fmt::format("analyze {} --no-color --history '{}' --record --json r.json --md r.md", trace,
                    c.location),
        fmt::format("analyze {} --no-color --baseline '{}' --json r.json --md r.md", trace, c.location),
    };
    for (const std::string& command : commands) {
      SCOPED_TRACE(command);
      std::string dir = temp_dir();
      CommandResult r = run_perfgate_in(dir, command);
      EXPECT_EQ(r.exit_code, c.exit_code) << r.out;
      std::string written = everything_in(dir);
      for (const std::string& part : c.secret) {
        EXPECT_FALSE(contains(r.out, part)) << part << " in:\n" << r.out;
        EXPECT_FALSE(contains(written, part)) << part << " in a file:\n" << written;
      }
    }
  }
}

}  // namespace
}  // namespace perfgate::testing
