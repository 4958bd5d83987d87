// The history's schema: an ordered list of migrations, each taking the store from one version to
// the next. Version N is what the first N migrations make; `schema_version` records each applied
// one. A new version is one more entry at the end of the list, never an edit of an old one.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "history/sql_connection.h"

namespace perfgate::history {

struct Migration {
  int version = 0;  // the version this migration makes: its index in the list + 1
  std::string_view summary;
  // SQL for both databases; "{id}" stands for the auto-numbered primary key of each dialect.
  std::vector<std::string_view> statements;
  // SQL for PostgreSQL only, run after `statements`.
  std::vector<std::string_view> postgres_only = {};
};

// The first version whose runs have a `families` column.
inline constexpr std::int64_t kVersionWithFamilies = 3;
// The first version that keeps a run's inferred iterations (run_inferred, run_inferred_units).
inline constexpr std::int64_t kVersionWithInferred = 4;
// The first version that keeps a run's critical path by name (run_critical_path, run_critical_path_ops).
inline constexpr std::int64_t kVersionWithPathOps = 5;

// perfgate's migrations, oldest first.
const std::vector<Migration>& history_migrations();

// The version the store is at (a 64-bit integer, as stored): 0 for a database without perfgate's
// tables. Throws InputError when the database holds other tables (a SQLite file that is something
// else, such as a profile), or perfgate's tables without a usable version.
std::int64_t stored_schema_version(SqlConnection& db);

// Throws InputError "written by a newer perfgate" when `found` is later than the last of
// `migrations`.
void refuse_newer(const SqlConnection& db, std::int64_t found, const std::vector<Migration>& migrations);

// Brings the store to the last version of `migrations`, in one write transaction, serialised with
// other connections doing the same. A store at a later version than `migrations` knows is refused
// (refuse_newer); an older one is migrated. Returns the version found.
std::int64_t migrate(SqlConnection& db, const std::vector<Migration>& migrations);

}  // namespace perfgate::history
