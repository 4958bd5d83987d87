// The history store on either database: a run written as rows of the normalised tables in one
// transaction, and read back by branch, hardware and recency on one snapshot.
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "baseline/baseline_checks.h"
#include "common/errors.h"
#include "history/connections.h"
#include "history/history.h"
#include "history/schema.h"
#include "history/store.h"

namespace perfgate::history {
namespace {

// More GPUs of one name than any run has: a count beyond it was not recorded by perfgate.
constexpr std::int64_t kMaxGpuCount = 1000000;

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

// The runs.families column: the names of the families in the order of DeviceFamily, joined by ", "
// ("gpu, neuron"); none known is NULL.
SqlValue families_value(const DeviceFamilies& families) {
  std::vector<std::string_view> names;
  for (DeviceFamily f : families.list()) names.push_back(device_family_name(f));
  return names.empty() ? SqlValue() : SqlValue(fmt::format("{}", fmt::join(names, ", ")));
}

// The families of a runs.families value: NULL, or a name this perfgate does not know, adds none.
DeviceFamilies families_of(const SqlValue& value) {
  DeviceFamilies families;
  if (std::holds_alternative<std::monostate>(value)) return families;
  std::string text = as_text(value);
  for (std::size_t from = 0; from <= text.size();) {
    std::size_t comma = std::min(text.find(", ", from), text.size());
    if (std::optional<DeviceFamily> f =
            device_family_named(std::string_view(text).substr(from, comma - from)))
      families.add(*f);
    from = comma + 2;
  }
  return families;
}

// A name in a message: long ones (kernel names run to kilobytes) cut.
std::string shortened(const std::string& name) {
  return name.size() <= 80 ? name : name.substr(0, 77) + "...";
}

// The values of a row read back, each converted with its table and column named when it does
// not convert (a store changed by hand).
struct Cells {
  std::string_view table;
  std::string_view columns;  // after run_id: "name, count"
  const SqlRow& row;

  template <typename Convert>
  auto converted(std::size_t i, Convert to) const {
    try {
      return to(row.at(i));
    } catch (const ValueError& e) {
      throw ValueError(fmt::format("{}.{} of run {} is {}", table, column(i), as_text(row.at(0)), e.what()));
    }
  }
  std::string_view column(std::size_t i) const {
    if (i == 0) return table == "runs" ? "id" : "run_id";
    std::string_view rest = columns;
    for (std::size_t skip = 1; skip < i; ++skip)
      rest = rest.substr(std::min(rest.size(), rest.find(", ") + 2));
    return rest.substr(0, rest.find(','));
  }
  std::int64_t integer(std::size_t i) const { return converted(i, as_integer); }
  double real(std::size_t i) const { return converted(i, as_real); }
  std::optional<double> optional_real(std::size_t i) const { return converted(i, as_optional_real); }
  std::string text(std::size_t i) const { return as_text(row.at(i)); }
};

// The checks a JSON baseline's values pass (baseline/baseline_checks.h), and the counts a GPU
// and an input can have.
void check_values(const HistoryRun& run) {
  auto refuse = [&](const std::string& problem) {
    if (!problem.empty()) throw ValueError(fmt::format("run {}: {}", run.id, problem));
  };
  for (std::size_t i = 0; i < kMetricCount; ++i)
    if (std::optional<double> value = run.data.metrics.at(i))
      refuse(metric_value_problem(std::string(metric_name(static_cast<Metric>(i))), *value));
  const std::vector<double>& steps = run.data.step_durations_us;
  for (std::size_t i = 0; i < steps.size(); ++i) refuse(step_duration_problem(i + 1, steps[i]));
  if (const auto& inferred = run.data.inferred_iterations)
    for (std::size_t i = 0; i < inferred->units_us.size(); ++i)
      if (double us = inferred->units_us[i]; !(us >= 0 && us <= kMaxStepUs))  // NaN too
        refuse(fmt::format("inferred unit {} has a duration of {} us: it must be between 0 and 30 days",
                           i + 1, us));
  if (const auto& path = run.data.path_profile) {
    if (!(path->steps > 0 && path->steps <= kMaxMetric))
      refuse(fmt::format("the critical path sums {} steps: it must be positive", path->steps));
    refuse(measurement_problem("the critical path's length a step", path->length_us_per_step));
    if (path->length_us_per_step < 0)
      refuse(fmt::format("the critical path's length a step is {} us", path->length_us_per_step));
    for (const PathOp& op : path->ops) {
      std::string what = fmt::format("critical-path op '{}' ({}) us_per_step", shortened(op.name), op.bound);
      refuse(measurement_problem(what, op.us_per_step));
      if (op.us_per_step < 0) refuse(fmt::format("{} is {}: it must not be negative", what, op.us_per_step));
    }
  }
  for (const auto& [kind, rows] : {std::pair{"op", &run.data.ops}, std::pair{"kernel", &run.data.kernels}})
    for (const BaselineRow& r : *rows)
      for (const auto& [column, value] :
           {std::pair{"gpu_us", r.gpu_us}, {"cpu_us", r.cpu_us}, {"calls", r.calls}})
        refuse(measurement_problem(fmt::format("{} '{}' {}", kind, shortened(r.name), column), value));
}

class SqlHistoryStore final : public HistoryStore {
 public:
  // `version`: the store's schema version; 0 for a database without perfgate's tables, which
  // only a reader keeps (it has no runs).
  SqlHistoryStore(std::unique_ptr<SqlConnection> db, std::string description, std::int64_t version,
                  HistoryAccess access)
      : db_(std::move(db)), description_(std::move(description)), version_(version), access_(access) {}

