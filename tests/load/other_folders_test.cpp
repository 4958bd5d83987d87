// Issue 91, item 7: folders (and files) of other things. A DLProf report (its CSVs, or the folder
// of them) is named as such, with the input to give instead; a folder of memory snapshots is read
// as a set of snapshots, each as it is alone. Before: a DLProf folder "holds no trace files", one
// of its CSVs got the whole list of formats, and a folder of snapshots "holds no trace files".
#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"
#include "support/helpers.h"
#include "support/snapshot_builder.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// dlprof_tensor_core.csv as DLProf 1.x writes it (`dlprof --reports=all`): the report's title alone
// on the first line, its columns on the second.
constexpr const char* kTensorCoreReport =
    "Tensor Core Report\n"
    "Op ID,Op Name,Op Type,Uses TC,Total GPU Time (ns),TC GPU Time (ns),Non-TC GPU Time (ns),TC Utilization "
    "(%),Total Kernel Count,TC Kernel Count,TC Kernel Names,Non-TC Kernel Count,Non-TC Kernel Names\n"
    "\"SIMPLE_MODE_GLOBAL_NODE_OP_TYPE_1\",\"simple_mode_global_node_name\",simple_mode_global_node_op_type,"
    "yes,6583335,12063,6571272,0.2,17,1,\"Kernel\",16,\"computeOffsetsKernel\"\n";

TEST(OtherFolders, ADlprofCsvIsNamedWithTheInputToGive) {
  std::string dir = temp_dir();
  // Known by its head whatever its name, and by DLProf's name whatever its head.
  for (const std::string& path :
       {write_text(dir + "/tc.csv", kTensorCoreReport),
        write_text(dir + "/dlprof_summary.csv", "Summary Report\r\nMetric,Value\r\n")}) {
    try {
      load_run({path});
      ADD_FAILURE() << path << " was read";
    } catch (const InputError& e) {
      std::string said = e.what();
      EXPECT_TRUE(contains(said, path + ": a DLProf CSV report")) << said;
      EXPECT_TRUE(contains(said,
                           "which perfgate does not read: give it the Nsight Systems SQLite export DLProf "
                           "made it from (nsys_profile.sqlite beside it"))
          << said;
      EXPECT_FALSE(contains(said, "a Kineto JSON trace")) << "not the whole list of formats: " << said;
    }
  }
  // A CSV of another kind is not taken for one: its first line is not a title.
  std::string other = write_text(dir + "/data.csv", "a,b\n1,2\n");
  try {
    load_run({other});
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    EXPECT_FALSE(contains(e.what(), "DLProf")) << e.what();
  }
}

// A folder of DLProf's output without its SQLite export: the CSVs and the .qdrep named, exit 3.
TEST(OtherFolders, AFolderOfDlprofCsvsIsNamedWithTheInputToGive) {
  std::string dir = temp_dir();
  write_text(dir + "/dlprof_tensor_core.csv", kTensorCoreReport);
  write_text(dir + "/dlprof_kernel.csv", "Kernel Report\nGPU Time (ns),Kernel Name,Uses TC\n10,k,no\n");
  write_text(dir + "/dlprof_expert_systems.csv", "Expert Systems Report\nProblem,Recommendation\n");
  write_text(dir + "/nsys_profile.qdrep", "binary");
  try {
    load_run({dir});
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    std::string said = e.what();
    EXPECT_TRUE(contains(said, dir + ": the folder holds no trace files")) << said;
    EXPECT_TRUE(contains(said, "dlprof_expert_systems.csv and 2 more are a DLProf CSV report")) << said;
    EXPECT_TRUE(contains(said,
                         "nsys_profile.qdrep is an Nsight Systems report, which perfgate does not read: "
                         "give it its SQLite export (nsys export --type sqlite FILE)"))
        << said;
  }
  CommandResult run = run_perfgate("analyze -q '" + dir + "'");
  EXPECT_EQ(run.exit_code, 3) << run.out;  // an input error (docs/usage.md, exit codes)
  EXPECT_TRUE(contains(run.out, "DLProf CSV report")) << run.out;
  // With the export DLProf read beside them, the folder is a run of it (the CSVs are not trace files).
}

constexpr std::uint64_t kMiB = 1 << 20;

// A snapshot of one device whose trace allocates `peak_mib` MiB and frees it: peak `peak_mib` MiB,
// nothing allocated at the end (one 64 MiB segment reserved, inactive).
std::string snapshot_of_peak(std::uint64_t peak_mib) {
  test::Snapshot s;
  s.segments.push_back({0, 0x10000000, 64 * kMiB, {{0x10000000, 64 * kMiB, "inactive", {}}}});
  s.device_traces.push_back({{"alloc", 0x10000000, peak_mib * kMiB, 10, {}},
                             {"free_requested", 0x10000000, peak_mib * kMiB, 20, {}},
                             {"free_completed", 0x10000000, peak_mib * kMiB, 30, {}}});
  return test::snapshot_pickle(s);
}

// Three snapshots (peaks 8, 32 and 16 MiB) in a folder: read as a set, each worker as the file is
// alone; the run's table of snapshots has a row each, the largest peak first: 32, 16, 8 MiB.
TEST(OtherFolders, AFolderOfSnapshotsIsASetOfSnapshots) {
  std::string dir = temp_dir();
  write_text(dir + "/a.pickle", snapshot_of_peak(8));
  write_text(dir + "/b.pickle", snapshot_of_peak(32));
  write_text(dir + "/c.pkl", snapshot_of_peak(16));
  write_text(dir + "/notes.txt", "not a snapshot");
  ReportModel set = report_of_files({dir}, default_book());
  ASSERT_EQ(set.workers.size(), 3u);
  ReportModel alone = report_of_files({dir + "/b.pickle"}, default_book());
  EXPECT_EQ(alone.metric(Metric::MemorySnapshotPeakBytes), 32.0 * kMiB);
  EXPECT_EQ(set.workers[1].metrics.get(Metric::MemorySnapshotPeakBytes), 32.0 * kMiB) << "b as it is alone";
  const ReportTable* table = find_table(set.tables, "memory_snapshots");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rows.size(), 3u);
  const char* order[] = {"b.pickle", "c.pkl", "a.pickle"};
  const double peaks[] = {32.0 * kMiB, 16.0 * kMiB, 8.0 * kMiB};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(std::get<std::string>(*find_cell(*table, i, "worker")), order[i]);
    EXPECT_EQ(*cell_number(*find_cell(*table, i, "peak_allocated_bytes")), peaks[i]);
    EXPECT_EQ(*cell_number(*find_cell(*table, i, "reserved_bytes")), 64.0 * kMiB);
    EXPECT_EQ(*cell_number(*find_cell(*table, i, "allocated_bytes")), 0.0);
  }
  EXPECT_EQ(find_table(set.tables, "ranks"), nullptr) << "snapshots are not ranks";
  // The largest peak of the set is the run's.
  EXPECT_EQ(set.metric(Metric::MemorySnapshotPeakBytes), 32.0 * kMiB);
}

// A snapshot beside trace files is not a worker of their run (as before): the traces are.
TEST(OtherFolders, ASnapshotBesideTracesIsNotAWorker) {
  std::string dir = temp_dir();
  TraceBuilder().op("aten::add", 1, 2).write(dir + "/rank-0.json");
  write_text(dir + "/memory.pickle", snapshot_of_peak(8));
  LoadedRun run = load_run({dir});
  ASSERT_EQ(run.workers.size(), 1u);
  EXPECT_EQ(run.workers[0].worker, "rank-0");
}

}  // namespace
}  // namespace perfgate::testing
