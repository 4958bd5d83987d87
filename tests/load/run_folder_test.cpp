#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "common/errors.h"
#include "support/helpers.h"
#include "support/nsys_builder.h"

namespace perfgate::testing {
namespace {

TEST(RunFolder, EachTraceFileIsAWorkerInNameOrder) {
  std::string dir = temp_dir();
  TraceBuilder().op("aten::add", 1, 2).write(dir + "/worker1.1623.pt.trace.json.gz");
  TraceBuilder().op("aten::add", 1, 2).op("aten::mul", 3, 1).write(dir + "/worker0.1623.pt.trace.json");
  write_text(dir + "/README.md", "not a trace");
  LoadedRun run = load_run({dir});
  ASSERT_EQ(run.workers.size(), 2u);
  EXPECT_EQ(run.inputs[0].worker, "worker0.1623");
  EXPECT_EQ(run.inputs[0].format, "kineto-json");
  EXPECT_EQ(run.inputs[1].worker, "worker1.1623");
  EXPECT_EQ(run.inputs[1].format, "kineto-json.gz");
  EXPECT_EQ(run.workers[0].host_events.size(), 2u);
  EXPECT_EQ(run.workers[1].worker, "worker1.1623");
  EXPECT_GT(run.inputs[0].bytes, 0u);
}

// Issue 78: inputs resolved once (prepare_run's) are what a load of the same paths reads: the
// folder is not listed and its files not sniffed again. Other paths are resolved as before.
TEST(RunFolder, ALoadOfTheResolvedPathsReadsTheResolvedInputs) {
  std::string dir = temp_dir();
  TraceBuilder().op("aten::add", 1, 2).write(dir + "/rank-0.json");
  auto resolved = std::make_shared<ResolvedInputs>(ResolvedInputs{{dir}, resolve_inputs({dir}, 0)});
  TraceBuilder().op("aten::mul", 1, 2).write(dir + "/rank-1.json");  // after the resolution
  LoadOptions options;
  options.resolved = resolved;
  EXPECT_EQ(load_run({dir}, options).workers.size(), 1u);
  LoadedRun other = load_run({dir + "/rank-1.json"}, options);
  ASSERT_EQ(other.workers.size(), 1u) << "other paths are resolved";
  EXPECT_EQ(other.workers[0].worker, "rank-1");
  EXPECT_EQ(load_run({dir}).workers.size(), 2u);
}

// Issue 78: a small rank is opened and read once a run: the load reads the bytes its sniff read
// (resolve_inputs keeps them), and only once; a large one is opened again to be loaded, and so is a
// small one whose sniffed bytes a load took already.
TEST(RunFolder, ASmallRankIsOpenedOnceToBeSniffedAndLoaded) {
  std::string dir = temp_dir();
  for (int rank = 0; rank < 3; ++rank)
    TraceBuilder().op("aten::add", 1, 2).write(dir + "/rank-" + std::to_string(rank) + ".json");
  TraceBuilder().op("aten::mul", 1, 2).write(dir + "/rank-3.json.gz");
  std::uint64_t before = files_opened();
  auto resolved = std::make_shared<ResolvedInputs>(ResolvedInputs{{dir}, resolve_inputs({dir}, 0)});
  EXPECT_EQ(files_opened() - before, 4u);
  LoadOptions options;
  options.resolved = resolved;
  LoadedRun run = load_run({dir}, options);
  EXPECT_EQ(files_opened() - before, 4u) << "the load opens none of them again";
  ASSERT_EQ(run.workers.size(), 4u);
  EXPECT_EQ(run.workers[3].str(run.workers[3].host_events[0].name), "aten::mul");
  EXPECT_EQ(load_run({dir}, options).workers.size(), 4u);
  EXPECT_EQ(files_opened() - before, 8u) << "a second load of the same inputs reads the files";
  std::string large = temp_dir();
  TraceBuilder big;
  for (int i = 0; i < 2000; ++i) big.op("aten::add", i * 10, 2);
  big.write(large + "/rank-0.json");
  before = files_opened();
  options.resolved = std::make_shared<ResolvedInputs>(ResolvedInputs{{large}, resolve_inputs({large}, 0)});
  ASSERT_GT(options.resolved->inputs[0].bytes, FileInput::kSmallFileBytes);
  EXPECT_EQ(load_run({large}, options).workers.size(), 1u);
  EXPECT_GE(files_opened() - before, 2u) << "a large file is streamed from the file at each read";
}

// The bytes kept from the sniffs for the loads are held all at once, before the first load: within a
// sixteenth of the memory budget (65,536 tiny ranks kept 88 MB, and doubled the peak at
// --max-memory 64M); past it a file is opened again by its load.
TEST(RunFolder, SniffedBytesAreKeptWithinASixteenthOfTheMemoryBudget) {
  std::string dir = temp_dir();
  for (int rank = 0; rank < 4; ++rank)
    TraceBuilder().op("aten::add", 1, 2).write(dir + "/rank-" + std::to_string(rank) + ".json");
  auto kept = [](const std::vector<InputFile>& inputs) {
    return std::count_if(inputs.begin(), inputs.end(),
                         [](const InputFile& i) { return i.sniffed != nullptr; });
  };
  std::vector<InputFile> unbounded = resolve_inputs({dir}, 0);
  EXPECT_EQ(kept(unbounded), 4);
  std::uint64_t one = unbounded[0].bytes;
  std::uint64_t budget = 16 * (2 * one + one / 2);  // room for two files' bytes
  std::vector<InputFile> bounded = resolve_inputs({dir}, budget);
  EXPECT_EQ(kept(bounded), 2);
  LoadOptions options;
  options.resolved = std::make_shared<ResolvedInputs>(ResolvedInputs{{dir}, std::move(bounded)});
  std::uint64_t before = files_opened();
  EXPECT_EQ(load_run({dir}, options).workers.size(), 4u);
  EXPECT_EQ(files_opened() - before, 2u) << "the two files whose bytes were not kept are opened again";
  // A load that resolves the inputs itself keeps them within the budget its options hand it.
  LoadOptions budgeted;
  budgeted.memory_budget = budget;
  before = files_opened();
  EXPECT_EQ(load_run({dir}, budgeted).workers.size(), 4u);
  EXPECT_EQ(files_opened() - before, 6u) << "four sniffs, then the two files whose bytes were not kept";
}

// Ranks in the order of their numbers, not as text (rank-10 after rank-9, not after rank-1).
TEST(RunFolder, WorkersInTheNaturalOrderOfTheirNumbers) {
  std::string dir = temp_dir();
  for (const char* name : {"rank-10", "rank-2", "rank-1", "rank-0", "rank-9", "rank-11a", "rank-11"})
    TraceBuilder().op("aten::add", 1, 2).write(dir + "/" + name + ".json");
  LoadedRun run = load_run({dir});
  std::vector<std::string> order;
  for (const auto& input : run.inputs) order.push_back(input.worker);
  EXPECT_EQ(order, (std::vector<std::string>{"rank-0", "rank-1", "rank-2", "rank-9", "rank-10", "rank-11",
                                             "rank-11a"}));
}

// The folder's names are ordered without its path (issue 78), in the order natural_path_less gives
// the whole paths: a folder whose own name ends in digits changes nothing.
TEST(RunFolder, NamesAreOrderedAsTheirWholePathsWouldBe) {
  std::string dir = temp_dir() + "/run12";
  std::filesystem::create_directories(dir);
  std::vector<std::string> names = {"r10.json", "r9.json", "r09.json", "r.json",
                                    "r1x.json", "7.json",  "r1.json"};
  for (const std::string& name : names) TraceBuilder().op("aten::add", 1, 2).write(dir + "/" + name);
  std::vector<std::string> paths;
  for (const std::string& name : names) paths.push_back(dir + "/" + name);
  std::sort(paths.begin(), paths.end(), natural_path_less);
  std::vector<std::string> resolved;
  for (const InputFile& input : resolve_inputs({dir}, 0)) resolved.push_back(input.path);
  EXPECT_EQ(resolved, paths);
}

TEST(RunFolder, AFolderWithoutTracesIsAnInputError) {
  std::string dir = temp_dir();
  write_text(dir + "/notes.txt", "x");
  EXPECT_THROW(load_run({dir}), InputError);
}

TEST(RunFolder, ProgressReportsBytesUpToTheTotal) {
  std::string dir = temp_dir();
  std::string path = TraceBuilder().op("aten::add", 1, 2).write(dir + "/a.json");
  std::uint64_t last_done = 0, last_total = 0;
  LoadOptions options;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    last_done = done;
    last_total = total;
  };
  load_run({path}, options);
  EXPECT_EQ(last_total, std::filesystem::file_size(path));
  EXPECT_EQ(last_done, last_total);
}

TEST(RunFolder, OneBadWorkerFailsTheRunWithItsName) {
  std::string dir = temp_dir();
  TraceBuilder().op("aten::add", 1, 2).write(dir + "/a.json");
  write_text(dir + "/b.json", "{\"traceEvents\": [");
  try {
    load_run({dir});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("b.json"), std::string::npos);
  }
}