  std::int64_t record(const HistoryRun& run) override {
    if (access_ == HistoryAccess::Read)
      throw std::logic_error("a history opened for reading records nothing");
    std::int64_t id = 0;
    db_->write_transaction([&] { id = insert_run(run); });
    return id;
  }

  std::vector<HistoryRun> runs(const HistoryQuery& query) override {
    std::vector<HistoryRun> runs;
    if (version_ == 0) return runs;
    try {
      db_->read_transaction([&] { runs = read_runs(query); });
    } catch (const ValueError& e) {
      throw InputError(fmt::format("{}: not a usable perfgate history: {}", description_, e.what()));
    }
    return runs;
  }

  std::string describe() const override { return description_; }

 private:
  std::int64_t insert_run(const HistoryRun& run) {
    std::vector<std::string> names;
    for (const HistoryGpu& g : run.gpus) names.push_back(g.name);
    std::vector<std::string_view> run_columns = {"time", "branch", "commit_sha", "tool_version", "gpu_names"};
    std::vector<SqlValue> values = {run.time, run.labels.branch, run.labels.commit,
                                    run.data.info.tool_version, gpu_key(names)};
    if (with_families()) {
      run_columns.push_back("families");
      values.push_back(families_value(run.data.families));
    }
    std::string marks = "?";
    for (std::size_t c = 1; c < run_columns.size(); ++c) marks += ", ?";
    std::vector<SqlRow> inserted = db_->query(
        fmt::format("INSERT INTO runs ({}) VALUES ({}) RETURNING id", fmt::join(run_columns, ", "), marks),
        values);
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
      rows.push_back({id, std::int64_t(i), inputs[i].path, inputs[i].worker, inputs[i].format,
                      static_cast<std::int64_t>(inputs[i].bytes)});
    insert("run_inputs", {"run_id", "position", "path", "worker", "format", "bytes"});
    for (std::size_t i = 0; i < kMetricCount; ++i) {
      std::optional<double> value = run.data.metrics.at(i);
      rows.push_back(
          {id, std::string(metric_name(static_cast<Metric>(i))), value ? SqlValue(*value) : SqlValue()});
    }
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
    if (with_inferred() && run.data.inferred_iterations) insert_inferred(id, *run.data.inferred_iterations);
    if (with_path_ops() && run.data.path_profile) insert_path(id, *run.data.path_profile);
    return id;
  }

  void insert_path(std::int64_t id, const PathProfile& path) {
    db_->insert_rows("run_critical_path", {"run_id", "steps", "length_us_per_step"},
                     {{id, path.steps, path.length_us_per_step}});
    std::vector<SqlRow> rows;
    for (std::size_t i = 0; i < path.ops.size(); ++i)
      rows.push_back({id, std::int64_t(i), path.ops[i].name, path.ops[i].bound, path.ops[i].us_per_step});
    db_->insert_rows("run_critical_path_ops", {"run_id", "position", "name", "bound", "us_per_step"}, rows);
  }

