// libFuzzer harness: a run history made from fuzz bytes, opened for reading and read as
// `history list`, as a gate's baseline (pooled and gated against a small run) and as a trend.
// Bytes that start like SQLite are the history file as they are (the seeds are real histories);
// any other bytes fill the tables of a valid, empty history with rows whose values they choose
// (ids, texts, numbers from 0 to NaN and 1e300, NULLs, the schema version), so that the readers
// are reached past SQLite's checks. InputError is the documented outcome; anything else is a bug.
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "analyse/analysis.h"
#include "cli/history_list.h"
#include "common/errors.h"
#include "engine/analyse_profiles.h"
#include "engine/engine.h"
#include "engine/front_end_support.h"
#include "fuzz/fuzz_file.h"
#include "gate/gate.h"
#include "gate/rules.h"
#include "history/history.h"
#include "render/render.h"
#include "report/build_report.h"
#include "report_model/trend.h"

namespace perfgate::fuzz {
namespace {

struct Table {
  const char* name;
  int columns;
  const char* insert;
};

const std::array<Table, 11> kTables = {{
    {"schema_version", 3, "INSERT OR REPLACE INTO schema_version VALUES (?, ?, ?)"},
    {"runs", 7, "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)"},
    {"run_labels", 3, "INSERT OR REPLACE INTO run_labels VALUES (?, ?, ?)"},
    {"run_gpus", 3, "INSERT OR REPLACE INTO run_gpus VALUES (?, ?, ?)"},
    {"run_inputs", 6, "INSERT OR REPLACE INTO run_inputs VALUES (?, ?, ?, ?, ?, ?)"},
    {"run_metrics", 3, "INSERT OR REPLACE INTO run_metrics VALUES (?, ?, ?)"},
    {"run_steps", 3, "INSERT OR REPLACE INTO run_steps VALUES (?, ?, ?)"},
    {"run_ops", 6, "INSERT OR REPLACE INTO run_ops VALUES (?, ?, ?, ?, ?, ?)"},
    {"run_kernels", 5, "INSERT OR REPLACE INTO run_kernels VALUES (?, ?, ?, ?, ?)"},
    {"run_inferred", 4, "INSERT OR REPLACE INTO run_inferred VALUES (?, ?, ?, ?)"},
    {"run_inferred_units", 4, "INSERT OR REPLACE INTO run_inferred_units VALUES (?, ?, ?, ?)"},
}};

// Numbers a tampered store may hold, beside any the bytes spell.
const std::array<double, 14> kNumbers = {0,
                                         -0.0,
                                         1,
                                         -1,
                                         0.5,
                                         1e-300,
                                         1e30,
                                         1.1e30,
                                         1e300,
                                         -1e300,
                                         9000,
                                         1e15,
                                         std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<double>::quiet_NaN()};

// Texts with a meaning to the readers: the gate's branch and GPU, catalog metrics, formats, device
// families, inferred units' kinds and names.
const std::array<const char*, 15> kTexts = {"main",
                                            "NVIDIA A100-SXM4-40GB",
                                            "steps.median_us",
                                            "gpu.utilization_pct",
                                            "kineto-json",
                                            "nsys-sqlite",
                                            "2026-11-22T10:38:11Z",
                                            "tensor_core.kernel_time_pct",
                                            "breakdown.dataloader_pct",
                                            "neuron",
                                            "gpu, cpu-only",
                                            "neuron.total_time_us",
                                            "op",
                                            "layer.1",
                                            ""};

void bind_value(sqlite3_stmt* s, int index, FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
      sqlite3_bind_int64(s, index, in.ConsumeIntegralInRange<std::int64_t>(-1, 4));  // ids, positions, counts
      break;
    case 1:
      sqlite3_bind_int64(s, index, in.ConsumeIntegral<std::int64_t>());
      break;
    case 2:
      sqlite3_bind_double(s, index, in.PickValueInArray(kNumbers));
      break;
    case 3:
      sqlite3_bind_double(s, index, in.ConsumeFloatingPoint<double>());
      break;
    case 4: {
      std::string text = in.ConsumeRandomLengthString(64);
      sqlite3_bind_text64(s, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    }
    case 5:
      sqlite3_bind_text(s, index, in.PickValueInArray(kTexts), -1, SQLITE_STATIC);
      break;
    case 6: {
      std::string bytes = in.ConsumeRandomLengthString(16);
      sqlite3_bind_blob64(s, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
      break;
    }
    default:
      sqlite3_bind_null(s, index);
  }
}

// At most this many rows per input: more add reading time, not paths through the readers.
constexpr int kMaxOperations = 2000;

// Rows (or, now and then, a table dropped or the versions deleted) from the bytes, in one
// transaction; a row SQLite refuses (a NOT NULL column, a mismatched type) is skipped.
void fill(const std::string& path, FuzzedDataProvider& in) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) std::abort();
  sqlite3_exec(db, "PRAGMA synchronous = OFF; BEGIN", nullptr, nullptr, nullptr);
  std::array<sqlite3_stmt*, kTables.size()> inserts{};
  for (int n = 0; n < kMaxOperations && in.remaining_bytes() > 0; ++n) {
    int op = in.ConsumeIntegralInRange(0, 40);
    if (op >= 39) {
      const char* name = in.PickValueInArray(kTables).name;
      std::string sql = op == 40 ? std::string("DROP TABLE ") + name : "DELETE FROM schema_version";
      sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
      continue;
    }
    std::size_t table = static_cast<std::size_t>(op) % kTables.size();
    sqlite3_stmt*& s = inserts[table];
    if (!s && sqlite3_prepare_v2(db, kTables[table].insert, -1, &s, nullptr) != SQLITE_OK)
      continue;  // dropped
    for (int c = 1; c <= kTables[table].columns; ++c) bind_value(s, c, in);
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  for (sqlite3_stmt* s : inserts) sqlite3_finalize(s);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(db);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// An empty history of this perfgate's schema, as bytes (in rollback-journal mode, so that filling
// it leaves no WAL files behind).
const std::string& empty_history() {
  static const std::string bytes = [] {
    std::string path = write_input(nullptr, 0, "-template.db");
    open_history(path, HistoryAccess::Record);
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    std::string content = read_bytes(path);
    std::remove(path.c_str());
    return content;
  }();
  return bytes;
}

const RuleBook& default_book() {
  static const RuleBook book = load_rule_book({});
  return book;
}

const RuleSet& default_rules() {
  return default_book().rules;
}

// A small analysed run to gate against the history's runs: one step of one kernel.
const ReportModel& small_report() {
  static const ReportModel report = [] {
    const char* trace =
        R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-40GB"}],"traceEvents":[)"
        R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7,"correlation":1}},)"
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},)"
        R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":5}]})";
    std::string path = write_input(reinterpret_cast<const std::uint8_t*>(trace),
                                   std::char_traits<char>::length(trace), ".json");
    const RuleBook& book = default_book();
    LoadedAnalysis run = load_and_analyse({path}, {}, book.knowledge, {});
    return build_report(report_inputs(run.inputs.kept), std::move(run.analysis), book.rules.sources, {});
  }();
  return report;
}

