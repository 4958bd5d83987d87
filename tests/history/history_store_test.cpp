// The history store on SQLite and on PostgreSQL alike: every field of a run read back as written,
// queries by branch, hardware and recency, migrations (a newer store refused, an older one
// migrated in one transaction, a failed migration leaving nothing behind).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "history/connections.h"
#include "history/history_test_support.h"
#include "history/schema.h"
#include "history/store.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

using history::Migration;

// A fresh store on one of the databases, for one scenario.
struct Store {
  std::string database;  // "sqlite" or "postgresql"
  std::string location;

  std::unique_ptr<history::SqlConnection> connect() const {
    return database == "sqlite" ? history::open_sqlite(location, history::Access::Write)
                                : history::open_postgres(location, history::Access::Write);
  }

  std::vector<std::int64_t> ids(const HistoryQuery& q) const {
    std::vector<std::int64_t> out;
    for (const HistoryRun& r : open_history(location, HistoryAccess::Read)->runs(q)) out.push_back(r.id);
    return out;
  }
};

void every_field_of_a_run_reads_back_as_written(const Store& s) {
  auto store = open_history(s.location, HistoryAccess::Record);
  HistoryRun first = sample_run("main", "NVIDIA A100-SXM4-40GB", 8);
  HistoryRun second = sample_run("feature/x", "NVIDIA H100 80GB HBM3", 2);
  second.labels.labels = {};
  second.data.metrics.set(Metric::StepsMedianUs, std::nullopt);
  second.data.ops.clear();
  first.id = store->record(first);
  second.id = store->record(second);
  EXPECT_EQ(first.id, 1);
  EXPECT_EQ(second.id, 2);

  std::vector<HistoryRun> runs = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(runs.size(), 2u);
  expect_same_run(runs[0], first);
  expect_same_run(runs[1], second);

  HistoryQuery light;
  light.with_tables = false;
  runs = store->runs(light);
  ASSERT_EQ(runs.size(), 2u);
  expect_same_run(runs[0], first, false);
}