  // A unit without a name (a report of a perfgate before perfgate-report/2.3) is kept with "".
  void insert_inferred(std::int64_t id, const ReportInferredIterations& inferred) {
    db_->insert_rows("run_inferred", {"run_id", "family", "kind", "key_op"},
                     {{id, inferred.family, inferred.kind, inferred.key_op}});
    bool named = inferred.unit_names.size() == inferred.units_us.size();
    std::vector<SqlRow> rows;
    for (std::size_t i = 0; i < inferred.units_us.size(); ++i)
      rows.push_back(
          {id, std::int64_t(i), named ? inferred.unit_names[i] : std::string(), inferred.units_us[i]});
    db_->insert_rows("run_inferred_units", {"run_id", "position", "name", "duration_us"}, rows);
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
            "SELECT id, time, branch, commit_sha, tool_version{} FROM runs WHERE id IN ({}) ORDER BY id",
            with_families() ? ", families" : "", s.sql),
        s.params);
    runs.resize(run_rows.size());
    for (std::size_t i = 0; i < run_rows.size(); ++i) {
      Cells r{"runs", "time, branch, commit_sha, tool_version", run_rows[i]};
      HistoryRun& run = runs[i];
      run.id = r.integer(0);
      run.time = r.text(1);
      run.labels.branch = r.text(2);
      run.labels.commit = r.text(3);
      run.data.info.kind = "history";
      run.data.info.tool_version = r.text(4);
      if (with_families()) run.data.families = families_of(run_rows[i].at(5));
      by_id[run.id] = &run;
    }
    auto each = [&](std::string_view table, std::string_view columns, std::string_view order, auto&& add) {
      for (const SqlRow& row : rows_of(s, table, columns, order)) {
        Cells r{table, columns, row};
        if (auto it = by_id.find(r.integer(0)); it != by_id.end()) add(*it->second, r);
      }
    };
    each("run_labels", "key, value", "key",
         [](HistoryRun& run, const Cells& r) { run.labels.labels.emplace_back(r.text(1), r.text(2)); });
    each("run_gpus", "name, count", "name", [](HistoryRun& run, const Cells& r) {
      std::int64_t count = r.integer(2);
      if (count < 1 || count > kMaxGpuCount)
        throw ValueError(fmt::format("run {}: GPU '{}' has a count of {}, not between 1 and {}", run.id,
                                     shortened(r.text(1)), count, kMaxGpuCount));
      run.gpus.push_back({r.text(1), static_cast<int>(count)});
    });
    // Names are resolved once, here: a name this build's catalog lacks (another version's) is not kept.
    each("run_metrics", "name, value", "name", [](HistoryRun& run, const Cells& r) {
      if (std::optional<Metric> id = metric_id(r.text(1))) run.data.metrics.set(*id, r.optional_real(2));
    });
    if (query.with_tables) read_tables(each);
    for (HistoryRun& run : runs) {
      finish(run);
      check_values(run);
    }
    return runs;
  }

  template <typename Each>
  void read_tables(Each& each) {
    each("run_inputs", "path, worker, format, bytes", "position", [](HistoryRun& run, const Cells& r) {
      std::int64_t bytes = r.integer(4);
      if (bytes < 0)
        throw ValueError(fmt::format("run {}: input '{}' has {} bytes", run.id, shortened(r.text(1)), bytes));
      run.data.info.inputs.push_back(
          {r.text(1), static_cast<std::uint64_t>(bytes), r.text(3), r.text(2), {}});
    });
    each("run_steps", "duration_us", "position",
         [](HistoryRun& run, const Cells& r) { run.data.step_durations_us.push_back(r.real(1)); });
    each("run_ops", "name, gpu_us, cpu_us, calls", "position", [](HistoryRun& run, const Cells& r) {
      run.data.ops.push_back({r.text(1), r.real(2), r.real(3), r.real(4)});
    });
    each("run_kernels", "name, gpu_us, calls", "position", [](HistoryRun& run, const Cells& r) {
      run.data.kernels.push_back({r.text(1), r.real(2), 0, r.real(3)});
    });
    if (with_path_ops()) read_path(each);
    if (!with_inferred()) return;
    each("run_inferred", "family, kind, key_op", "kind", [](HistoryRun& run, const Cells& r) {
      ReportInferredIterations& i = run.data.inferred_iterations.emplace();
      i.family = r.text(1);
      i.kind = r.text(2);
      i.key_op = r.text(3);
    });
    each("run_inferred_units", "name, duration_us", "position", [](HistoryRun& run, const Cells& r) {
      if (!run.data.inferred_iterations)
        throw ValueError(fmt::format("run {}: inferred units without their run_inferred row", run.id));
      run.data.inferred_iterations->unit_names.push_back(r.text(1));
      run.data.inferred_iterations->units_us.push_back(r.real(2));
    });
  }