void read_history(const std::string& path) {
  std::unique_ptr<HistoryStore> store = open_history(path, HistoryAccess::Read);
  HistoryQuery listing;
  listing.with_tables = false;
  std::vector<HistoryRun> runs = store->runs(listing);
  (void)render_history_table(runs);
  (void)render_history_json(runs);
  TrendSettings settings;
  settings.source = store->describe();
  // A lenient level, so that the fuzzed histories reach the change points' rendering: the harness
  // is after the readers and renderers, not the test's power.
  settings.detection.max_p_value = 0.05;
  TrendReport trend = build_trend(runs, gated_metrics_of(default_book()), settings);
  (void)render_trend_terminal(trend);
  (void)render_trend_json(trend);
  (void)render_trend_markdown(trend);
  // The gate's baseline: the first run's branch and GPUs, so that some runs match.
  std::string branch = runs.empty() ? "main" : runs.front().labels.branch;
  std::vector<std::string> gpus =
      runs.empty() ? std::vector<std::string>{} : runs.front().data.info.gpu_names;
  HistoryBaselines chosen = history_baselines(*store, branch, gpus, 10);
  if (chosen.runs.empty()) return;
  Baseline pooled = combine_baselines(std::move(chosen.runs));
  ReportModel report = small_report();
  apply_gate(report, default_rules(), &pooled, GateOptions{});
  (void)render_terminal(report);
  (void)render_json(report);
}

}  // namespace
}  // namespace perfgate::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace perfgate::fuzz;
  static const std::string kSqliteHeader("SQLite format 3\0", 16);
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bool is_file = bytes.substr(0, kSqliteHeader.size()) == kSqliteHeader;
  const std::string& empty = empty_history();
  std::string path =
      is_file ? write_input(data, size, ".db")
              : write_input(reinterpret_cast<const std::uint8_t*>(empty.data()), empty.size(), ".db");
  for (const char* suffix : {"-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  if (!is_file) {
    FuzzedDataProvider in(data, size);
    fill(path, in);
  }
  try {
    read_history(path);
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
