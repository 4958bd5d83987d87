// What the history tests share: a store location on each database, and runs built by hand.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "history/history.h"
#include "support/postgres_server.h"

namespace perfgate::testing {

// A fresh, empty history on `database` ("sqlite" or "postgresql"); skips the test when the
// PostgreSQL test server cannot run here.
inline std::string fresh_history(const std::string& database, const std::string& dir) {
  if (database == "sqlite") return dir + "/history.db";
  PostgresServer& server = PostgresServer::shared();
  if (!server.available()) return "";
  return server.create_database();
}

// Skips the test when PostgreSQL is not installed; fails it when the server did not start.
#define PERFGATE_SKIP_WITHOUT_POSTGRES(location)                                            \
  if ((location).empty()) {                                                                 \
    if (PostgresServer::shared().installed()) FAIL() << PostgresServer::shared().why_not(); \
    GTEST_SKIP() << PostgresServer::shared().why_not();                                     \
  }

// Every field of a run set, with awkward values: long names, quotes, '?', non-ASCII text, a
// metric without a value, doubles that need all 17 digits.
HistoryRun sample_run(const std::string& branch, const std::string& gpu, int gpus = 1);

// Compares every field; ids and times too.
void expect_same_run(const HistoryRun& got, const HistoryRun& want, bool with_tables = true);

}  // namespace perfgate::testing
