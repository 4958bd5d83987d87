// The history store on either database: a run written as rows of the normalised tables in one
// transaction, and read back by branch, hardware and recency on one snapshot.
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "history/connections.h"
#include "history/schema.h"
#include "history/store.h"
#include "perfgate/errors.h"
#include "perfgate/history.h"

namespace perfgate::history {
namespace {

// The runs a query selects, newest first: a subquery every read below repeats, so that each table
// is read in one statement.
struct Selection {
  std::string sql;
  std::vector<SqlValue> params;
};

Selection selection_of(const HistoryQuery& q) {
  Selection s{"SELECT id FROM runs WHERE 1 = 1", {}};
  if (!q.branch.empty()) {
    s.sql += " AND branch = ?";
    s.params.emplace_back(q.branch);
  }
  if (!q.gpu_names.empty() || q.without_gpus) {
    s.sql += " AND gpu_names = ?";
    s.params.emplace_back(gpu_key(q.gpu_names));
  }
  s.sql += " ORDER BY id DESC";
  if (q.last > 0) {
    s.sql += " LIMIT ?";
    s.params.emplace_back(static_cast<std::int64_t>(q.last));
  }
  return s;
}

class SqlHistoryStore final : public HistoryStore {
 public:
  SqlHistoryStore(std::unique_ptr<SqlConnection> db, std::string description)
      : db_(std::move(db)), description_(std::move(description)) {}

  std::int64_t record(const HistoryRun& run) override {
    std::int64_t id = 0;
    db_->write_transaction([&] { id = insert_run(run); });
    return id;
  }

  std::vector<HistoryRun> runs(const HistoryQuery& query) override {
    std::vector<HistoryRun> runs;
    db_->read_transaction([&] { runs = read_runs(query); });
    return runs;
  }

  std::string describe() const override { return description_; }

 private:
  std::int64_t insert_run(const HistoryRun& run) {
    std::vector<std::string> names;
    for (const HistoryGpu& g : run.gpus) names.push_back(g.name);
    std::vector<SqlRow> inserted = db_->query(
        "INSERT INTO runs (time, branch, commit_sha, tool_version, gpu_names) VALUES (?, ?, ?, ?, ?) "
        "RETURNING id",
        {run.time, run.labels.branch, run.labels.commit, run.data.info.tool_version, gpu_key(names)});
    std::int64_t id = as_integer(inserted.at(0).at(0));
    std::vector<SqlRow> rows;
    auto insert = [&](std::string_view table, const std::vector<std::string_view>& columns) {
      db_->insert_rows(table, columns, rows);
      rows.clear();
    };
    for (const auto& [key, value] : run.labels.labels) rows.push_back({id, key, value});
    insert("run_labels", {"run_id", "key", "value"});
    for (const HistoryGpu& g : run.gpus) rows.push_back({id, g.name, std::int64_t{g.count}});
    insert("run_gpus", {"run_id", "name", "count"});
    const auto& inputs = run.data.info.inputs;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      rows.push_back({id, std::int64_t(i), inputs[i].path, inputs[i].worker, format_name(inputs[i].format),
                      static_cast<std::int64_t>(inputs[i].bytes)});
    insert("run_inputs", {"run_id", "position", "path", "worker", "format", "bytes"});
    for (const auto& [name, value] : run.data.metrics)
      rows.push_back({id, name, value ? SqlValue(*value) : SqlValue()});
    insert("run_metrics", {"run_id", "name", "value"});
    const auto& steps = run.data.step_durations_us;
    for (std::size_t i = 0; i < steps.size(); ++i) rows.push_back({id, std::int64_t(i), steps[i]});
    insert("run_steps", {"run_id", "position", "duration_us"});
    for (std::size_t i = 0; i < run.data.ops.size(); ++i) {
      const BaselineRow& op = run.data.ops[i];
      rows.push_back({id, std::int64_t(i), op.name, op.gpu_us, op.cpu_us, op.calls});
    }
    insert("run_ops", {"run_id", "position", "name", "gpu_us", "cpu_us", "calls"});
    for (std::size_t i = 0; i < run.data.kernels.size(); ++i) {
      const BaselineRow& k = run.data.kernels[i];
      rows.push_back({id, std::int64_t(i), k.name, k.gpu_us, k.calls});
    }
    insert("run_kernels", {"run_id", "position", "name", "gpu_us", "calls"});
    return id;
  }

  // The rows of `columns` of `table` for the selected runs, by run and then `order`.
  std::vector<SqlRow> rows_of(const Selection& s, std::string_view table, std::string_view columns,
                              std::string_view order) {
    return db_->query(fmt::format("SELECT run_id, {} FROM {} WHERE run_id IN ({}) ORDER BY run_id, {}",
                                  columns, table, s.sql, order),
                      s.params);
  }