void an_analysed_report_is_kept_as_its_baseline(const Store& s) {
  TrainingRun training;
  training.extra_us = {0, 7, 3, 9, 1, 5, 8, 2};
  training.data_parallel = true;  // two GPUs of one name
  ReportModel report = report_of_json(training_trace(training), default_book());
  HistoryRun run = history_run_of(report, {"main", "abc", {{"k", "v"}}}, "2026-11-22T10:38:11Z");
  ASSERT_EQ(run.gpus.size(), 1u);
  EXPECT_EQ(run.gpus[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(run.gpus[0].count, 2);
  run.id = open_history(s.location, HistoryAccess::Record)->record(run);

  std::vector<HistoryRun> runs = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(runs.size(), 1u);
  expect_same_run(runs[0], run);
  Baseline direct = baseline_from_report(report, "", "report");
  EXPECT_EQ(runs[0].data.step_durations_us, direct.step_durations_us);
  EXPECT_EQ(runs[0].data.step_durations_us.size(), 8u);
  EXPECT_EQ(runs[0].data.metric(Metric::StepsMedianUs), direct.metric(Metric::StepsMedianUs));
  EXPECT_EQ(runs[0].data.ops.size(), direct.ops.size());
  EXPECT_EQ(runs[0].data.kernels.size(), direct.kernels.size());
  EXPECT_EQ(runs[0].data.info.inputs.size(), 1u);
}

void queries_select_by_branch_hardware_and_recency(const Store& s) {
  auto store = open_history(s.location, HistoryAccess::Record);
  const std::string a100 = "NVIDIA A100-SXM4-40GB", h100 = "NVIDIA H100 80GB HBM3";
  store->record(sample_run("main", a100));     // 1
  store->record(sample_run("feature", a100));  // 2
  store->record(sample_run("main", h100));     // 3
  store->record(sample_run("main", a100));     // 4
  HistoryRun cpu_only = sample_run("main", a100);
  cpu_only.gpus.clear();
  store->record(cpu_only);                  // 5
  store->record(sample_run("main", a100));  // 6

  EXPECT_EQ(s.ids({}), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(s.ids({"main", {}, false, 0, false}), (std::vector<std::int64_t>{1, 3, 4, 5, 6}));
  EXPECT_EQ(s.ids({"main", {a100}, false, 0, true}), (std::vector<std::int64_t>{1, 4, 6}));
  EXPECT_EQ(s.ids({"main", {a100}, false, 2, true}),
            (std::vector<std::int64_t>{4, 6}));  // the last 2, oldest first
  EXPECT_EQ(s.ids({"", {a100}, false, 0, true}), (std::vector<std::int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(s.ids({"main", {h100}, false, 5, true}), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(s.ids({"main", {}, true, 0, true}), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(s.ids({"", {}, false, 3, false}), (std::vector<std::int64_t>{4, 5, 6}));
  EXPECT_TRUE(s.ids({"release", {}, false, 0, true}).empty());
  EXPECT_TRUE(s.ids({"main", {a100, h100}, false, 0, true}).empty());
}

// The version this perfgate writes: the last of its migrations.
std::int64_t latest() {
  return history::history_migrations().back().version;
}

void a_store_of_a_newer_schema_is_refused(const Store& s) {
  open_history(s.location, HistoryAccess::Record)->record(sample_run("main", "A"));
  s.connect()->execute(
      "INSERT INTO schema_version (version, summary, applied) VALUES (99, 'future', 'then')");
  try {
    open_history(s.location, HistoryAccess::Read);
    FAIL() << "a store of schema 99 was opened";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{}: written by a newer perfgate (schema 99, this one reads up to {})",
                          describe_history_location(s.location), latest()));
  }
  EXPECT_THROW(open_history(s.location, HistoryAccess::Record), InputError);
}

// The migration machinery with a next version made for the test: a store of this perfgate is
// migrated, keeps its runs, and is then too new for this perfgate.
void an_older_store_is_migrated_and_keeps_its_runs(const Store& s) {
  std::vector<Migration> now = history::history_migrations();
  history::open_store(s.connect(), now, s.location, HistoryAccess::Record)->record(sample_run("main", "A"));
  std::vector<Migration> next = now;
  next.push_back({static_cast<int>(latest() + 1),
                  "run notes",
                  {"ALTER TABLE runs ADD COLUMN note TEXT", "CREATE TABLE run_notes (run_id BIGINT)"}});

  auto store = history::open_store(s.connect(), next, s.location, HistoryAccess::Record);
  auto db = s.connect();
  EXPECT_EQ(history::stored_schema_version(*db), latest() + 1);
  EXPECT_EQ(history::as_integer(db->query("SELECT COUNT(*) FROM schema_version").front().front()),
            latest() + 1)
      << "one row per applied migration";
  EXPECT_EQ(history::as_integer(db->query("SELECT COUNT(note) + COUNT(*) FROM runs").front().front()), 1);
  ASSERT_EQ(store->runs({}).size(), 1u);
  EXPECT_EQ(store->runs({}).front().labels.branch, "main");
  EXPECT_THROW(history::open_store(s.connect(), now, s.location, HistoryAccess::Record), InputError);
}

// A migration runs in one transaction: one that fails half-way leaves the store as it was.
void a_failed_migration_leaves_the_store_as_it_was(const Store& s) {
  std::vector<Migration> now = history::history_migrations();
  history::open_store(s.connect(), now, s.location, HistoryAccess::Record);
  std::vector<Migration> broken = now;
  broken.push_back({static_cast<int>(latest() + 1),
                    "broken",
                    {"CREATE TABLE half_done (x INTEGER)", "SELECT no_such_column FROM runs"}});
  EXPECT_THROW(history::open_store(s.connect(), broken, s.location, HistoryAccess::Record), InputError);
  auto db = s.connect();
  EXPECT_EQ(history::stored_schema_version(*db), latest());
  std::vector<std::string> tables = db->table_names();
  EXPECT_EQ(std::count(tables.begin(), tables.end(), "half_done"), 0);
  EXPECT_EQ(std::count(tables.begin(), tables.end(), "runs"), 1);
}

// Older than version 1 is a database without perfgate's tables: migrated from nothing.
void an_empty_database_is_migrated_from_version_zero(const Store& s) {
  auto db = s.connect();
  EXPECT_EQ(history::stored_schema_version(*db), 0);
  EXPECT_EQ(history::migrate(*db, history::history_migrations()), 0);
  EXPECT_EQ(history::stored_schema_version(*db), latest());
  EXPECT_EQ(history::migrate(*db, history::history_migrations()), latest());
  for (const char* table : {"runs", "run_labels", "run_gpus", "run_inputs", "run_metrics", "run_steps",
                            "run_ops", "run_kernels"}) {
    std::vector<std::string> tables = db->table_names();
    EXPECT_EQ(std::count(tables.begin(), tables.end(), table), 1) << table;
  }
}

// A run whose strings a store must keep byte for byte (issue #28, item 9): 10 kB (past
// PostgreSQL's b-tree key limit of about 2.7 kB) in every column that was a key, bytes that are
// not UTF-8, and embedded NUL bytes. Metric names are not among them: a run holds the catalog's
// metrics by id, and the store writes their catalog names.
std::vector<HistoryRun> runs_with_odd_strings() {
  const std::string long_text(10 * 1024, 'x'),
      invalid(
          "br\xff\xfe"
          "anch\xc3"),
      nul("a\0b", 3);
  HistoryRun long_run = sample_run(long_text + "-branch", long_text + "-gpu");
  long_run.labels.commit = long_text;
  long_run.labels.labels = {{long_text + "-key", long_text + "-value"}};
  HistoryRun invalid_run = sample_run(invalid, invalid + "gpu");
  invalid_run.labels.commit = invalid;
  invalid_run.labels.labels = {{invalid, invalid}};
  invalid_run.data.info.tool_version = invalid;
  invalid_run.data.info.inputs[0].path = invalid;
  invalid_run.data.ops[0].name = invalid;
  invalid_run.data.kernels[0].name = invalid;
  HistoryRun nul_run = sample_run(nul, nul + "gpu");
  nul_run.labels.commit = nul;
  nul_run.labels.labels = {{nul, nul}, {nul + "2", ""}};
  nul_run.data.info.inputs[1].worker = nul;
  nul_run.data.ops[1].name = nul;
  nul_run.data.kernels[1].name = nul;
  return {long_run, invalid_run, nul_run};
}

void odd_strings_read_back_exactly(const Store& s) {
  auto store = open_history(s.location, HistoryAccess::Record);
  std::vector<HistoryRun> written = runs_with_odd_strings();
  for (HistoryRun& run : written) run.id = store->record(run);
  std::vector<HistoryRun> read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), written.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same_run(read[i], written[i]);
    // Selected by its branch and GPU names, as a gate selects.
    EXPECT_EQ(s.ids({written[i].labels.branch, {written[i].gpus[0].name}, false, 0, false}),
              std::vector<std::int64_t>{written[i].id});
  }
}

// A store of version 1 (before PostgreSQL kept any bytes) is read as it is, without being
// migrated; the next run recorded migrates it, and its runs stay as they were.
void a_version_one_store_is_read_as_is_and_migrated_by_a_writer(const Store& s) {
  std::vector<Migration> v1(history::history_migrations().begin(), history::history_migrations().begin() + 1);
  HistoryRun old = sample_run("main", "NVIDIA A100-SXM4-40GB");
  old.id = history::open_store(s.connect(), v1, s.location, HistoryAccess::Record)->record(old);
  old.data.families = {};  // a version 1 store keeps none
  std::vector<HistoryRun> read =
      open_history(s.location, HistoryAccess::Read)->runs({"main", {}, false, 0, true});
  ASSERT_EQ(read.size(), 1u);
  expect_same_run(read[0], old);
  EXPECT_EQ(history::stored_schema_version(*s.connect()), 1) << "reading migrated the store";

  std::vector<HistoryRun> odd = runs_with_odd_strings();
  auto store = open_history(s.location, HistoryAccess::Record);
  EXPECT_EQ(history::stored_schema_version(*s.connect()), latest());
  for (HistoryRun& run : odd) run.id = store->record(run);
  read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 1 + odd.size());
  expect_same_run(read[0], old);
  for (std::size_t i = 0; i < odd.size(); ++i) expect_same_run(read[i + 1], odd[i]);
}

// A metric name this build's catalog lacks (another version recorded it) is read and left out; the
// run's other metrics read as written.
void a_metric_the_catalog_lacks_is_left_out(const Store& s) {
  HistoryRun run = sample_run("main", "A");
  run.id = open_history(s.location, HistoryAccess::Record)->record(run);
  s.connect()->execute(fmt::format(
      "INSERT INTO run_metrics (run_id, name, value) VALUES ({}, 'gpu.retired_metric_pct', 2.5)", run.id));
  std::vector<HistoryRun> read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 1u);
  expect_same_run(read[0], run);
}

// History schema 3: each run keeps the device families its report states, one column of the names
// ("gpu, neuron"); a run whose report states none (imported from an older one) keeps NULL.
void a_run_keeps_its_device_families(const Store& s) {
  auto store = open_history(s.location, HistoryAccess::Record);
  std::vector<HistoryRun> written;
  for (std::vector<DeviceFamily> families : std::vector<std::vector<DeviceFamily>>{
           {DeviceFamily::Neuron}, {DeviceFamily::Gpu, DeviceFamily::Neuron}, {DeviceFamily::CpuOnly}, {}}) {
    HistoryRun run = sample_run("main", "A");
    run.data.families = {};
    for (DeviceFamily f : families) run.data.families.add(f);
    run.id = store->record(run);
    written.push_back(run);
  }
  std::vector<HistoryRun> read =
      open_history(s.location, HistoryAccess::Read)->runs({"", {}, false, 0, false});
  ASSERT_EQ(read.size(), written.size());
  for (std::size_t i = 0; i < read.size(); ++i) expect_same_run(read[i], written[i], false);
  EXPECT_TRUE(read[0].data.families.only(DeviceFamily::Neuron));
  EXPECT_TRUE(read[3].data.families.empty());
  std::vector<history::SqlRow> column = s.connect()->query("SELECT families FROM runs ORDER BY id");
  ASSERT_EQ(column.size(), 4u);
  EXPECT_EQ(history::as_text(column[0][0]), "neuron");
  EXPECT_EQ(history::as_text(column[1][0]), "gpu, neuron");
  EXPECT_EQ(history::as_text(column[2][0]), "cpu-only");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(column[3][0]));
  // A name this perfgate does not know (a later one's) is not kept.
  s.connect()->execute("UPDATE runs SET families = 'tpu, neuron' WHERE id = 1");
  EXPECT_TRUE(open_history(s.location, HistoryAccess::Read)
                  ->runs({})
                  .front()
                  .data.families.only(DeviceFamily::Neuron));
}

