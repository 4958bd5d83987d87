// Reading a history (history list, history trend, --baseline) from the command line (issue #28,
// items 4, 5 and 10): a SQLite file without tables is an empty history, reading never writes and
// needs no write access, and a tampered or damaged store is refused with a message naming it.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "history/history_cli_support.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

// What a first --record that failed on a full disk leaves: a 4096-byte SQLite file, WAL mode in
// its header, no tables.
std::string header_only_database(const std::string& path) {
  sqlite_execute(path, "PRAGMA journal_mode = WAL");
  EXPECT_EQ(fs::file_size(path), 4096u);
  EXPECT_EQ(sqlite_text(path, "SELECT COUNT(*) FROM sqlite_master"), "0");
  return path;
}

TEST(HistoryReading, AnSqliteFileWithoutTablesIsAnEmptyHistory) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), db = header_only_database(dir + "/h.db");
  std::string trace = training_trace_file(dir, steady());
  std::string before = read_text(db);

  CommandResult gate = run_perfgate(fmt::format("analyze --verbose {} --no-color --baseline {}", trace, db));
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_TRUE(contains(gate.out, "the history " + db + " has no runs yet")) << gate.out;
  CommandResult list = run_perfgate("history list " + db);
  EXPECT_EQ(list.exit_code, 0) << list.out;
  EXPECT_EQ(list.out, db + ": no runs\n");
  EXPECT_EQ(run_perfgate("history trend " + db).exit_code, 0);
  EXPECT_EQ(read_text(db), before) << "reading wrote into the file";
  // A read-only connection leaves SQLite's WAL files as it made them, empty: nothing was written.
  EXPECT_FALSE(fs::exists(db + "-wal") && fs::file_size(db + "-wal") > 0);

  // The CI job's command, which failed forever before: gate, then record the first run.
  CommandResult first = run_perfgate(fmt::format(
      "analyze --verbose {} -q --baseline {} --history {} --record --branch main", trace, db, db));
  EXPECT_EQ(first.exit_code, 0) << first.out;
  EXPECT_EQ(list_runs(db).size(), 1u);
}

TEST(HistoryReading, AnEmptyFileIsAnEmptyHistoryAndStaysEmpty) {
  std::string dir = temp_dir(), db = write_text(dir + "/zero.db", "");
  CommandResult list = run_perfgate("history list " + db);
  EXPECT_EQ(list.exit_code, 0) << list.out;
  EXPECT_EQ(list.out, db + ": no runs\n");
  EXPECT_EQ(fs::file_size(db), 0u) << "history list wrote the schema";
  EXPECT_EQ(run_perfgate("history trend " + db + " -q").exit_code, 0);
  EXPECT_EQ(fs::file_size(db), 0u);
}

// Named as a history (history list, or the --history of the same command), a table-less
// .sqlite file is an empty history; as a --baseline of its own it is a profile, and an nsys
// export always has tables.
TEST(HistoryReading, ATablelessSqliteFileIsAHistoryOnlyWhereNamedAsOne) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), file = header_only_database(dir + "/h.sqlite");
  std::string trace = training_trace_file(dir, steady());
  EXPECT_EQ(run_perfgate("history list " + file).out, file + ": no runs\n");
  CommandResult as_profile = run_perfgate(fmt::format("analyze --verbose {} -q --baseline {}", trace, file));
  EXPECT_EQ(as_profile.exit_code, 3) << as_profile.out;
  EXPECT_TRUE(
      contains(as_profile.out, "baseline: " + file + ": an SQLite database but not an Nsight Systems"))
      << as_profile.out;
  CommandResult named = run_perfgate(
      fmt::format("analyze --verbose {} -q --baseline {} --history {} --record", trace, file, file));
  EXPECT_EQ(named.exit_code, 0) << named.out;
  EXPECT_EQ(list_runs(file).size(), 1u);
}

// The race: gate-only readers while the first recorder creates and migrates the store.
TEST(HistoryReading, ReadersDuringTheFirstMigrationSeeAnEmptyHistory) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir();
  std::string trace = training_trace_file(dir, steady());
  for (int round = 0; round < 3; ++round) {
    std::string db = fmt::format("{}/race{}.db", dir, round);
    std::vector<std::string> commands{
        fmt::format("analyze --verbose {} -q --history {} --record", trace, db)};
    for (int i = 0; i < 10; ++i)
      commands.push_back(fmt::format("analyze --verbose {} -q --baseline {}", trace, db));
    for (const CommandResult& r : run_perfgate_all(commands)) EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(list_runs(db).size(), 1u);
  }
}

