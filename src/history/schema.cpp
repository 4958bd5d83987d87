// Versions 1 to 5 of the history, and the migration machinery. Every table but `runs` hangs off a
// run by run_id; lists keep their order in a `position` column. Since version 2 no unbounded text
// (C++ kernel names run to kilobytes; a branch or label may be anything) is part of a PostgreSQL
// b-tree key, whose size is limited to about 2.7 kB.
#include "history/schema.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "history/history.h"

namespace perfgate::history {
namespace {

constexpr std::string_view kVersionTable = "schema_version";

const std::vector<std::string_view> kHistoryTables = {
    "runs",         "run_labels",         "run_gpus",          "run_inputs",
    "run_metrics",  "run_steps",          "run_ops",           "run_kernels",
    "run_inferred", "run_inferred_units", "run_critical_path", "run_critical_path_ops",
    kVersionTable};

// Version 1: runs with their labels, GPUs, inputs, metrics, window steps, op and kernel totals.
const Migration kVersion1{
    1,
    "runs, labels, GPUs, inputs, metrics, window steps, op and kernel totals",
    {
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, summary TEXT NOT NULL, "
        "applied TEXT NOT NULL)",
        // gpu_names: the run's distinct GPU names, sorted, joined by ", ": what "the same hardware"
        // compares, in one indexed column.
        "CREATE TABLE runs (id {id}, time TEXT NOT NULL, branch TEXT NOT NULL, commit_sha TEXT NOT NULL, "
        "tool_version TEXT NOT NULL, gpu_names TEXT NOT NULL)",
        "CREATE INDEX runs_by_branch ON runs (branch, gpu_names, id)",
        "CREATE TABLE run_labels (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key))",
        "CREATE TABLE run_gpus (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "name TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (run_id, name))",
        "CREATE TABLE run_inputs (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "position INTEGER NOT NULL, path TEXT NOT NULL, worker TEXT NOT NULL, format TEXT NOT NULL, "
        "bytes BIGINT NOT NULL, PRIMARY KEY (run_id, position))",
        "CREATE TABLE run_metrics (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "name TEXT NOT NULL, value DOUBLE PRECISION, PRIMARY KEY (run_id, name))",
        "CREATE INDEX run_metrics_by_name ON run_metrics (name, run_id)",
        "CREATE TABLE run_steps (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "position INTEGER NOT NULL, duration_us DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, position))",
        "CREATE TABLE run_ops (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "position INTEGER NOT NULL, name TEXT NOT NULL, gpu_us DOUBLE PRECISION NOT NULL, "
        "cpu_us DOUBLE PRECISION NOT NULL, calls DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, position))",
        "CREATE TABLE run_kernels (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "position INTEGER NOT NULL, name TEXT NOT NULL, gpu_us DOUBLE PRECISION NOT NULL, "
        "calls DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, position))",
    }};

// Version 2: PostgreSQL keeps what SQLite keeps. Its text columns become bytea (text refuses bytes
// that are not UTF-8 and cuts at a NUL), and no unbounded value is in a b-tree key any more (a key
// is limited to about 2.7 kB): keys hold a SHA-256 of the text, lookups use hash indexes, and the
// values stay in their columns. SQLite's text keeps every byte and its keys have no such limit.
const Migration kVersion2{
    2,
    "PostgreSQL: text as bytea, no unbounded text in a b-tree key",
    {},
    {
        "DROP INDEX runs_by_branch",
        "ALTER TABLE runs ALTER COLUMN branch TYPE BYTEA USING convert_to(branch, 'UTF8'), "
        "ALTER COLUMN commit_sha TYPE BYTEA USING convert_to(commit_sha, 'UTF8'), "
        "ALTER COLUMN tool_version TYPE BYTEA USING convert_to(tool_version, 'UTF8'), "
        "ALTER COLUMN gpu_names TYPE BYTEA USING convert_to(gpu_names, 'UTF8')",
        "CREATE INDEX runs_by_branch ON runs USING HASH (branch)",
        "CREATE INDEX runs_by_gpu_names ON runs USING HASH (gpu_names)",
        "ALTER TABLE run_labels DROP CONSTRAINT run_labels_pkey, "
        "ALTER COLUMN key TYPE BYTEA USING convert_to(key, 'UTF8'), "
        "ALTER COLUMN value TYPE BYTEA USING convert_to(value, 'UTF8')",
        "CREATE UNIQUE INDEX run_labels_key ON run_labels (run_id, sha256(key))",
        "ALTER TABLE run_gpus DROP CONSTRAINT run_gpus_pkey, "
        "ALTER COLUMN name TYPE BYTEA USING convert_to(name, 'UTF8')",
        "CREATE UNIQUE INDEX run_gpus_name ON run_gpus (run_id, sha256(name))",
        "ALTER TABLE run_inputs ALTER COLUMN path TYPE BYTEA USING convert_to(path, 'UTF8'), "
        "ALTER COLUMN worker TYPE BYTEA USING convert_to(worker, 'UTF8'), "
        "ALTER COLUMN format TYPE BYTEA USING convert_to(format, 'UTF8')",
        "DROP INDEX run_metrics_by_name",
        "ALTER TABLE run_metrics DROP CONSTRAINT run_metrics_pkey, "
        "ALTER COLUMN name TYPE BYTEA USING convert_to(name, 'UTF8')",
        "CREATE UNIQUE INDEX run_metrics_name ON run_metrics (run_id, sha256(name))",
        "CREATE INDEX run_metrics_by_name ON run_metrics USING HASH (name)",
        "ALTER TABLE run_ops ALTER COLUMN name TYPE BYTEA USING convert_to(name, 'UTF8')",
        "ALTER TABLE run_kernels ALTER COLUMN name TYPE BYTEA USING convert_to(name, 'UTF8')",
    }};