// A store of version 2 is read as it is (its runs' families unknown) and migrated by the next
// record: its runs' families stay unknown (NULL; never guessed at the migration), a new run's are
// kept, and the trend tells the old Neuron run by its neuron.* value as before.
void a_version_two_store_migrates_with_its_runs_families_unknown(const Store& s) {
  std::vector<Migration> v2(history::history_migrations().begin(), history::history_migrations().begin() + 2);
  HistoryRun old_neuron = sample_run("main", "A");
  old_neuron.data.families = {};
  old_neuron.data.families.add(DeviceFamily::Neuron);
  old_neuron.data.metrics.set(Metric::NeuronTotalTimeUs, 100);
  old_neuron.id = history::open_store(s.connect(), v2, s.location, HistoryAccess::Record)->record(old_neuron);
  std::vector<HistoryRun> read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 1u);
  EXPECT_TRUE(read[0].data.families.empty());
  EXPECT_EQ(history::stored_schema_version(*s.connect()), 2) << "reading migrated the store";

  HistoryRun new_neuron = old_neuron;  // its report states the family; no neuron.* value
  new_neuron.data.metrics = {};
  new_neuron.id = open_history(s.location, HistoryAccess::Record)->record(new_neuron);
  EXPECT_EQ(history::stored_schema_version(*s.connect()), latest());
  read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 2u);
  EXPECT_TRUE(read[0].data.families.empty());
  EXPECT_TRUE(read[1].data.families.only(DeviceFamily::Neuron));
  EXPECT_EQ(read[0].data.metric(Metric::NeuronTotalTimeUs), 100.0);
  const std::vector<std::string> neuron = {"neuron.total_time_us", "neuron.active_time_pct",
                                           "neuron.spill.save_bytes"};
  EXPECT_EQ(gated_metrics(default_gated_metrics(), read), neuron);
}