// Issue 55, item 12: recording into a folder the user cannot write said "cannot open the history:
// unable to open database file (No such file or directory)" (SQLite retries read-only, then reports
// ENOENT). The folder is looked at first and named.
TEST(HistoryReading, ARecordIntoAReadOnlyFolderNamesTheFolder) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), folder = dir + "/locked", db = folder + "/h.db";
  fs::create_directories(folder);
  std::string trace = training_trace_file(dir, steady());
  ::chmod(dir.c_str(), 0755);
  ::chmod(trace.c_str(), 0644);
  ::chmod(folder.c_str(), 0555);
  CommandResult r =
      run_perfgate_as("nobody", fmt::format("analyze --verbose {} -q --history {} --record", trace, db));
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, db + ": cannot create the history in " + folder + ": Permission denied"))
      << r.out;
  CommandResult missing =
      run_perfgate(fmt::format("analyze --verbose {} -q --history {}/no/such/h.db --record", trace, dir));
  EXPECT_EQ(missing.exit_code, 3) << missing.out;
  EXPECT_TRUE(contains(missing.out, "cannot create the history in " + dir + "/no/such: no such folder"))
      << missing.out;
  ::chmod(folder.c_str(), 0755);
}

// A folder the reader cannot write: SQLite cannot make the WAL index (-shm) beside the file.
TEST(HistoryReading, ReadersNeedNoWriteAccess) {
  CleanCiEnvironment clean;
  std::string dir = temp_dir(), folder = dir + "/shared", db = folder + "/h.db";
  fs::create_directories(folder);
  std::string trace = training_trace_file(dir, steady());
  ASSERT_EQ(
      run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record --branch main", trace, db))
          .exit_code,
      0);
  ASSERT_EQ(sqlite_text(db, "PRAGMA journal_mode"), "wal");
  ASSERT_FALSE(fs::exists(db + "-shm"));
  ::chmod(dir.c_str(), 0755);
  ::chmod(trace.c_str(), 0644);
  ::chmod(db.c_str(), 0444);
  ::chmod(folder.c_str(), 0555);
  std::string before = read_text(db);

  CommandResult list = run_perfgate_as("nobody", "history list " + db);
  EXPECT_EQ(list.exit_code, 0) << list.out;
  EXPECT_TRUE(contains(list.out, "  main  ")) << list.out;
  CommandResult trend = run_perfgate_as("nobody", "history trend " + db);
  EXPECT_EQ(trend.exit_code, 0) << trend.out;
  EXPECT_TRUE(contains(trend.out, "1 runs")) << trend.out;
  CommandResult gate =
      run_perfgate_as("nobody", fmt::format("analyze --verbose {} --no-color --baseline {}", trace, db));
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_TRUE(contains(gate.out, "Baseline     " + db + "#1")) << gate.out;
  ::chmod(folder.c_str(), 0755);
  EXPECT_EQ(read_text(db), before);
  auto files = fs::directory_iterator(folder);
  EXPECT_EQ(std::distance(fs::begin(files), fs::end(files)), 1) << "a file was made beside the history";
}

// The schema's version is read as the 64-bit integer it is: 2^32 + 1 is not version 1.
TEST(HistoryReading, AVersionBeyondThirtyTwoBitsIsANewerStore) {
  std::string dir = temp_dir(), db = dir + "/h.db";
  std::string trace = training_trace_file(dir, steady());
  ASSERT_EQ(run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record", trace, db)).exit_code,
            0);
  std::int64_t version = std::stoll(sqlite_text(db, "SELECT MAX(version) FROM schema_version"));
  sqlite_execute(db, "UPDATE schema_version SET version = version + 4294967296");
  std::string newer = fmt::format("written by a newer perfgate (schema {}", 4294967296 + version);
  CommandResult list = run_perfgate("history list " + db);
  EXPECT_EQ(list.exit_code, 3);
  EXPECT_TRUE(contains(list.out, db + ": " + newer)) << list.out;
  CommandResult record =
      run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record", trace, db));
  EXPECT_EQ(record.exit_code, 3);
  EXPECT_TRUE(contains(record.out, newer)) << record.out;
  EXPECT_EQ(sqlite_text(db, "SELECT COUNT(*) FROM runs"), "1") << "a run was written into a newer store";
}

