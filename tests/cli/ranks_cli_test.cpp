// Issue #44, defect 4: one rule for ranks (docs/formats.md, "Ranks"). A rank that two workers state
// gets the same warning from analyze and from merge, across Kineto and Neuron inputs, and the
// merged report is the one-process report; ranks missing below the highest are found for Neuron
// profile_rank_<i> folders, which state no world size.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "neuron/neuron_fixture.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// analyze of `folder` and merge of its two slices: both reports, which must be equal.
std::pair<std::string, std::string> analysed_and_merged(const std::string& folder) {
  std::string dir = temp_dir();
  CommandResult whole =
      run_perfgate(fmt::format("analyze '{}' --fail-on never -q --json '{}/whole.json'", folder, dir));
  EXPECT_EQ(whole.exit_code, 0) << whole.out;
  std::vector<std::string> parts;
  for (int k = 0; k < 2; ++k) {
    parts.push_back(fmt::format("{}/part-{}.pgp", dir, k));
    CommandResult r =
        run_perfgate(fmt::format("analyze '{}' --slice {}/2 --partial '{}' -q", folder, k, parts.back()));
    EXPECT_EQ(r.exit_code, 0) << r.out;
  }
  CommandResult merged = run_perfgate(
      fmt::format("merge '{}' '{}' --fail-on never -q --json '{}/merged.json'", parts[0], parts[1], dir));
  EXPECT_EQ(merged.exit_code, 0) << merged.out;
  return {read_text(dir + "/whole.json"), read_text(dir + "/merged.json")};
}

TEST(Ranks, ACopiedKinetoRankIsTheSameWarningInAnalyzeAndMerge) {
  std::string folder = write_late_rank_run(temp_dir() + "/run");
  fs::copy_file(folder + "/rank-0.json", folder + "/rank-0b.json");
  auto [whole, merged] = analysed_and_merged(folder);
  EXPECT_TRUE(contains(whole, "More than one worker states the same rank: rank 0 (rank-0")) << whole;
  EXPECT_EQ(whole, merged);
}

TEST(Ranks, AKinetoAndANeuronProfileOfOneRankAreTheSameRankTwice) {
  std::string folder = temp_dir() + "/mixed";
  fs::create_directories(folder);
  write_text(folder + "/profile_rank_1.json", neuron_full_json());
  write_text(folder + "/profile_rank_01.json", neuron_full_json());
  std::string kineto = write_late_rank_run(temp_dir() + "/late");
  fs::copy_file(kineto + "/rank-1.json", folder + "/rank-1.json");  // states rank 1 of 4
  CommandResult r =
      run_perfgate(fmt::format("analyze '{}' --fail-on never --json '{}/r.json'", folder, folder));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::string report = read_text(folder + "/r.json");
  EXPECT_TRUE(contains(report, "states the same rank: rank 1 (")) << report;
  for (const char* worker : {"profile_rank_1", "profile_rank_01", "rank-1"})
    EXPECT_TRUE(contains(report.substr(report.find("states the same rank")).substr(0, 300), worker))
        << report;
}

TEST(Ranks, MissingNeuronRanksAreReported) {
  std::string folder = temp_dir() + "/neuron";
  fs::create_directories(folder);
  for (int rank : {0, 1, 3})
    write_text(fmt::format("{}/profile_rank_{}.json", folder, rank), neuron_full_json());
  auto [whole, merged] = analysed_and_merged(folder);
  EXPECT_TRUE(contains(whole, "3 of 4 ranks present (rank 2 missing)")) << whole;
  // The metrics count it too: 3 present of the 4 expected (no world size is stated).
  EXPECT_TRUE(contains(whole, "\"ranks.present\": 3")) << whole;
  EXPECT_TRUE(contains(whole, "\"ranks.expected\": 4")) << whole;
  EXPECT_EQ(whole, merged);
}

// Issue 43: the job's critical path runs through collectives of ranks in both parts; the merge
// of the parts states it as one process does (tests/analyse/critical_path/job_critical_path_test.cpp has the
// numbers).
TEST(Ranks, TheJobCriticalPathOfAMergeIsTheOneProcessOne) {
  std::string folder = write_late_rank_run(temp_dir() + "/late", 2);
  auto [whole, merged] = analysed_and_merged(folder);
  EXPECT_TRUE(contains(whole, "\"critical_path.job_bounding_rank\": 2")) << whole;
  EXPECT_TRUE(contains(whole, "\"job_critical_path_ranks\"")) << whole;
  EXPECT_EQ(whole, merged);
}

// A merge of 1 of 2 Neuron parts: no world size is stated, but the part says it is slice 0 of 2.
TEST(Ranks, AMergeWithoutEverySliceIsRefusedOrSaysSo) {
  std::string folder = temp_dir() + "/neuron";
  fs::create_directories(folder);
  for (int rank : {0, 1})
    write_text(fmt::format("{}/profile_rank_{}.json", folder, rank), neuron_full_json());
  std::string dir = temp_dir(), part = dir + "/part-0.pgp";
  ASSERT_EQ(run_perfgate(fmt::format("analyze '{}' --slice 0/2 --partial '{}' -q", folder, part)).exit_code,
            0);
  CommandResult refused = run_perfgate(fmt::format("merge '{}' --json '{}/r.json'", part, dir));
  EXPECT_EQ(refused.exit_code, 4) << refused.out;
  EXPECT_TRUE(contains(refused.out, "1 of 2 slices present (slice 1 missing)")) << refused.out;
  EXPECT_FALSE(fs::exists(dir + "/r.json"));
  CommandResult allowed = run_perfgate(
      fmt::format("merge '{}' --allow-missing-ranks --fail-on never -q --json '{}/r.json'", part, dir));
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out;
  EXPECT_TRUE(contains(read_text(dir + "/r.json"), "1 of 2 slices present (slice 1 missing)"));
}

// Item 9: a world size of 2^62 is refused as implausible (the issue's report listed "1000001 of
// 4611686018427387904 ranks are missing"), naming the file.
TEST(Ranks, AnImplausibleWorldSizeIsRefused) {
  std::string folder = write_late_rank_run(temp_dir() + "/run");
  std::string trace = read_text(folder + "/rank-1.json");
  const std::string key = "\"world_size\": 4";
  ASSERT_NE(trace.find(key), std::string::npos);
  trace.replace(trace.find(key), key.size(), "\"world_size\": 4611686018427387904");
  write_text(folder + "/rank-1.json", trace);
  CommandResult r = run_perfgate(fmt::format("analyze '{}' -q", folder));
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, folder + "/rank-1.json: 'distributedInfo' states an implausible world size"))
      << r.out;
}

}  // namespace
}  // namespace perfgate::testing