// Issue 74, item 4: a run's inferred iterations read back with each unit's identity (schema 4), so
// that a history baseline compares the same units as a JSON one; a unit without a name (a report
// of an older perfgate) reads back unnamed, and names are kept byte for byte.
void a_run_keeps_its_inferred_units_by_name(const Store& s) {
  auto store = open_history(s.location, HistoryAccess::Record);
  HistoryRun named = sample_run("main", "A");
  ReportInferredIterations& i = named.data.inferred_iterations.emplace();
  i.family = "FSDP::post_forward (blocks.#._checkpoint_wrapped_module)";
  i.kind = "op";
  i.key_op = "^FSDP::post_forward \\(blocks\\.[0-9]+";
  i.units_us = {18873.25, 0.1 + 0.2, 21540};
  i.unit_names = {"FSDP::post_forward (blocks.8._checkpoint_wrapped_module)", "blocks.9 \xc3\xa9 '?'",
                  "FSDP::post_forward (blocks.8._checkpoint_wrapped_module) (2)"};
  HistoryRun unnamed = sample_run("main", "A");
  unnamed.data.inferred_iterations = i;
  unnamed.data.inferred_iterations->unit_names.clear();
  HistoryRun none = sample_run("main", "A");
  store->record(named);
  store->record(unnamed);
  store->record(none);
  std::vector<HistoryRun> read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 3u);
  ASSERT_TRUE(read[0].data.inferred_iterations);
  const ReportInferredIterations& got = *read[0].data.inferred_iterations;
  EXPECT_EQ(got.family, i.family);
  EXPECT_EQ(got.kind, "op");
  EXPECT_EQ(got.key_op, i.key_op);
  EXPECT_EQ(got.units_us, i.units_us);
  EXPECT_EQ(got.unit_names, i.unit_names);
  ASSERT_TRUE(read[1].data.inferred_iterations);
  EXPECT_EQ(read[1].data.inferred_iterations->units_us, i.units_us);
  EXPECT_TRUE(read[1].data.inferred_iterations->unit_names.empty());
  EXPECT_FALSE(read[2].data.inferred_iterations);
  // A duration no measurement can have (a store changed by hand) is refused, naming the run.
  s.connect()->execute("UPDATE run_inferred_units SET duration_us = -1 WHERE run_id = 1 AND position = 1");
  try {
    open_history(s.location, HistoryAccess::Read)->runs({});
    ADD_FAILURE() << "a negative unit duration was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("run 1: inferred unit 2 has a duration of -1 us"), std::string::npos)
        << e.what();
  }
}