  std::vector<HistoryRun> read_runs(const HistoryQuery& query) {
    Selection s = selection_of(query);
    std::vector<HistoryRun> runs;
    std::map<std::int64_t, HistoryRun*> by_id;
    std::vector<SqlRow> run_rows = db_->query(
        fmt::format(
            "SELECT id, time, branch, commit_sha, tool_version FROM runs WHERE id IN ({}) ORDER BY id",
            s.sql),
        s.params);
    runs.resize(run_rows.size());
    for (std::size_t i = 0; i < run_rows.size(); ++i) {
      const SqlRow& r = run_rows[i];
      HistoryRun& run = runs[i];
      run.id = as_integer(r[0]);
      run.time = as_text(r[1]);
      run.labels.branch = as_text(r[2]);
      run.labels.commit = as_text(r[3]);
      run.data.info.kind = "history";
      run.data.info.tool_version = as_text(r[4]);
      by_id[run.id] = &run;
    }
    auto each = [&](std::string_view table, std::string_view columns, std::string_view order, auto&& add) {
      for (const SqlRow& r : rows_of(s, table, columns, order))
        if (auto it = by_id.find(as_integer(r[0])); it != by_id.end()) add(*it->second, r);
    };
    each("run_labels", "key, value", "key", [](HistoryRun& run, const SqlRow& r) {
      run.labels.labels.emplace_back(as_text(r[1]), as_text(r[2]));
    });
    each("run_gpus", "name, count", "name", [](HistoryRun& run, const SqlRow& r) {
      run.gpus.push_back({as_text(r[1]), static_cast<int>(as_integer(r[2]))});
    });
    each("run_metrics", "name, value", "name", [](HistoryRun& run, const SqlRow& r) {
      run.data.metrics.emplace_back(as_text(r[1]), as_optional_real(r[2]));
    });
    if (query.with_tables) read_tables(each);
    for (HistoryRun& run : runs) finish(run);
    return runs;
  }

  template <typename Each>
  void read_tables(Each& each) {
    each("run_inputs", "path, worker, format, bytes", "position", [](HistoryRun& run, const SqlRow& r) {
      run.data.info.inputs.push_back({as_text(r[1]),
                                      static_cast<std::uint64_t>(as_integer(r[4])),
                                      input_format_named(as_text(r[3])),
                                      as_text(r[2]),
                                      {}});
    });
    each("run_steps", "duration_us", "position",
         [](HistoryRun& run, const SqlRow& r) { run.data.step_durations_us.push_back(as_real(r[1])); });
    each("run_ops", "name, gpu_us, cpu_us, calls", "position", [](HistoryRun& run, const SqlRow& r) {
      run.data.ops.push_back({as_text(r[1]), as_real(r[2]), as_real(r[3]), as_real(r[4])});
    });
    each("run_kernels", "name, gpu_us, calls", "position", [](HistoryRun& run, const SqlRow& r) {
      run.data.kernels.push_back({as_text(r[1]), as_real(r[2]), 0, as_real(r[3])});
    });
  }

  // Orders what text collation ordered (PostgreSQL's depends on the database's locale) by bytes,
  // and fills the baseline's description from the run.
  static void finish(HistoryRun& run) {
    auto by_first = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::sort(run.labels.labels.begin(), run.labels.labels.end(), by_first);
    std::sort(run.data.metrics.begin(), run.data.metrics.end(), by_first);
    std::sort(run.gpus.begin(), run.gpus.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (const HistoryGpu& g : run.gpus) {
      run.data.info.gpu_names.push_back(g.name);
      run.data.gpu_counts.emplace_back(g.name, g.count);
    }
    run.data.info.steps = run.data.step_durations_us.size();
  }

  std::unique_ptr<SqlConnection> db_;
  std::string description_;
};

bool ends_with_db(const std::string& path) {
  return path.size() > 3 && path.ends_with(".db");
}

}  // namespace

std::string gpu_key(const std::vector<std::string>& sorted_names) {
  return fmt::format("{}", fmt::join(sorted_names, ", "));
}

InputFormat input_format_named(std::string_view name) {
  for (InputFormat f : {InputFormat::KinetoJson, InputFormat::KinetoJsonGzip, InputFormat::NsysSqlite})
    if (name == format_name(f)) return f;
  return InputFormat::Unknown;
}

std::unique_ptr<HistoryStore> open_store(std::unique_ptr<SqlConnection> db,
                                         const std::vector<Migration>& migrations, std::string description) {
  migrate(*db, migrations);
  return std::make_unique<SqlHistoryStore>(std::move(db), std::move(description));
}

}  // namespace perfgate::history

namespace perfgate {

bool is_postgres_uri(const std::string& location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

bool is_history_location(const std::string& location) {
  if (is_postgres_uri(location)) return true;
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(location, ec);
  if (!std::filesystem::exists(status)) return history::ends_with_db(location);
  if (!std::filesystem::is_regular_file(status)) return false;
  if (std::filesystem::file_size(location, ec) == 0) return history::ends_with_db(location);
  return history::sqlite_file_has_history(location);
}

std::string describe_history_location(const std::string& location) {
  if (!is_postgres_uri(location)) return location;
  std::size_t scheme_end = location.find("://") + 3;
  std::string_view rest = std::string_view(location).substr(scheme_end);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  std::string_view path = rest.substr(authority.size());
  path = path.substr(0, path.find_first_of("?#"));  // parameters may carry password=...
  std::string described = location.substr(0, scheme_end);
  if (std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view user = authority.substr(0, at);
    described += std::string(user.substr(0, user.find(':'))) + "@";
    authority = authority.substr(at + 1);
  }
  return described + std::string(authority) + std::string(path);
}

std::unique_ptr<HistoryStore> open_history(const std::string& location, bool create) {
  const auto& migrations = history::history_migrations();
  if (is_postgres_uri(location))
    return history::open_store(history::open_postgres(location), migrations,
                               describe_history_location(location));
  return history::open_store(history::open_sqlite(location, create), migrations, location);
}

}  // namespace perfgate