// A history whose values were changed by hand gets the checks a JSON baseline gets.
TEST(HistoryReading, TamperedValuesAreRefusedWithTheStoreNamed) {
  std::string dir = temp_dir(), db = dir + "/h.db";
  std::string trace = training_trace_file(dir, steady());
  ASSERT_EQ(
      run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record --branch main", trace, db))
          .exit_code,
      0);
  std::string saved = dir + "/saved.db";
  fs::copy_file(db, saved);
  struct Case {
    std::string sql, message;
  };
  std::vector<Case> cases = {
      {"UPDATE run_steps SET duration_us = 0 WHERE position = 0",
       "run 1: step 1 has a duration of 0 us: it must be positive and at most 30 days"},
      {"UPDATE run_steps SET duration_us = -5 WHERE position = 2",
       "run 1: step 3 has a duration of -5 us: it must be positive and at most 30 days"},
      {"UPDATE run_steps SET duration_us = 1e300 WHERE position = 0",
       "run 1: step 1 has a duration of 1e+300 us: it must be positive and at most 30 days"},
      {"UPDATE run_metrics SET value = 9e999 WHERE name = 'steps.median_us'",
       "run 1: metric 'steps.median_us' is inf, beyond any real measurement (at most 1e+30)"},
      {"UPDATE run_gpus SET count = '1.1x'", "run_gpus.count of run 1 is '1.1x', not a whole number"},
      {"UPDATE run_gpus SET count = 0",
       "run 1: GPU 'NVIDIA A100-SXM4-40GB' has a count of 0, not between 1 and 1000000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sql);
    fs::copy_file(saved, db, fs::copy_options::overwrite_existing);
    sqlite_execute(db, c.sql);
    std::string expected = db + ": not a usable perfgate history: " + c.message;
    CommandResult gate = run_perfgate(fmt::format("analyze --verbose {} -q --baseline {}", trace, db));
    EXPECT_EQ(gate.exit_code, 3) << gate.out;
    EXPECT_TRUE(contains(gate.out, "perfgate: baseline: " + expected)) << gate.out;
    EXPECT_FALSE(contains(gate.out, "internal error")) << gate.out;
  }
  // history list reads the metrics and GPUs, not the steps.
  fs::copy_file(saved, db, fs::copy_options::overwrite_existing);
  sqlite_execute(db, cases[3].sql);
  CommandResult list = run_perfgate("history list " + db);
  EXPECT_EQ(list.exit_code, 3) << list.out;
  EXPECT_TRUE(contains(list.out, db + ": not a usable perfgate history: " + cases[3].message)) << list.out;
}

// A small file system of its own, filled up; needs the right to mount (root in a container).
class FullDisk {
 public:
  explicit FullDisk(const std::string& path) : path_(path) {
    fs::create_directories(path);
    mounted_ = ::mount("tmpfs", path.c_str(), "tmpfs", 0, "size=1m") == 0;
  }
  ~FullDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  void fill() {
    std::FILE* f = std::fopen((path_ + "/filler").c_str(), "wb");
    std::string block(4096, 'x');
    while (f && std::fwrite(block.data(), 1, block.size(), f) == block.size() && std::fflush(f) == 0) {
    }
    if (f) std::fclose(f);
  }

 private:
  std::string path_;
  bool mounted_ = false;
};

TEST(HistoryReading, AFullDiskIsNamed) {
  std::string dir = temp_dir(), db = dir + "/h.db";
  std::string trace = training_trace_file(dir, steady());
  ASSERT_EQ(run_perfgate(fmt::format("analyze --verbose {} -q --history {} --record", trace, db)).exit_code,
            0);
  FullDisk disk(dir + "/full");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here";
  std::string full = dir + "/full/h.db";
  fs::copy_file(db, full);
  disk.fill();
  CommandResult list = run_perfgate("history list " + full);
  EXPECT_EQ(list.exit_code, 3) << list.out;
  EXPECT_TRUE(contains(list.out, "perfgate: " + full + ": cannot read the history: ")) << list.out;
  EXPECT_TRUE(contains(list.out, "No space left on device")) << list.out;
}

}  // namespace
}  // namespace perfgate::testing