// A store of version 3 keeps no inferred units: read as it is, and migrated by the next record,
// after which a run's units are kept.
void a_version_three_store_migrates_and_then_keeps_inferred_units(const Store& s) {
  std::vector<Migration> v3(history::history_migrations().begin(), history::history_migrations().begin() + 3);
  HistoryRun run = sample_run("main", "A");
  ReportInferredIterations& i = run.data.inferred_iterations.emplace();
  i.family = "layer.#";
  i.kind = "op";
  i.units_us = {1000, 1040};
  i.unit_names = {"layer.4", "layer.5"};
  history::open_store(s.connect(), v3, s.location, HistoryAccess::Record)->record(run);
  std::vector<HistoryRun> read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 1u);
  EXPECT_FALSE(read[0].data.inferred_iterations);
  EXPECT_EQ(history::stored_schema_version(*s.connect()), 3) << "reading migrated the store";
  open_history(s.location, HistoryAccess::Record)->record(run);
  EXPECT_EQ(history::stored_schema_version(*s.connect()), latest());
  read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 2u);
  EXPECT_FALSE(read[0].data.inferred_iterations);
  ASSERT_TRUE(read[1].data.inferred_iterations);
  EXPECT_EQ(read[1].data.inferred_iterations->unit_names, i.unit_names);
}