  template <typename Each>
  void read_path(Each& each) {
    each("run_critical_path", "steps, length_us_per_step", "run_id", [](HistoryRun& run, const Cells& r) {
      run.data.path_profile = PathProfile{r.real(1), r.real(2), {}};
    });
    each("run_critical_path_ops", "name, bound, us_per_step", "position",
         [](HistoryRun& run, const Cells& r) {
           if (!run.data.path_profile)
             throw ValueError(
                 fmt::format("run {}: critical-path ops without their run_critical_path row", run.id));
           run.data.path_profile->ops.push_back({r.text(1), r.text(2), r.real(3)});
         });
  }

  // Orders what text collation ordered (PostgreSQL's depends on the database's locale) by bytes,
  // and fills the baseline's description from the run.
  static void finish(HistoryRun& run) {
    if (auto& inferred = run.data.inferred_iterations) {
      // Units recorded without names compare unmatched, as from a report that names none.
      const auto& names = inferred->unit_names;
      if (std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); }))
        inferred->unit_names.clear();
    }
    auto by_first = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::sort(run.labels.labels.begin(), run.labels.labels.end(), by_first);
    std::sort(run.gpus.begin(), run.gpus.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (const HistoryGpu& g : run.gpus) {
      run.data.info.gpu_names.push_back(g.name);
      run.data.gpu_counts.emplace_back(g.name, g.count);
    }
    run.data.info.steps = run.data.step_durations_us.size();
  }

  // Whether the store's runs have a `families` column: an older store, read as it is, has not.
  bool with_families() const { return version_ >= kVersionWithFamilies; }
  bool with_inferred() const { return version_ >= kVersionWithInferred; }
  bool with_path_ops() const { return version_ >= kVersionWithPathOps; }

  std::unique_ptr<SqlConnection> db_;
  std::string description_;
  std::int64_t version_;
  HistoryAccess access_;
};

bool ends_with_db(const std::string& path) {
  return path.size() > 3 && path.ends_with(".db");
}

}  // namespace

std::string gpu_key(const std::vector<std::string>& sorted_names) {
  return fmt::format("{}", fmt::join(sorted_names, ", "));
}

std::unique_ptr<HistoryStore> open_store(std::unique_ptr<SqlConnection> db,
                                         const std::vector<Migration>& migrations, std::string description,
                                         HistoryAccess access) {
  std::int64_t version = migrations.empty() ? 0 : migrations.back().version;
  if (access == HistoryAccess::Record) {
    migrate(*db, migrations);
  } else {
    // One snapshot, so that a store another process is migrating is seen before or after.
    db->read_transaction([&] { version = stored_schema_version(*db); });
    refuse_newer(*db, version, migrations);
  }
  return std::make_unique<SqlHistoryStore>(std::move(db), std::move(description), version, access);
}

}  // namespace perfgate::history

namespace perfgate {

bool is_history_location(const std::string& location) {
  if (is_postgres_location(location)) return true;
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(location, ec);
  if (!std::filesystem::exists(status)) return history::ends_with_db(location);
  if (!std::filesystem::is_regular_file(status)) return false;
  switch (history::sqlite_file_kind(location)) {
    case history::SqliteFileKind::History:
      return true;
    case history::SqliteFileKind::NoTables:  // an nsys export always has tables: not a profile
      return history::ends_with_db(location);
    default:
      return false;
  }
}

std::unique_ptr<HistoryStore> open_history(const std::string& location, HistoryAccess access) {
  const auto& migrations = history::history_migrations();
  history::Access connection = access == HistoryAccess::Read ? history::Access::Read : history::Access::Write;
  if (is_postgres_location(location))
    return history::open_store(history::open_postgres(location, connection), migrations,
                               describe_history_location(location), access);
  return history::open_store(history::open_sqlite(location, connection), migrations, location, access);
}

}  // namespace perfgate