// Issue 28, item 10: a dangling link or a FIFO with a trace's name was skipped silently, and the
// run lost a worker. Each is an input error naming it; the FIFO is never opened (that would block).
// A link to a trace is a worker as before.
TEST(RunFolder, AnEntryWithATraceNameThatIsNoFileIsAnInputError) {
  auto error_of = [](const std::string& dir) {
    try {
      load_run({dir});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string dir = temp_dir();
  std::string trace = TraceBuilder().op("aten::add", 1, 2).write(dir + "/r0.json");
  std::filesystem::create_symlink(trace, dir + "/r1.json");
  LoadedRun run = load_run({dir});
  ASSERT_EQ(run.workers.size(), 2u);
  EXPECT_EQ(run.workers[1].worker, "r1");

  std::filesystem::create_symlink(dir + "/gone.json", dir + "/r2.json");
  EXPECT_EQ(error_of(dir), dir + "/r2.json: a run folder's trace file is a dangling symbolic link (to '" +
                               dir + "/gone.json'); remove it or give the workers' files")
      << error_of(dir);
  std::filesystem::remove(dir + "/r2.json");

  ASSERT_EQ(::mkfifo((dir + "/r3.json.gz").c_str(), 0600), 0);
  EXPECT_EQ(
      error_of(dir),
      dir + "/r3.json.gz: a run folder's trace file is a named pipe; remove it or give the workers' files");
  std::filesystem::remove(dir + "/r3.json.gz");

  std::filesystem::create_directory(dir + "/r4.sqlite");
  EXPECT_EQ(error_of(dir),
            dir + "/r4.sqlite: a run folder's trace file is a folder; remove it or give the workers' files");
}

// Issue 29, item 8: one stray non-trace JSON (the shared folder's reference.json) stopped the
// whole run. A folder's file of another kind is skipped, naming it; a damaged trace still stops it.
TEST(RunFolder, AFileOfAnotherKindIsSkippedWithAWarningNamingIt) {
  std::string dir = temp_dir();
  TraceBuilder().op("aten::add", 1, 2).write(dir + "/rank-0.json");
  std::string reference = write_text(dir + "/reference.json", R"({"about": "values from another tool"})");
  std::string database = make_sqlite(dir + "/runs.sqlite", "CREATE TABLE runs (id INTEGER);");
  LoadedRun run = load_run({dir});
  ASSERT_EQ(run.workers.size(), 1u);
  ASSERT_EQ(run.inputs.size(), 1u);
  EXPECT_EQ(run.inputs[0].worker, "rank-0");
  // In input order: reference.json, rank-0.json, runs.sqlite.
  EXPECT_EQ(
      note_texts(run.skipped),
      (std::vector<std::string>{
          "skipped " + reference + ": not a Chrome/Kineto trace: no 'traceEvents' array",
          "skipped " + database +
              ": an SQLite database but not an Nsight Systems export (none of StringIds, "
              "CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, TARGET_INFO_GPU or META_DATA_EXPORT) nor a rocprof v1 "
              "results.db (none of its tables HIP, OPS, COPY or KERN with BeginNs and EndNs)"}));
  // Named on the command line, the same files are errors.
  EXPECT_THROW(load_run({reference}), InputError);
  EXPECT_THROW(load_run({database}), InputError);
}

TEST(RunFolder, ADamagedTraceStillStopsTheRun) {
  for (const char* damaged :
       {R"({"traceEvents": [{"ph": "X", "na)", R"({"traceEvents": 5})", R"({"traceEvents": null})",
        R"({"traceEvents": "x"})", R"({"traceEvents": true})"}) {
    std::string dir = temp_dir();
    TraceBuilder().op("aten::add", 1, 2).write(dir + "/a.json");
    std::string bad = write_text(dir + "/b.json", damaged);
    try {
      load_run({dir});
      ADD_FAILURE() << "expected an InputError for " << damaged;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(bad + ": "), std::string::npos) << e.what();
    }
  }
}

TEST(RunFolder, AFolderOfOtherFilesOnlyIsAnInputError) {
  std::string dir = temp_dir();
  std::string reference = write_text(dir + "/reference.json", R"({"about": "x"})");
  try {
    load_run({dir});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": the folder holds no profile (" + reference +
                                         ": not a Chrome/Kineto trace: no 'traceEvents' array)");
  }
}

}  // namespace
}  // namespace perfgate::testing