// Issue 74, item 6: a run's critical path by name read back as written (schema 5), names byte for
// byte (a kernel past PostgreSQL's key limit, non-ASCII, quotes), so that a history baseline names
// the ops that grew on the path; a run without one reads back without; a value no run can have, or
// ops without their path, is refused naming the run.
void a_run_keeps_its_critical_path_ops(const Store& s) {
  auto store = open_history(s.location, HistoryAccess::Record);
  HistoryRun with_path = sample_run("main", "A");
  std::string long_kernel = "ncclDevKernel_SendRecv(" + std::string(5000, 'x') + ")";
  with_path.data.path_profile =
      PathProfile{16,
                  18760.125,
                  {{long_kernel, "gpu_communication_bound", 1650.5},
                   {"FSDP::pre_forward (blocks.#) \xc3\xa9 '?'", "cpu_bound", 0.1 + 0.2},
                   {"cudaLaunchKernel", "cpu_bound", 0}}};
  HistoryRun without = sample_run("main", "A");
  with_path.id = store->record(with_path);
  without.id = store->record(without);
  std::vector<HistoryRun> read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 2u);
  expect_same_run(read[0], with_path);
  expect_same_run(read[1], without);
  EXPECT_FALSE(read[1].data.path_profile);

  auto refused = [&](const std::string& sql, const std::string& message) {
    s.connect()->execute(sql);
    try {
      open_history(s.location, HistoryAccess::Read)->runs({});
      ADD_FAILURE() << "read after: " << sql;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  refused(
      "UPDATE run_critical_path_ops SET us_per_step = -1 WHERE run_id = 1 AND position = 2",
      "run 1: critical-path op 'cudaLaunchKernel' (cpu_bound) us_per_step is -1: it must not be negative");
  refused("UPDATE run_critical_path SET steps = 0 WHERE run_id = 1",
          "run 1: the critical path sums 0 steps: it must be positive");
  refused("DELETE FROM run_critical_path WHERE run_id = 1",
          "run 1: critical-path ops without their run_critical_path row");
}

// A store of version 4 keeps no critical-path ops: read as it is (the runs without a path by name),
// and migrated by the next record, after which a run's are kept.
void a_version_four_store_migrates_and_then_keeps_path_ops(const Store& s) {
  std::vector<Migration> v4(history::history_migrations().begin(), history::history_migrations().begin() + 4);
  HistoryRun run = sample_run("main", "A");
  run.data.path_profile = PathProfile{8, 1200, {{"aten::cpu_preprocess", "cpu_bound", 1000}}};
  history::open_store(s.connect(), v4, s.location, HistoryAccess::Record)->record(run);
  std::vector<HistoryRun> read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 1u);
  EXPECT_FALSE(read[0].data.path_profile);
  EXPECT_EQ(history::stored_schema_version(*s.connect()), 4) << "reading migrated the store";
  open_history(s.location, HistoryAccess::Record)->record(run);
  EXPECT_EQ(history::stored_schema_version(*s.connect()), latest());
  read = open_history(s.location, HistoryAccess::Read)->runs({});
  ASSERT_EQ(read.size(), 2u);
  EXPECT_FALSE(read[0].data.path_profile);
  ASSERT_TRUE(read[1].data.path_profile);
  EXPECT_EQ(read[1].data.path_profile->ops.size(), 1u);
  EXPECT_EQ(read[1].data.path_profile->ops[0].name, "aten::cpu_preprocess");
}