// Version 3: the run's device families, as the report states them ("gpu", "neuron", "cpu-only",
// joined by ", " in that order: "gpu, neuron" for a mixed run). A run recorded before, or imported
// from a report of a perfgate before perfgate-report/2.1, has NULL: its families stay unknown rather
// than be derived here, and the trend tells a Neuron run among them by its neuron.* values, as before
// (trend_builder.cpp). The names are fixed ASCII, so text in both databases.
const Migration kVersion3{
    3,
    "the run's device families",
    {"ALTER TABLE runs ADD COLUMN families TEXT"},
};

// Version 4: the iterations a run inferred where it marks no steps (issue 74, item 4), so that a
// history baseline compares the same units as a JSON one: the family, kind and --key-op of the
// repeating range, and each unit's duration with its identity (the layer or block it repeats), by
// which the gate matches units. A run recorded before has none (its gate abstains: no steps).
// PostgreSQL keeps the names as bytea, as version 2 does every unbounded text.
const Migration kVersion4{
    4,
    "the run's inferred iterations and their units by name",
    {
        "CREATE TABLE run_inferred (run_id BIGINT NOT NULL PRIMARY KEY REFERENCES runs (id) ON DELETE "
        "CASCADE, "
        "family TEXT NOT NULL, kind TEXT NOT NULL, key_op TEXT NOT NULL)",
        "CREATE TABLE run_inferred_units (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
        "position INTEGER NOT NULL, name TEXT NOT NULL, duration_us DOUBLE PRECISION NOT NULL, "
        "PRIMARY KEY (run_id, position))",
    },
    {
        "ALTER TABLE run_inferred ALTER COLUMN family TYPE BYTEA USING convert_to(family, 'UTF8'), "
        "ALTER COLUMN key_op TYPE BYTEA USING convert_to(key_op, 'UTF8')",
        "ALTER TABLE run_inferred_units ALTER COLUMN name TYPE BYTEA USING convert_to(name, 'UTF8')",
    }};

// Version 5: the run's critical path by name (baseline/baseline.h PathProfile), so that a history
// baseline names the ops that grew on the path as a JSON or profile baseline does (issue 74, item 6):
// the paths it sums and their mean length, and each op's (host ops by family) time on the path a
// step with its bound, most first. A run recorded before has none (the finding names no op).
// PostgreSQL keeps the names and bounds (read from a report file: any text) as bytea, as version 2.
const Migration kVersion5{
    5,
    "the run's critical-path ops",
    {
        "CREATE TABLE run_critical_path (run_id BIGINT NOT NULL PRIMARY KEY REFERENCES runs (id) ON "
        "DELETE CASCADE, steps DOUBLE PRECISION NOT NULL, length_us_per_step DOUBLE PRECISION NOT NULL)",
        "CREATE TABLE run_critical_path_ops (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE "
        "CASCADE, position INTEGER NOT NULL, name TEXT NOT NULL, bound TEXT NOT NULL, "
        "us_per_step DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, position))",
    },
    {
        "ALTER TABLE run_critical_path_ops ALTER COLUMN name TYPE BYTEA USING convert_to(name, 'UTF8'), "
        "ALTER COLUMN bound TYPE BYTEA USING convert_to(bound, 'UTF8')",
    }};

// A statement in the connection's dialect. SQLite's AUTOINCREMENT never reuses the id of a
// deleted run, as PostgreSQL's identity never does.
std::string in_dialect(std::string_view statement, Dialect dialect) {
  std::string sql(statement);
  std::string_view id = dialect == Dialect::Sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT"
                                                   : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY";
  if (std::size_t at = sql.find("{id}"); at != std::string::npos) sql.replace(at, 4, id);
  return sql;
}

bool is_history_table(const std::string& name) {
  return std::find(kHistoryTables.begin(), kHistoryTables.end(), name) != kHistoryTables.end();
}

std::int64_t latest_of(const std::vector<Migration>& migrations) {
  return migrations.empty() ? 0 : migrations.back().version;
}

// MAX(version) of schema_version: at least 1 in a store perfgate made.
std::int64_t version_in(SqlConnection& db) {
  SqlValue max = db.query("SELECT MAX(version) FROM schema_version").at(0).at(0);
  std::int64_t version = 0;
  try {
    version = std::holds_alternative<std::monostate>(max) ? 0 : as_integer(max);
  } catch (const ValueError& e) {
    throw InputError(
        fmt::format("{}: not a usable perfgate history: schema_version.version is {}", db.where(), e.what()));
  }
  if (version < 1)
    throw InputError(fmt::format(
        "{}: not a usable perfgate history: its schema_version table names no version (1 or later)",
        db.where()));
  return version;
}

}  // namespace

const std::vector<Migration>& history_migrations() {
  static const std::vector<Migration> list{kVersion1, kVersion2, kVersion3, kVersion4, kVersion5};
  return list;
}

std::int64_t stored_schema_version(SqlConnection& db) {
  std::vector<std::string> tables = db.table_names();
  if (std::find(tables.begin(), tables.end(), kVersionTable) != tables.end()) return version_in(db);
  std::vector<std::string> ours, others;
  for (const std::string& t : tables) (is_history_table(t) ? ours : others).push_back(t);
  if (!ours.empty())
    throw InputError(
        fmt::format("{}: has perfgate's tables ({}) but no schema_version table: not a store "
                    "this perfgate can use",
                    db.where(), fmt::join(ours, ", ")));
  // A PostgreSQL database may be shared with other applications; a SQLite file with other tables
  // is something else, such as an Nsight Systems export, and perfgate must not write into it.
  if (db.dialect() == Dialect::Sqlite && !others.empty())
    throw InputError(
        fmt::format("{}: not a perfgate history: an SQLite database with other tables ({}{})", db.where(),
                    fmt::join(others.begin(), others.begin() + std::min<std::size_t>(others.size(), 5), ", "),
                    others.size() > 5 ? ", ..." : ""));
  return 0;
}

void refuse_newer(const SqlConnection& db, std::int64_t found, const std::vector<Migration>& migrations) {
  if (found > latest_of(migrations))
    throw InputError(fmt::format("{}: written by a newer perfgate (schema {}, this one reads up to {})",
                                 db.where(), found, latest_of(migrations)));
}

std::int64_t migrate(SqlConnection& db, const std::vector<Migration>& migrations) {
  std::int64_t found = stored_schema_version(db);
  refuse_newer(db, found, migrations);
  if (found == latest_of(migrations)) return found;
  db.write_transaction([&] {
    db.lock_schema();
    std::int64_t now = stored_schema_version(db);  // another writer may have migrated meanwhile
    refuse_newer(db, now, migrations);
    for (const Migration& m : migrations) {
      if (m.version <= now) continue;
      for (std::string_view statement : m.statements) db.execute(in_dialect(statement, db.dialect()));
      if (db.dialect() == Dialect::Postgres)
        for (std::string_view statement : m.postgres_only) db.execute(statement);
      db.execute("INSERT INTO schema_version (version, summary, applied) VALUES (?, ?, ?)",
                 {std::int64_t{m.version}, std::string(m.summary), utc_now()});
    }
  });
  return found;
}

}  // namespace perfgate::history