using Scenario = void (*)(const Store&);
const std::vector<std::pair<std::string, Scenario>> kScenarios = {
    {"EveryFieldOfARunReadsBackAsWritten", every_field_of_a_run_reads_back_as_written},
    {"AnAnalysedReportIsKeptAsItsBaseline", an_analysed_report_is_kept_as_its_baseline},
    {"QueriesSelectByBranchHardwareAndRecency", queries_select_by_branch_hardware_and_recency},
    {"AStoreOfANewerSchemaIsRefused", a_store_of_a_newer_schema_is_refused},
    {"AnOlderStoreIsMigratedAndKeepsItsRuns", an_older_store_is_migrated_and_keeps_its_runs},
    {"AFailedMigrationLeavesTheStoreAsItWas", a_failed_migration_leaves_the_store_as_it_was},
    {"AnEmptyDatabaseIsMigratedFromVersionZero", an_empty_database_is_migrated_from_version_zero},
    {"OddStringsReadBackExactly", odd_strings_read_back_exactly},
    {"AMetricTheCatalogLacksIsLeftOut", a_metric_the_catalog_lacks_is_left_out},
    {"AVersionOneStoreIsReadAsIsAndMigratedByAWriter",
     a_version_one_store_is_read_as_is_and_migrated_by_a_writer},
    {"ARunKeepsItsDeviceFamilies", a_run_keeps_its_device_families},
    {"AVersionTwoStoreMigratesWithItsRunsFamiliesUnknown",
     a_version_two_store_migrates_with_its_runs_families_unknown},
    {"ARunKeepsItsInferredUnitsByName", a_run_keeps_its_inferred_units_by_name},
    {"AVersionThreeStoreMigratesAndThenKeepsInferredUnits",
     a_version_three_store_migrates_and_then_keeps_inferred_units},
    {"ARunKeepsItsCriticalPathOps", a_run_keeps_its_critical_path_ops},
    {"AVersionFourStoreMigratesAndThenKeepsPathOps", a_version_four_store_migrates_and_then_keeps_path_ops},
};

class SqliteHistoryStore : public ::testing::TestWithParam<std::pair<std::string, Scenario>> {};

TEST_P(SqliteHistoryStore, Scenario) {
  GetParam().second(Store{"sqlite", temp_dir() + "/history.db"});
}

INSTANTIATE_TEST_SUITE_P(Scenarios, SqliteHistoryStore, ::testing::ValuesIn(kScenarios),
                         [](const auto& param_info) { return param_info.param.first; });

// Every scenario on PostgreSQL, each on a database of its own, in one process: a test process
// starts its own server, which takes seconds.
TEST(PostgresHistoryStore, EveryScenario) {
  std::string first = fresh_history("postgresql", "");
  PERFGATE_SKIP_WITHOUT_POSTGRES(first);
  for (const auto& [name, scenario] : kScenarios) {
    SCOPED_TRACE(name);
    scenario(Store{"postgresql", PostgresServer::shared().create_database()});
  }
}

}  // namespace
}  // namespace perfgate::testing
